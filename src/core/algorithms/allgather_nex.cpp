// allgather "nex": neighbor exchange (Chen et al.), as Open MPI uses for even P.
//
//   P = 6, pairs A = blocks {0,1}, B = {2,3}, C = {4,5}. Step 0 swaps one
//   block inside each pair; every later step swaps one whole pair (two
//   adjacent blocks, one message) with the other neighbor, forwarding the pair
//   received in the step before.
//
//   step  exchanges            held after the step (pairs)
//                               r0   r1   r2   r3   r4   r5
//   0     0-1  2-3  4-5         A    A    B    B    C    C
//   1     1-2  3-4  5-0         AC   AB   BA   BC   CB   CA
//   2     0-1  2-3  4-5         ACB  ABC  BAC  BCA  CBA  CAB
//
// Reference: J. Chen, L. Zhang, Y. Zhang, W. Yuan, "Performance evaluation of allgather algorithms on terascale Linux
//   cluster with fast Ethernet", HPCAsia 2005 (NEX in J. Proficz, "All-gather Algorithms Resilient to Imbalanced
//   Process Arrival Patterns", ACM TACO 18(4), 2021).
// Limitation: even P only: odd P runs the ring.
// Memory: none beyond the receive buffer.
//
// Cost (n = P*count*size bytes gathered), even P: P/2 alpha + (P-1)/P n beta:
// the bandwidth of the ring with half its steps.
//
// Odd P has no perfect pairing; like Open MPI, NEX then runs the ring
// (allgather_ring: (P-1) alpha + (P-1)/P n beta), with this call's context.
#include <cassert>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/nex_plan.hpp"

namespace ragged {

void allgather_nex(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  assert(procs % 2 == 0);  // the list's restriction `even`: dispatch runs the ring for odd P
  const int rank = comm.rank();
  const std::size_t block = count * size_of(type);
  const int tag = ctx.tag(0);

  // Dispatch copied this rank's block into recvbuf.
  std::byte* out = internal::bytes(recvbuf);
  const auto at = [&](int b) { return out + static_cast<std::size_t>(b) * block; };

  for (int s = 0; s < plans::nex::steps(procs); ++s) {
    const plans::nex::Step step = plans::nex::step(rank, procs, s);
    comm.sendrecv(step.peer, tag, at(step.send_first), static_cast<std::size_t>(step.send_blocks) * block, step.peer,
                  tag, at(step.recv_first), static_cast<std::size_t>(step.recv_blocks) * block, ctx.timeout());
  }
}

}  // namespace ragged
