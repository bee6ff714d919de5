// SspAllreduce: the stale-synchronous allreduce of Iakymchuk et al. 2021 (algorithm 1), over notified puts.
//
//   rank r, step t of its plan (plans/ssp_plan.hpp), at clock c (this call), slack s:
//
//     send:    the partial reduction of the sent segment, with the minimum clock of what it
//              holds, into the receiver's slot of channel t (a newer one replaces an older);
//     receive: use the freshest slot of channel t whose clock is >= c - s (== c when s = 0);
//              only when there is none, wait for the sender's next write; reduce (or copy).
//
//   window of each rank (C = steps of the plan):   notifications:
//     [ch 0 slot 0][ch 0 slot 1][ch 1 slot 0]...    4t+j     data in my slot j of channel t (value: its clock)
//                                                   4t+2+j   credit: my slot j at the receiver of t is free
//                                                   4C+q     rank q has finished
//
// A slot is written only while its writer holds its credit, and the reader returns the credit
// only when newer data has replaced it or it is too old to ever use (until then the reader reuses
// it, call after call: algorithm 1's rcv_data_vec), so no put ever lands in memory being read. A writer without a free
// slot keeps the data as pending, replaces it with newer data, and writes it when a credit arrives, from any of its
// later calls or waits: it never blocks on a reader, which would cap the slack at the number of slots. Every wait (a
// receive, finish) first takes every notification (drain), so pending data flows while a rank waits for anything; the
// wait-for graph follows (clock, step) downwards and has no cycle.
//
// Cost per call, hypercube (n = count*size bytes, d = log2 P, waiting aside):
// (d + 2 fold steps) alpha + (d + 2) n beta + d n gamma; ring: 2(P-1) alpha + 2(P-1)/P n beta
// + (P-1)/P n gamma. At slack 0 both are the exact allreduce of the calls' contributions.
#include "ragged/ssp.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "plans/ring_plan.hpp"
#include "plans/ssp_plan.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"

namespace ragged {

struct SspAllreduce::Channel {
  plans::ssp::Step step;
  std::uint64_t slot_clock[2] = {0, 0};  ///< clock of the unread data in my slot j (0: none)
  bool credit[2] = {true, true};         ///< may I write my receiver's slot j
  bool pending = false;
  std::uint64_t pending_clock = 0;
  std::vector<std::byte> pending_data;
};

namespace {

plans::ssp::Topology topology_of(SspTopology t) {
  return t == SspTopology::ring ? plans::ssp::Topology::ring : plans::ssp::Topology::hypercube;
}

}  // namespace

SspAllreduce::SspAllreduce(Comm& comm, std::size_t count, DataType type, ReduceOp op, SspOptions options)
    : comm_(comm), count_(count), type_(type), op_(std::move(op)), options_(options) {
  if (options_.slack < 0) throw InvalidArgument("slack", "must be >= 0, got " + std::to_string(options_.slack));
  if (!op_.commutative) {
    throw InvalidArgument("op",
                          "the stale-synchronous allreduce reduces in arrival order: the operator must be "
                          "commutative");
  }
  if (options_.timeout && !(*options_.timeout >= 0)) throw InvalidArgument("timeout", "must be >= 0");
  const int procs = comm_.size();
  const plans::ssp::Topology topology = topology_of(options_.topology);
  steps_ = plans::ssp::steps(topology, procs);
  const int segments = plans::ssp::segments(topology, procs);
  slot_bytes_ = plans::ring::segment_size(count_, segments, 0) * size_of(type_);
  const std::vector<plans::ssp::Step> plan = plans::ssp::plan(topology, procs, comm_.rank());
  channels_.resize(plan.size());
  for (std::size_t t = 0; t < plan.size(); ++t) channels_[t].step = plan[t];
  segment_clock_.assign(static_cast<std::size_t>(segments), 0);
  done_.assign(static_cast<std::size_t>(procs), false);
  // A rank that never comes must give TimeoutError, not a hang in the window's creation.
  barrier(comm_, options_.timeout);
  window_ = comm_.create_window(std::max<std::size_t>(1, 2 * static_cast<std::size_t>(steps_) * slot_bytes_),
                                4 * steps_ + procs);
}

SspAllreduce::~SspAllreduce() {
  if (!finished_ && !failed_) {
    try {
      finish();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor reports nothing; finish() does
    }
  }
}

void SspAllreduce::put_data(int step, int slot, const void* data, std::size_t bytes, std::uint64_t clock) {
  Channel& ch = channels_[static_cast<std::size_t>(step)];
  ch.credit[slot] = false;
  const std::size_t offset = (2 * static_cast<std::size_t>(step) + static_cast<std::size_t>(slot)) * slot_bytes_;
  window_->put_notify(ch.step.send_to, offset, data, bytes, 4 * step + slot, clock);
}

void SspAllreduce::drain() {
  const int procs = comm_.size();
  for (int t = 0; t < steps_; ++t) {
    Channel& ch = channels_[static_cast<std::size_t>(t)];
    for (int j = 0; j < 2; ++j) {
      if (const std::uint64_t v = window_->notify_reset(4 * t + j); v != 0) {
        // A writer writes a slot only with its credit, so the slot was free.
        if (ch.slot_clock[j] != 0) throw Error("ssp: a slot was written before its credit was returned");
        ch.slot_clock[j] = v;
      }
      if (window_->notify_reset(4 * t + 2 + j) != 0) {
        ch.credit[j] = true;
        if (ch.pending) {
          put_data(t, j, ch.pending_data.data(), ch.pending_data.size(), ch.pending_clock);
          ch.pending = false;
        }
      }
    }
  }
  for (int q = 0; q < procs; ++q) {
    if (window_->notify_reset(4 * steps_ + q) != 0) done_[static_cast<std::size_t>(q)] = true;
  }
}

void SspAllreduce::wait(double deadline, const char* what) {
  Timeout left;
  if (options_.timeout) {
    left = deadline - comm_.runtime().now();
    if (*left <= 0) {
      failed_ = true;
      throw TimeoutError(std::string("ssp allreduce: rank ") + std::to_string(comm_.rank()) + " timed out after " +
                         std::to_string(*options_.timeout) + " s waiting for " + what);
    }
  }
  try {
    (void)window_->notify_wait_some(0, 4 * steps_ + comm_.size(), left);
  } catch (const TimeoutError&) {
    failed_ = true;
    throw TimeoutError(std::string("ssp allreduce: rank ") + std::to_string(comm_.rank()) + " timed out after " +
                       std::to_string(*options_.timeout) + " s waiting for " + what);
  }
}

void SspAllreduce::send(int step, const std::byte* data, std::size_t bytes, std::uint64_t clock) {
  drain();
  Channel& ch = channels_[static_cast<std::size_t>(step)];
  for (int j = 0; j < 2; ++j) {
    if (ch.credit[j]) {
      put_data(step, j, data, bytes, clock);
      ch.pending = false;  // superseded
      return;
    }
  }
  ch.pending = true;
  ch.pending_clock = clock;
  ch.pending_data.assign(data, data + bytes);
}

void SspAllreduce::receive(int step, std::byte* work, std::size_t elements, double deadline, SspResult& result) {
  Channel& ch = channels_[static_cast<std::size_t>(step)];
  const std::uint64_t c = clock_;
  const auto slack = static_cast<std::uint64_t>(options_.slack);
  const std::uint64_t oldest = c > slack ? c - slack : 0;  // min_clock_accepted
  const auto release = [&](int j) {
    ch.slot_clock[j] = 0;
    window_->put_notify(ch.step.recv_from, 0, nullptr, 0, 4 * step + 2 + j, 1);
  };
  for (;;) {
    drain();
    // Data older than clock - slack is of no use now or later: free its slot for newer data.
    for (int j = 0; j < 2; ++j) {
      if (ch.slot_clock[j] != 0 && ch.slot_clock[j] < oldest) release(j);
    }
    // The freshest usable slot; at slack 0 only this clock's data (a newer one stays for the
    // next call), so slack 0 is the exact allreduce.
    int best = -1;
    for (int j = 0; j < 2; ++j) {
      const std::uint64_t v = ch.slot_clock[j];
      if (v == 0 || (slack == 0 && v != c)) continue;
      if (best < 0 || v > ch.slot_clock[best]) best = j;
    }
    if (best >= 0) {
      const std::uint64_t v = ch.slot_clock[best];
      const std::size_t offset = (2 * static_cast<std::size_t>(step) + static_cast<std::size_t>(best)) * slot_bytes_;
      const std::byte* data = window_->local().data() + offset;
      const std::size_t segment = static_cast<std::size_t>(ch.step.recv_segment);
      if (ch.step.apply == plans::ssp::Apply::reduce) {
        reduce_local(op_, type_, data, work, elements);
        comm_.runtime().charge(static_cast<double>(elements));
        segment_clock_[segment] = std::min(segment_clock_[segment], v);
      } else {
        if (elements != 0) std::memcpy(work, data, elements * size_of(type_));
        segment_clock_[segment] = v;
      }
      // The slot keeps the data for later calls (the paper's rcv_data_vec: reused while it is
      // fresh enough); it is released when newer data replaces it or it gets too old. The writer
      // meanwhile writes into the other slot.
      // A slot no newer than the one just used is superseded by it (equal clocks too: a partial
      // reduction's clock can stay the same for several calls, and holding both slots would
      // leave the writer without a credit for good).
      const int other = 1 - best;
      if (ch.slot_clock[other] != 0 && ch.slot_clock[other] <= v) release(other);
      return;
    }
    const double start = comm_.runtime().now();
    wait(deadline, ("rank " + std::to_string(ch.step.recv_from) + "'s data of step " + std::to_string(step) +
                    " at clock >= " + std::to_string(oldest))
                       .c_str());
    result.wait_s += comm_.runtime().now() - start;
  }
}

SspResult SspAllreduce::operator()(const void* contribution, void* result_buffer) {
  if (finished_) throw InvalidArgument("this", "the ssp allreduce was finished");
  if (failed_) throw InvalidArgument("this", "an earlier call of this ssp allreduce failed");
  const std::size_t esize = size_of(type_);
  if (count_ != 0 && contribution == nullptr) throw InvalidArgument("contribution", "null buffer");
  if (count_ != 0 && result_buffer == nullptr) throw InvalidArgument("result", "null buffer");
  const double deadline = comm_.runtime().now() + options_.timeout.value_or(0);
  ++clock_;
  SspResult result;
  result.clock = clock_;
  auto* work = static_cast<std::byte*>(result_buffer);
  if (count_ != 0 && work != contribution) std::memmove(work, contribution, count_ * esize);
  std::fill(segment_clock_.begin(), segment_clock_.end(), clock_);
  const int segments = static_cast<int>(segment_clock_.size());
  const auto seg_ptr = [&](int s) { return work + plans::ring::segment_offset(count_, segments, s) * esize; };
  const auto seg_size = [&](int s) { return plans::ring::segment_size(count_, segments, s); };
  try {
    for (int t = 0; t < steps_; ++t) {
      const plans::ssp::Step& step = channels_[static_cast<std::size_t>(t)].step;
      if (step.send_to >= 0) {
        send(t, seg_ptr(step.send_segment), seg_size(step.send_segment) * esize,
             segment_clock_[static_cast<std::size_t>(step.send_segment)]);
      }
      if (step.recv_from >= 0) receive(t, seg_ptr(step.recv_segment), seg_size(step.recv_segment), deadline, result);
    }
  } catch (...) {
    failed_ = true;
    throw;
  }
  result.min_clock = *std::min_element(segment_clock_.begin(), segment_clock_.end());
  return result;
}

void SspAllreduce::finish() {
  if (finished_) return;
  if (failed_) throw InvalidArgument("this", "an earlier call of this ssp allreduce failed");
  const double deadline = comm_.runtime().now() + options_.timeout.value_or(0);
  const int procs = comm_.size();
  const int me = comm_.rank();
  done_[static_cast<std::size_t>(me)] = true;
  for (int q = 0; q < procs; ++q) {
    if (q != me) window_->put_notify(q, 0, nullptr, 0, 4 * steps_ + me, 1);
  }
  // Until every rank has finished, some may still be in their last call and need this rank's
  // pending data: keep draining (which writes pending data as credits come back).
  for (;;) {
    drain();
    if (std::all_of(done_.begin(), done_.end(), [](bool d) { return d; })) break;
    int missing = 0;
    while (done_[static_cast<std::size_t>(missing)]) ++missing;
    wait(deadline, ("rank " + std::to_string(missing) + " to finish").c_str());
  }
  window_->flush();
  finished_ = true;
  window_.reset();
}

}  // namespace ragged
