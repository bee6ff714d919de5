#include "plans/ssp_plan.hpp"

#include <bit>
#include <stdexcept>

#include "plans/ring_plan.hpp"

namespace ragged::plans::ssp {

namespace {

int core_size(int procs) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(procs))); }
int dimensions(int procs) { return std::countr_zero(static_cast<unsigned>(core_size(procs))); }

}  // namespace

int segments(Topology topology, int procs) { return topology == Topology::ring ? procs : 1; }

int steps(Topology topology, int procs) {
  if (procs < 1) throw std::invalid_argument("procs must be >= 1");
  return topology == Topology::ring ? 2 * (procs - 1) : dimensions(procs) + 2;
}

std::vector<Step> plan(Topology topology, int procs, int rank) {
  if (procs < 1 || rank < 0 || rank >= procs) throw std::invalid_argument("rank outside 0..procs-1");
  std::vector<Step> out(static_cast<std::size_t>(steps(topology, procs)));
  if (topology == Topology::ring) {
    const int right = ring::right(rank, procs);
    const int left = ring::left(rank, procs);
    for (int t = 0; t < procs - 1; ++t) {
      Step& s = out[static_cast<std::size_t>(t)];
      s.send_to = right;
      s.send_segment = ring::reduce_scatter_send_segment(rank, procs, t);
      s.recv_from = left;
      s.recv_segment = ring::reduce_scatter_recv_segment(rank, procs, t);
      s.apply = Apply::reduce;
      Step& g = out[static_cast<std::size_t>(procs - 1 + t)];
      g.send_to = right;
      g.send_segment = ring::allgather_send_block(rank, procs, t);
      g.recv_from = left;
      g.recv_segment = ring::allgather_recv_block(rank, procs, t);
      g.apply = Apply::copy;
    }
    return out;
  }
  const int m = core_size(procs);
  const int d = dimensions(procs);
  if (rank >= m) {
    out.front().send_to = rank - m;
    out.back().recv_from = rank - m;
    out.back().apply = Apply::copy;
    return out;
  }
  if (rank + m < procs) {
    out.front().recv_from = rank + m;
    out.back().send_to = rank + m;
  }
  for (int k = 0; k < d; ++k) {
    Step& s = out[static_cast<std::size_t>(k + 1)];
    s.send_to = rank ^ (1 << k);
    s.recv_from = rank ^ (1 << k);
  }
  return out;
}

}  // namespace ragged::plans::ssp
