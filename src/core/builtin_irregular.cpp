// Registers the irregular gather and scatter algorithms (ragged/irregular.hpp, seed 003).
#include "ragged/irregular.hpp"
#include "ragged/registry.hpp"

namespace ragged {

void register_irregular_algorithms(Registry& registry) {
  using C = Collective;
  const Restrictions any{};
  registry.add(make_algorithm<C::gatherv>(
      "traff", "Traff's block-size-aware binomial tree, built in ceil(log2 p) rounds (seed 003, lemma 1 estimates).",
      any, &gatherv_traff));
  registry.add(make_algorithm<C::gatherv>("traff_copy", "Traff's tree with lemma 4 estimates (own-block copy costed).",
                                          any, &gatherv_traff_copy));
  registry.add(make_algorithm<C::gatherv>(
      "traff_degrade", "Traff's tree; subtrees above 64 KiB send straight to the root (graceful degradation).", any,
      &gatherv_traff_degrade));
  registry.add(
      make_algorithm<C::gatherv>("linear", "Every rank sends its block straight to the root.", any, &gatherv_linear));
  registry.add(make_algorithm<C::gatherv>(
      "binomial", "Fixed binomial tree, subtree sizes sent ahead of the data (block-size oblivious).", any,
      &gatherv_binomial));
  registry.add(make_algorithm<C::gatherv>(
      "padded", "Allreduce of the largest block, then the binomial gather of padded blocks (GL2's right side).", any,
      &gatherv_padded));

  registry.add(make_algorithm<C::scatterv>(
      "traff", "Traff's block-size-aware binomial tree, built in ceil(log2 p) rounds (seed 003, lemma 1 estimates).",
      any, &scatterv_traff));
  registry.add(make_algorithm<C::scatterv>("traff_copy", "Traff's tree with lemma 4 estimates (own-block copy costed).",
                                           any, &scatterv_traff_copy));
  registry.add(make_algorithm<C::scatterv>(
      "traff_degrade", "Traff's tree; subtrees above 64 KiB come straight from the root (graceful degradation).", any,
      &scatterv_traff_degrade));
  registry.add(
      make_algorithm<C::scatterv>("linear", "The root sends every rank its block straight.", any, &scatterv_linear));
  registry.add(make_algorithm<C::scatterv>(
      "binomial", "Fixed binomial tree, subtree sizes gathered ahead of the data (block-size oblivious).", any,
      &scatterv_binomial));
  registry.add(make_algorithm<C::scatterv>(
      "padded", "Allreduce of the largest block, then the binomial scatter of padded blocks (GL2's right side).", any,
      &scatterv_padded));
}

}  // namespace ragged
