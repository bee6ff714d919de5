// What the two allreduces on a pipelined chain share (allreduce_pipelined_linear.cpp and
// allreduce_slt.cpp): the segments of the vector, the four streams of requests of one link, the
// send window, and the chain's two ends. Partials travel down the chain to its reducing end
// (position 0), results back up; the middle ranks differ (SLT's moves whatever can move).
#pragma once

#include <cstddef>
#include <vector>

#include "plans/pipelined_linear_plan.hpp"
#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/datatype.hpp"

namespace ragged::internal {

class ChainLink {
 public:
  /// `out`: recvbuf, which holds this rank's own vector on entry and the results at the end;
  /// `down`: the neighbour toward the reducing end (-1 there), `up`: away from it (-1 at the far end).
  ChainLink(const Context& ctx, int tag, std::byte* out, std::size_t count, DataType type, int down, int up)
      : ctx_(ctx),
        tag_(tag),
        out_(out),
        count_(count),
        esize_(size_of(type)),
        per_(plans::chain::segment_elements(esize_)),
        nseg_(plans::chain::segments(count, per_)),
        down_(down),
        up_(up) {}

  [[nodiscard]] std::size_t segments() const { return nseg_; }
  /// Byte offset and element count of segment t.
  [[nodiscard]] std::size_t offset(std::size_t t) const { return plans::chain::segment_first(t, per_) * esize_; }
  [[nodiscard]] std::size_t length(std::size_t t) const { return plans::chain::segment_size(count_, t, per_); }
  [[nodiscard]] std::size_t bytes(std::size_t t) const { return length(t) * esize_; }

  std::vector<Request> partial_recv;  ///< partial segments from `up`
  std::vector<Request> partial_send;  ///< partial segments to `down`
  std::vector<Request> result_recv;   ///< results from `down`
  std::vector<Request> result_send;   ///< results to `up`

  /// Starts sending segment t of `data` to `dest` once the send of segment t - window has completed.
  void send_in_order(std::vector<Request>& sends, const std::byte* data, int dest, std::size_t t) {
    if (t >= plans::chain::send_window) sends[t - plans::chain::send_window].wait(ctx_.timeout());
    sends.push_back(ctx_.comm().isend(dest, tag_, data + offset(t), bytes(t)));
  }

  /// The far end: sends every own segment down (from `own`, a copy: results land in recvbuf
  /// meanwhile) and receives every result.
  void far_end(const std::byte* own) {
    partial_send.reserve(nseg_);
    result_recv.reserve(nseg_);
    for (std::size_t t = 0; t < nseg_; ++t) {
      send_in_order(partial_send, own, down_, t);
      result_recv.push_back(ctx_.comm().irecv(down_, tag_, out_ + offset(t), bytes(t)));
    }
    ctx_.comm().wait_all(partial_send, ctx_.timeout());
    ctx_.comm().wait_all(result_recv, ctx_.timeout());
  }

  /// The reducing end: each segment is complete once the partial from `up` (received into
  /// `scratch` by partial_recv, an empty request where it is there already) is added to the own
  /// one in recvbuf; it goes straight back up.
  void reducing_end(const std::byte* scratch, const ReduceOp& op, DataType type) {
    result_send.reserve(nseg_);
    for (std::size_t t = 0; t < nseg_; ++t) {
      partial_recv[t].wait(ctx_.timeout());
      reduce_local(op, type, scratch + offset(t), out_ + offset(t), length(t));
      ctx_.runtime().charge(static_cast<double>(length(t)));
      send_in_order(result_send, out_, up_, t);
    }
    ctx_.comm().wait_all(result_send, ctx_.timeout());
  }

 private:
  const Context& ctx_;
  int tag_;
  std::byte* out_;
  std::size_t count_;
  std::size_t esize_;
  std::size_t per_;
  std::size_t nseg_;
  int down_;
  int up_;
};

}  // namespace ragged::internal
