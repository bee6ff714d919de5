#include "ragged/algorithms.hpp"
#include "ragged/registry.hpp"

namespace ragged {

void register_core_algorithms(Registry& registry) {
  using C = Collective;
  const Restrictions any{};
  Restrictions commutative{};
  commutative.commutative_only = true;

  registry.add(make_algorithm<C::allgather>("ring", "Ring: P-1 steps, each rank forwards the block it received last.",
                                            any, &allgather_ring));
  registry.add(make_algorithm<C::allgather>(
      "nex", "Neighbor exchange: P/2 steps of pairwise exchanges with alternating neighbors (even P; ring for odd P).",
      any, &allgather_nex));
  registry.add(
      make_algorithm<C::allgather>("lnbc", "Linear gather to rank 0, then binomial broadcast.", any, &allgather_lnbc));
  registry.add(make_algorithm<C::allgather>(
      "bruck", "Bruck: ceil(log2 P) steps of doubling distance, then a local rotation.", any, &allgather_bruck));

  registry.add(make_algorithm<C::allreduce>(
      "ring", "Ring reduce-scatter then ring allgather: 2(P-1) steps of n/P elements.", commutative, &allreduce_ring));
  registry.add(make_algorithm<C::allreduce>(
      "rabenseifner",
      "Recursive-halving reduce-scatter then recursive-doubling allgather; any P (folds to a power of two).",
      commutative, &allreduce_rabenseifner));
  registry.add(make_algorithm<C::allreduce>("recursive_doubling", "Recursive doubling on whole vectors, any P.",
                                            commutative, &allreduce_recursive_doubling));
  registry.add(make_algorithm<C::allreduce>(
      "pipelined_linear", "Pipelined chain: 32 KiB segments reduced down the chain to rank 0, results passed back up.",
      commutative, &allreduce_pipelined_linear));

  registry.add(make_algorithm<C::bcast>("binomial", "Binomial tree broadcast.", any, &bcast_binomial));
  registry.add(make_algorithm<C::bcast>("linear", "The root sends to every rank.", any, &bcast_linear));

  registry.add(make_algorithm<C::reduce>(
      "binomial", "Binomial tree reduction; operands in rank order (non-commutative ops: tree at 0, then to root).",
      any, &reduce_binomial));

  registry.add(make_algorithm<C::gather>("linear", "Every rank sends its block to the root.", any, &gather_linear));
  registry.add(make_algorithm<C::gather>("binomial", "Binomial tree gather.", any, &gather_binomial));
  registry.add(make_algorithm<C::scatter>("linear", "The root sends every rank its block.", any, &scatter_linear));
  registry.add(make_algorithm<C::scatter>("binomial", "Binomial tree scatter.", any, &scatter_binomial));
  register_alltoall_algorithms(registry);
  register_arrival_algorithms(registry);
  register_irregular_algorithms(registry);
}

}  // namespace ragged
