// Internals of the arrival runtime shared by the agent (monitor_agent.cpp) and the
// arrival-aware algorithms: which background part a plan asks for, the slot
// through which the agent hands its background results to the foreground, and
// the background parts themselves (defined beside their algorithms).
//
// The handshake for one epoch on one process:
//
//   agent                                  foreground (the collective call)
//   snapshot complete, plan agreed
//   slot.begin()   idle -> running         slot.claim(call)
//   ... background receives ...              idle    -> skipped: do everything
//   slot.finish()  running -> done           running -> wait until done
//                                            done    -> use the results
//
// A call that differs from the plan all ranks agreed on cancels a running
// background (cancel flag + a doorbell message that wakes the agent) and uses
// the "unplanned" tags, so that stale background receives can never match it.
// Every rank makes the same call, so every rank gives the plan up; what the agents
// already exchanged for it is dropped (a message that no agent took stays queued
// on the epoch's planned tag, as after any cancel). Under the PMPI library the plan
// is the site's previous call, so `auto` choosing another algorithm, or a rooted
// call's root moving, is this path, never an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ragged/arrival.hpp"
#include "ragged/comm.hpp"

namespace ragged::internal {

/// Which background part a plan asks for.
enum class BackgroundKind : std::uint32_t {
  none = 0,
  bdr = 1,
  bsls = 2,
  bgd = 3,
  slt = 4,
  prr = 5,
  bslb = 6,
  sorted_chain = 7
};

/// A plan as the ranks agree on it: the kind of background part, the block size, the root.
struct PlanKey {
  BackgroundKind kind = BackgroundKind::none;
  std::uint64_t block_bytes = 0;
  std::int32_t root = 0;
  bool operator==(const PlanKey&) const = default;
  /// A plan whose background part can run (a kind and a known, non-zero size).
  [[nodiscard]] bool runnable() const { return kind != BackgroundKind::none && block_bytes != 0; }
};

/// The plan of a call: the background part its algorithm's entry in the list names (kind none for
/// an algorithm without one), the block size, and the root for a part that only the root runs.
PlanKey plan_key(Collective collective, std::string_view algorithm, std::size_t block_bytes, int root);
inline PlanKey plan_key(const PlannedCall& call) {
  return plan_key(call.collective, call.algorithm, call.count * size_of(call.type), call.root);
}

/// What a step schedule (BDR, BGD) plans with, from `snapshot` (null: equal arrivals, tau 0):
/// the arrivals, each raised to known_at() (nobody can act on the estimates before the snapshot
/// is complete, so without estimates all arrivals are equal), and tau of one block (0 for an
/// unknown link model). Throws InvalidArgument("options.arrival") for a snapshot of another size.
struct StepPlanInput {
  std::vector<double> arrivals;
  double tau = 0;
};
StepPlanInput step_plan_input(const ArrivalSnapshot* snapshot, int procs, std::size_t block_bytes);

/// Proficz 2021, §2: omega < tau, arrivals before `known_at` counted as `known_at`; false for an
/// unknown link model (ArrivalSnapshot::balanced).
bool balanced_pattern(std::span<const double> arrivals, double known_at, const LinkModel& link,
                      std::size_t block_bytes);

class BackgroundSlot;
class BackgroundContext;

/// An algorithm's background part, as its entry in the list (list.def) names it: what the
/// arrival agent runs ahead of the call once every rank announced the same plan. The monitor
/// sees algorithms only through this.
struct Background {
  /// The id every rank's record carries for this part (two algorithms that share a part share it
  /// and its results).
  BackgroundKind kind;
  /// Runs on the agent: receives (and for BGD forwards) ahead of the foreground.
  void (*run)(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context);
  /// The root the part runs for, whatever the call's root (bslb gathers to 0); -1: the call's root.
  int fixed_root;
  /// Only the root takes part (a sorted gather); otherwise every rank does.
  bool root_only;
  /// Skipped on a balanced pattern (omega < tau), where the algorithm runs its regular fallback.
  bool skip_when_balanced;
  /// The plan names the call's root though every rank takes part (bcast sorted_chain: its chain
  /// starts at the root); a root_only part's plan names it anyway.
  bool keyed_by_root = false;
};

extern const Background bdr_background_part;           ///< allgather bdr
extern const Background bgd_background_part;           ///< allgather bgd
extern const Background bsls_background_part;          ///< gather bsls
extern const Background bslb_background_part;          ///< allgather bslb: gather to 0, streamed down a chain
extern const Background slt_background_part;           ///< allreduce slt
extern const Background prr_background_part;           ///< allreduce prr
extern const Background sorted_chain_background_part;  ///< bcast sorted_chain

/// The background part of that kind, from the algorithm list (null for none).
const Background* background_of(BackgroundKind kind);

/// Thrown inside a background part when the foreground cancelled it.
struct BackgroundCancelled {};

/// What a background part may do besides communicating: wait for a request while the agent
/// keeps serving its own messages; throws BackgroundCancelled when the foreground cancelled.
class BackgroundContext {
 public:
  virtual ~BackgroundContext() = default;
  virtual void wait(Request& request) = 0;
};

class BackgroundSlot {
 public:
  BackgroundSlot(Runtime& runtime, PlanKey agreed);
  BackgroundSlot(const BackgroundSlot&) = delete;
  BackgroundSlot& operator=(const BackgroundSlot&) = delete;

  /// The plan every rank's record named (kind none when they differed or named none).
  [[nodiscard]] const PlanKey& agreed() const { return agreed_; }
  /// Whether `call` is the agreed plan (its messages then use the planned tags).
  [[nodiscard]] bool planned(const PlanKey& call) const { return agreed_ == call; }

  // ---- agent side
  /// idle -> running; false when the foreground took over (or abandoned the slot) first.
  bool begin();
  /// running -> done (or cancelled); wakes the foreground.
  void finish(bool cancelled, std::exception_ptr error);
  /// Whether the foreground asked the running background to stop.
  [[nodiscard]] bool cancel_requested();

  // ---- foreground side
  /// Claims the background results for `call`: null when the foreground must do all the work
  /// (no background ran, or `call` is not the agreed plan: a running background is cancelled),
  /// otherwise waits for the background and returns this slot. Reports the call (learned plans).
  BackgroundSlot* claim(const PlanKey& call);
  /// Gives up an unclaimed slot: cancels a running background, skips an idle one.
  void abandon();

  // ---- set up by the monitor
  std::function<void()> doorbell;              ///< wakes the agent (a message to itself)
  std::function<void(const PlanKey&)> on_use;  ///< the call this epoch made (learned plans)

  // ---- results, written by the agent before finish() and read by the foreground after claim()
  /// BDR: segments[r] holds segment r when it arrived in the background. BSLS: segments[r] holds
  /// rank r's block, received by the root.
  std::vector<std::vector<std::byte>> segments;
  std::vector<char> received;
  /// Sets up `count` empty segments, none received (how a background part starts).
  void expect_segments(int count) {
    segments.assign(static_cast<std::size_t>(count), {});
    received.assign(static_cast<std::size_t>(count), 0);
  }
  /// BDR: index in this rank's program where the foreground continues.
  std::size_t next_step = 0;

 private:
  enum class State { idle, running, done, cancelled, skipped };
  void cancel_running(std::unique_lock<Mutex>& lock);

  [[maybe_unused]] Runtime& runtime_;  // nothing reads it yet (clang: -Wunused-private-field)
  PlanKey agreed_;
  std::unique_ptr<Mutex> mutex_;
  std::unique_ptr<ConditionVariable> changed_;
  State state_ = State::idle;
  bool cancel_ = false;
  std::exception_ptr error_;
};

/// The slot of the call's arrival snapshot, ctx.arrival() (null without a snapshot or without an agent).
BackgroundSlot* slot_of(const Context& ctx);

/// `planned_tag` when `call` is the plan the ranks agreed on, or when they agreed on none;
/// `unplanned_tag` when they agreed on another plan (whose background may be listening).
int arrival_tag(const Context& ctx, const PlanKey& call, int planned_tag, int unplanned_tag);

// ---- background parts, defined beside their algorithms

/// BDR (allgather_bdr.cpp): receives every step of this rank's program before its first send.
void bdr_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context);
/// BGD (allgather_bgd.cpp): every step of this rank's program before its first send of its own
/// segment (receives and forwards).
void bgd_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context);
/// BSLS (gather_bsls.cpp): the root's loop over the other ranks in estimated arrival order.
void bsls_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context);
/// BSLB (allgather_bslb.cpp): at rank 0 the sorted gather, each block streamed down the chain
/// 0 -> 1 -> ... -> P-1 as it comes in; elsewhere the chain's receives and forwards
/// (slot.segments[r]: rank r's block).
void bslb_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context);
/// SLT (allreduce_slt.cpp): the warm-up with the chain neighbours, then the partial segments
/// that reach this rank before its estimated arrival (slot.segments[t], slot.next_step of them).
void slt_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context);
/// PRR (allreduce_prr.cpp): the warm-up with the ring neighbours, then every step of this rank's
/// program before its first send (partials only: slot.segments[s], slot.next_step).
void prr_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context);

/// bcast sorted_chain (bcast_sorted_chain.cpp): the segments that reach this rank before its
/// estimated arrival, received from its chain predecessor and forwarded to its successor
/// (slot.segments[t], slot.next_step of them).
void sorted_chain_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot,
                             BackgroundContext& context);

/// The tag of the planned messages of an arrival-aware algorithm whose agents exchange messages
/// (BGD, SLT, PRR): tag_bgd_first + (epoch mod tag_bgd_epochs). Every epoch has one agreed plan,
/// so two algorithms never use it in the same epoch, and a cancelled background's stale messages
/// cannot match a later epoch's for tag_bgd_epochs epochs. Epoch 0 without a snapshot.
int planned_epoch_tag(const ArrivalSnapshot* snapshot);

/// The warm-up of Proficz 2018, §3 (the agent's "series of messages in the foreseen directions of
/// communication"): one empty message to each of `to`, one from each of `from`, on `tag`. Part of
/// the planned program, so run by the agent when the background runs and by the foreground
/// otherwise (no rank waits for a warm-up nobody sends). `wait` waits for one request.
template <class Wait>
void warm_up(Comm& comm, std::span<const int> to, std::span<const int> from, int tag, Wait&& wait) {
  std::vector<Request> receives;
  std::vector<Request> sends;
  for (int r : from) receives.push_back(comm.irecv(r, tag, nullptr, 0));
  for (int r : to) sends.push_back(comm.isend(r, tag, nullptr, 0));
  for (Request& s : sends) wait(s);
  for (Request& r : receives) wait(r);
}

/// The sorted linear synchronized gather done in the foreground (gather_sls.cpp), shared by
/// SLS and by BSLS when no background ran. Tags: signal_tag, data_tag. The root's own block is
/// already in recvbuf (dispatch copied it).
void sorted_gather_foreground(const Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                              int root, int signal_tag, int data_tag);

/// SBN's tree for this call (gather_sbn.cpp, scatter_sbn.cpp): gives up a background part prepared
/// for another call (SBN has none), then position -> rank from the snapshot's estimates
/// (plans::sorted::sbn_gather_tree or sbn_scatter_tree). A snapshot of another size throws on every
/// rank alike.
std::vector<int> sbn_tree(const Context& ctx, Collective collective, std::size_t block, int root);

/// Bytes of the short first segment of BSLS/SLS: min(1 KiB, block).
inline std::size_t sorted_gather_short_bytes(std::size_t block) { return block < 1024 ? block : 1024; }

}  // namespace ragged::internal
