// Cost-model inputs of the shipped platforms, for unit tests of the models and of `auto`.
#pragma once

#include <algorithm>

#include "plans/cost_input.hpp"

namespace ragged::test {

/// infiniband-qdr-560: nodes of 16 ranks sharing one 3.2 GB/s card, 1.7 us between nodes, 0.5 us
/// inside, a 0.5 us message gap; by-slot mapping (nodes of 16 consecutive ranks, the last one
/// smaller). Its 20 GB/s node memory only when `with_node_memory`.
inline CostInput qdr(int procs, double bytes, bool with_node_memory = false) {
  CostInput x;
  x.procs = procs;
  x.bytes = bytes;
  x.alpha = 1.7e-6;
  x.beta = 1 / 3.2e9;
  x.gamma = 0.25e-9;
  x.nodes = (procs + 15) / 16;
  x.per_node = std::min(procs, 16);
  x.alpha_intra = 0.5e-6;
  x.beta_intra = 1 / 3.2e9;
  x.gap = 0.5e-6;
  if (with_node_memory) x.beta_node = 1 / 20e9;
  return x;
}

}  // namespace ragged::test
