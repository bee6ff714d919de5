// Registers the alltoall and alltoallv algorithms (ragged/alltoall.hpp).
#include "ragged/alltoall.hpp"
#include "ragged/registry.hpp"

namespace ragged {

void register_alltoall_algorithms(Registry& registry) {
  using C = Collective;
  const Restrictions any{};
  Restrictions two_clusters{};
  two_clusters.needs_two_clusters = true;

  registry.add(make_algorithm<C::alltoall>(
      "lg", "Local Group (seed 001): local exchange packing what crosses, then 2*max(n1,n2) backbone messages.",
      two_clusters, &alltoall_lg));
  registry.add(make_algorithm<C::alltoall>(
      "coordinator", "One coordinator per cluster gathers, exchanges across in one message each way, scatters.",
      two_clusters, &alltoall_coordinator));
  registry.add(make_algorithm<C::alltoall>(
      "linear", "Every send and receive posted at once in a scattered order (Open MPI's basic linear).", any,
      &alltoall_linear));
  registry.add(make_algorithm<C::alltoall>("pairwise", "P-1 steps: send to rank+k, receive from rank-k.", any,
                                           &alltoall_pairwise));
  registry.add(make_algorithm<C::alltoall>("bruck", "Bruck: ceil(log2 P) steps of packed blocks (small messages).", any,
                                           &alltoall_bruck));

  registry.add(make_algorithm<C::alltoallv>(
      "lg", "Local Group for blocks of any size: sizes ride the local phase, at most 2*max(n1,n2) backbone messages.",
      two_clusters, &alltoallv_lg));
  registry.add(make_algorithm<C::alltoallv>(
      "linear", "Every non-empty send and receive posted at once in a scattered order.", any, &alltoallv_linear));
  registry.add(make_algorithm<C::alltoallv>("pairwise", "P-1 steps: send to rank+k, receive from rank-k.", any,
                                            &alltoallv_pairwise));
}

}  // namespace ragged
