// allreduce "pipelined_linear": a pipelined chain (the "linear tree" that
// Proficz 2018's SLT builds on). Segments are reduced down the chain
// P-1 -> ... -> 1 -> 0 and the results travel back 0 -> 1 -> ... -> P-1.
//
//   P = 4, segments a, b, c; lower case: partial sums, upper case: results.
//   Slots are segment transfer times, drawn for links that carry each
//   direction separately (on a switch, see the cost below):
//
//   slot      0  1  2  3  4  5  6  7
//   3 -> 2    a  b  c                     rank 3 sends its own segments
//   2 -> 1       a  b  c                  rank 2 adds its own and passes on
//   1 -> 0          a  b  c               rank 1 likewise
//   0 -> 1             A  B  C            rank 0 adds its own: result
//   1 -> 2                A  B  C         stored and passed up
//   2 -> 3                   A  B  C
//
//   Rank r receives segment t from r+1, reduces it with its own, passes it
//   to r-1 and posts the receive of the result of t from r-1. Results come
//   back about 2r segment times later, so after reducing segment t a middle
//   rank forwards the results of segments up to t-2r to r+1 (plans/
//   pipelined_linear_plan.hpp), then the remaining ones at the end. Each rank
//   keeps one send in flight per direction (plans::chain::send_window):
//   segments posted all at once would share the link and all arrive at the
//   end, which stalls the pipeline. No rank ever polls, and the chain cannot
//   deadlock: every wait depends only on earlier segments or on ranks further
//   down the chain (tests/unit/pipelined_linear_plan_test.cpp runs the programs).
//
// Reference: J. Proficz, "Improving all-reduce collective operations for imbalanced process arrival patterns", The
//   Journal of Supercomputing 74(7), 2018 (the linear tree its SLT builds on, §4.1).
// Limitation: commutative operators only (a non-commutative one runs reduce_bcast); latency linear in P (the pipeline
//   fills and drains); on a switch a middle rank's port carries 2n bytes.
// Memory: one vector of n bytes per rank: the far end's copy of its own vector, the others' partial segments.
//
// Segment size: 32 KiB (plans::chain::segment_bytes), whole elements.
// Cost (n = count*size bytes, k = ceil(n / s) segments of s = 32 KiB):
//   with separate links to r-1 and r+1 (a physical chain):
//     (2(P-1) + k - 1)(alpha + s beta) + n gamma;
//   on a switch, where a middle rank's one port sends both the partials and
//   the results (2n bytes):
//     about 2(P-1)(alpha + s beta) + 2n beta + n gamma,
//   the ring's bandwidth for large P, with latency linear in P (the fill and
//   drain of the pipeline). Commutative operators only. Every rank gets rank
//   0's bits. Any P.
//
// Dispatch copied sendbuf into recvbuf (sendbuf == recvbuf here): every rank's
// own vector starts in recvbuf, where its results land too.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/pipelined_linear_plan.hpp"

namespace ragged {

void allreduce_pipelined_linear(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type,
                                const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int rank = comm.rank();
  const std::size_t esize = size_of(type);
  const std::size_t bytes = count * esize;

  std::byte* out = internal::bytes(recvbuf);

  namespace chain = plans::chain;
  const int tag = ctx.tag(0);
  const std::size_t per = chain::segment_elements(esize);
  const std::size_t nseg = chain::segments(count, per);
  const auto offset = [&](std::size_t t) { return chain::segment_first(t, per) * esize; };
  const auto length = [&](std::size_t t) { return chain::segment_size(count, t, per); };
  const int down = rank - 1;  // toward rank 0, where the reduction completes
  const int up = rank + 1;    // where the results go

  std::vector<Request> partial_recv;  // partial segments from `up`
  std::vector<Request> partial_send;  // partial segments to `down`
  std::vector<Request> result_recv;   // results from `down`
  std::vector<Request> result_send;   // results to `up`
  // Starts sending segment t in one direction once the send of segment t - window has completed.
  const auto send_in_order = [&](std::vector<Request>& sends, const std::byte* data, int dest, std::size_t t) {
    if (t >= chain::send_window) sends[t - chain::send_window].wait(ctx.timeout());
    sends.push_back(comm.isend(dest, tag, data + offset(t), length(t) * esize));
  };

  if (rank == procs - 1) {
    // The far end: send every own segment down, receive every result. The own segments (in
    // recvbuf) must not be overwritten while they are still being sent: send from a copy.
    const std::vector<std::byte> copy(out, out + bytes);
    const std::byte* own = copy.data();
    partial_send.reserve(nseg);
    result_recv.reserve(nseg);
    for (std::size_t t = 0; t < nseg; ++t) {
      send_in_order(partial_send, own, down, t);
      result_recv.push_back(comm.irecv(down, tag, out + offset(t), length(t) * esize));
    }
    comm.wait_all(partial_send, ctx.timeout());
    comm.wait_all(result_recv, ctx.timeout());
    return;
  }

  // Every other rank receives the partial segments from `up` into scratch.
  std::vector<std::byte> scratch(bytes);
  partial_recv.reserve(nseg);
  for (std::size_t t = 0; t < nseg; ++t) {
    partial_recv.push_back(comm.irecv(up, tag, scratch.data() + offset(t), length(t) * esize));
  }

  if (rank == 0) {
    // The reducing end: recvbuf starts as the own vector; each segment is complete once the
    // partial from rank 1 is added, and goes straight back up.
    result_send.reserve(nseg);
    for (std::size_t t = 0; t < nseg; ++t) {
      partial_recv[t].wait(ctx.timeout());
      reduce_local(op, type, scratch.data() + offset(t), out + offset(t), length(t));
      comm.runtime().charge(static_cast<double>(length(t)));
      send_in_order(result_send, out, up, t);
    }
    comm.wait_all(result_send, ctx.timeout());
    return;
  }

  // A middle rank: own op partial goes down (from scratch); the result lands in recvbuf.
  const std::byte* own = out;
  partial_send.reserve(nseg);
  result_recv.reserve(nseg);
  result_send.reserve(nseg);
  const auto forward_results = [&](std::size_t upto) {
    while (result_send.size() < upto) {
      const std::size_t j = result_send.size();
      result_recv[j].wait(ctx.timeout());
      send_in_order(result_send, out, up, j);
    }
  };
  for (std::size_t t = 0; t < nseg; ++t) {
    partial_recv[t].wait(ctx.timeout());
    reduce_local(op, type, own + offset(t), scratch.data() + offset(t), length(t));
    comm.runtime().charge(static_cast<double>(length(t)));
    send_in_order(partial_send, scratch.data(), down, t);
    // Own segment t has been consumed: its memory may now take the result.
    result_recv.push_back(comm.irecv(down, tag, out + offset(t), length(t) * esize));
    forward_results(chain::forwarded_after(rank, t, nseg));
  }
  forward_results(nseg);
  comm.wait_all(partial_send, ctx.timeout());
  comm.wait_all(result_send, ctx.timeout());
}

}  // namespace ragged
