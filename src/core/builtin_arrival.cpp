// Registration of the arrival-aware algorithms (ragged/arrival.hpp).
#include "ragged/arrival.hpp"
#include "ragged/registry.hpp"

namespace ragged {

void register_arrival_algorithms(Registry& registry) {
  using C = Collective;
  Restrictions arrival{};
  arrival.needs_arrival = true;
  registry.add(make_algorithm<C::allgather>(
      "bdr", "Background Disseminated Ring: the ring plus pre-steps before the last arrival (seed 000, listing 2).",
      arrival, &allgather_bdr));
  registry.add(make_algorithm<C::allgather>(
      "bgd",
      "Background Greedy Dissemination: BDR's steps filled rarest segment first, forwarding before arrival "
      "(beyond seed 000).",
      arrival, &allgather_bgd));
  registry.add(make_algorithm<C::allgather>(
      "bslb", "BSLS gather to rank 0 in estimated arrival order, then binomial broadcast (seed 000, listing 3).",
      arrival, &allgather_bslb));
  registry.add(make_algorithm<C::gather>(
      "bsls", "Sorted linear synchronized gather; the root's agent receives while the root computes.", arrival,
      &gather_bsls));
  registry.add(make_algorithm<C::gather>(
      "sls", "Sorted linear synchronized gather: the root signals ranks in estimated arrival order.", arrival,
      &gather_sls));
}

}  // namespace ragged
