// allreduce "ring": a ring reduce-scatter, then a ring allgather of the
// reduced segments (as Open MPI's ring allreduce; Proficz 2018's baseline).
//
//   The vector is cut into P nearly equal segments s0..s(P-1) (the first
//   count % P one element longer). Reduce-scatter step t: rank r sends its
//   partial segment r-t-1 to r+1 and receives segment r-t-2 from r-1, which
//   it reduces into its own copy. After P-1 steps rank r holds segment r
//   reduced over all ranks; the allgather then circulates the segments.
//
//   P = 3, x_r = the vector of rank r, sums shown for one segment each
//                    rank 0          rank 1          rank 2
//   RS t=0 sends     s2: x0          s0: x1          s1: x2
//   RS t=1 sends     s1: x0+x2       s2: x1+x0       s0: x2+x1
//   after RS holds   s0: all         s1: all         s2: all
//   AG t=0 sends     s0              s1              s2
//   AG t=1 sends     s2              s0              s1
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005; Open MPI's ring allreduce, the baseline of J. Proficz, "Improving all-reduce collective
//   operations for imbalanced process arrival patterns", The Journal of Supercomputing 74(7), 2018.
// Limitation: commutative operators only (a non-commutative one runs reduce_bcast); 2(P-1) steps, latency linear in P.
// Memory: one segment of n/P bytes (the incoming one).
//
// Cost (n = count*size bytes): 2(P-1) alpha + 2(P-1)/P n beta + (P-1)/P n gamma.
// Bandwidth-optimal; the latency term grows linearly in P. Commutative
// operators only (each segment is reduced in a different rank order). Every
// segment is reduced on one rank and then copied, so all ranks get the same
// bits even for floating point. Segments of zero elements (count < P) are
// skipped by both neighbors, who agree on their size.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/ring_plan.hpp"

namespace ragged {

void allreduce_ring(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type,
                    const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int rank = comm.rank();
  const std::size_t esize = size_of(type);

  // Dispatch copied sendbuf into recvbuf.
  std::byte* out = internal::bytes(recvbuf);

  namespace ring = plans::ring;
  const auto seg_ptr = [&](int s) { return out + ring::segment_offset(count, procs, s) * esize; };
  const auto seg_size = [&](int s) { return ring::segment_size(count, procs, s); };
  const int right = ring::right(rank, procs);
  const int left = ring::left(rank, procs);
  const int tag = ctx.tag(0);

  std::vector<std::byte> incoming(seg_size(0) * esize);  // segment 0 is a longest one
  for (int t = 0; t < procs - 1; ++t) {
    const int send_seg = ring::reduce_scatter_send_segment(rank, procs, t);
    const int recv_seg = ring::reduce_scatter_recv_segment(rank, procs, t);
    const std::size_t send_n = seg_size(send_seg);
    const std::size_t recv_n = seg_size(recv_seg);
    Request requests[2];
    if (recv_n != 0) requests[0] = comm.irecv(left, tag, incoming.data(), recv_n * esize);
    if (send_n != 0) requests[1] = comm.isend(right, tag, seg_ptr(send_seg), send_n * esize);
    comm.wait_all(requests, ctx.timeout());
    if (recv_n != 0) {
      reduce_local(op, type, incoming.data(), seg_ptr(recv_seg), recv_n);
      comm.runtime().charge(static_cast<double>(recv_n));
    }
  }
  for (int t = 0; t < procs - 1; ++t) {
    const int send_seg = ring::allgather_send_block(rank, procs, t);
    const int recv_seg = ring::allgather_recv_block(rank, procs, t);
    const std::size_t send_n = seg_size(send_seg);
    const std::size_t recv_n = seg_size(recv_seg);
    Request requests[2];
    if (recv_n != 0) requests[0] = comm.irecv(left, tag, seg_ptr(recv_seg), recv_n * esize);
    if (send_n != 0) requests[1] = comm.isend(right, tag, seg_ptr(send_seg), send_n * esize);
    comm.wait_all(requests, ctx.timeout());
  }
}

}  // namespace ragged
