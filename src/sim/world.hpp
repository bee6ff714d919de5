// Internal state of one sim::run: the ranks, their message queues, windows and
// the actors that block. All actors share this address space and SimGrid runs
// them one at a time, so plain C++ data structures need no locks; they only
// must be consistent before every simcall (a simcall lets other actors run).
#pragma once

#include <simgrid/forward.h>  // simgrid::kernel::timer::Timer

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <simgrid/s4u.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ragged/comm.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"

namespace ragged::sim::detail {

namespace sg4 = simgrid::s4u;

class World;

/// Thrown into the actors of a run that is being abandoned (a rank failed or the run deadlocked).
class Aborted : public Error {
 public:
  explicit Aborted(const std::string& why) : Error("sim::run aborted: " + why) {}
};

/// What a blocked actor waits for; turned into text only for a deadlock report.
struct WaitInfo {
  const char* op = "";
  const struct Message* message = nullptr;
  std::size_t count = 0;
  int first = 0;
};

/// One actor of the run (a rank's main actor, a daemon, a transfer).
struct ActorCtl {
  aid_t pid = -1;  ///< SimGrid's pid: how queues name the actor (its ActorCtl lives on its stack)
  int rank = -1;
  std::string role;  ///< "main", the daemon's name, or "transfer"
  sg4::SemaphorePtr sem = sg4::Semaphore::create(0);
  bool parked = false;
  bool untimed = false;
  WaitInfo info;
};

/// Actors blocked until something happens, by pid: waking one is a simcall during which other
/// actors may run and exit, so a list of pointers could dangle before it is walked.
class WaitQueue {
 public:
  void add(const ActorCtl* a) { waiters_.push_back(a->pid); }
  void remove(const ActorCtl* a) {
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if (*it == a->pid) {
        waiters_.erase(it);
        return;
      }
    }
  }
  /// Empties the queue and returns who was in it.
  std::vector<aid_t> take() { return std::exchange(waiters_, {}); }

 private:
  std::vector<aid_t> waiters_;
};

/// A posted send or receive.
struct Message {
  enum class Kind { send, recv };
  Kind kind = Kind::send;
  int owner = -1;  ///< the rank that posted it
  int peer = -1;   ///< destination of a send; source (or any_source) of a receive
  int tag = 0;
  const void* send_data = nullptr;
  void* recv_data = nullptr;
  std::size_t bytes = 0;  ///< size of a send, capacity of a receive
  bool matched = false;
  bool complete = false;
  bool truncated = false;
  std::size_t sent_bytes = 0;  ///< for a truncated receive: what the sender sent
  double start_at = 0;         ///< a send's slot (absolute clock) under the sender's message gap
  Status status;
  WaitQueue waiters;
  // Eager sends (Protocol::eager_limit): the bytes travel from the post on, into a copy.
  bool eager = false;
  bool arrived = false;                  ///< an eager send's bytes are at the receiver
  std::vector<std::byte> eager_copy;     ///< what an eager send sent (its buffer is the caller's again)
  std::shared_ptr<Message> eager_match;  ///< the receive an eager send matched before its bytes arrived
};
using MessagePtr = std::shared_ptr<Message>;

/// One rank's part of a window created collectively.
struct WindowPart {
  std::vector<std::byte> memory;
  std::vector<std::uint64_t> notifications;
  WaitQueue notification_waiters;
  std::size_t outstanding_puts = 0;  ///< puts this rank issued that have not landed yet
  WaitQueue flush_waiters;
  bool created = false;
};

struct WindowGroup {
  explicit WindowGroup(int procs) : parts(static_cast<std::size_t>(procs)) {}
  std::vector<WindowPart> parts;
  int joined = 0;
};

class SimComm;

/// What one transfer moves and when (World::transfer).
struct TransferJob {
  std::size_t bytes = 0;
  double start_at = 0;  ///< absolute clock at which the transfer may start (the sender's gap)
  std::function<void()> started;
  std::function<void()> arrived;
  std::function<void()> done;
};

/// A transfer in flight, with no actor of its own: a SimGrid kernel timer starts it at its slot,
/// an actor-free SimGrid comm between the two hosts (Comm::sendto_init) carries its bytes, the
/// comm's completion (Activity::on_completion) or a timer that the gaps set finishes it. Its
/// memory is this struct, whatever the bytes: no stack, no memory mapping.
struct Transfer {
  World* world = nullptr;
  sg4::Host* from = nullptr;
  sg4::Host* to = nullptr;
  int sender = -1;                           ///< the rank the bytes are from
  int receiver = -1;                         ///< the rank the bytes are for
  TransferJob job;                           ///< with Protocol::pair_fifo the jobs of its pair that wait are in World
  sg4::CommPtr comm;                         ///< while the bytes are on the wire
  void (World::*step)(Transfer*) = nullptr;  ///< what it does when due
  double on_wire = 0;
  bool rendezvous = false;
};

/// The MPI library's protocol costs a platform may declare (zone properties, docs/backends/sim.md,
/// "Protocol"): what a real MPI over TCP adds to the links' latency and bandwidth.
/// (LogGP's per-message gap, ragged/message_gap, is the World's message_gap.)
struct Protocol {
  /// Sends below this many bytes are eager: their transfer starts when posted, whether or not
  /// the receive is (ragged/eager_limit). 0: every transfer starts at its match, as before.
  std::size_t eager_limit = 0;
  /// With an eager limit, a transfer of at least eager_limit bytes starts this long after its
  /// match: the rendezvous handshake, rendezvous_round_trips round trips of the route plus
  /// rendezvous_delay (ragged/rendezvous_round_trips, ragged/rendezvous_delay).
  double rendezvous_round_trips = 0;
  double rendezvous_delay = 0;
  /// The first transfer between two ranks of a run starts connect_round_trips round trips of
  /// the route plus connect_delay later: the connection's set-up (ragged/connect_round_trips,
  /// ragged/connect_delay).
  double connect_round_trips = 0;
  double connect_delay = 0;
  /// The transfers from one rank to another move one after the other, in the order they start,
  /// as on one TCP connection; and an eager send is complete once its transfer starts (its
  /// bytes are on the connection), not when they arrive (ragged/pair_fifo).
  bool pair_fifo = false;
  /// While both directions of a pair carry rendezvous transfers (at least eager_limit bytes),
  /// each moves at this fraction of its rate: the time they overlap costs 1 / exchange_factor
  /// as long (ragged/exchange_factor, measured by ragged-bench calibrate; 1: no such cost).
  double exchange_factor = 1;
};

/// How a wait reacts when the run is being abandoned.
enum class AbortMode { throw_aborted, keep_waiting };

class World {
 public:
  /// `message_gap`: LogGP's per-message gap g in seconds (0: none), see transfer().
  World(int procs, std::vector<sg4::Host*> rank_hosts, double start_clock, double message_gap = 0,
        Protocol protocol = {});
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  [[nodiscard]] int procs() const { return procs_; }
  [[nodiscard]] sg4::Host* host_of(int rank) const { return rank_hosts_[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] double start_clock() const { return start_clock_; }
  [[nodiscard]] double message_gap() const { return gap_; }
  SimComm& comm(int rank) { return *comms_[static_cast<std::size_t>(rank)]; }
  /// Which ranks share a node and what the platform says of its links (docs/backends/sim.md,
  /// "Layout"): set once by sim::run before any rank starts, the same for every rank.
  void set_topology(std::shared_ptr<const NodeLayout> layout, std::shared_ptr<const NetworkModel> network) {
    layout_ = std::move(layout);
    network_ = std::move(network);
  }
  [[nodiscard]] const std::shared_ptr<const NodeLayout>& layout() const { return layout_; }
  [[nodiscard]] const std::shared_ptr<const NetworkModel>& network() const { return network_; }

  // ---------------------------------------------------------------- actors
  /// Creates an actor on `host` that runs `fn` with its own ActorCtl; counts it as live at once.
  void spawn(const std::string& name, sg4::Host* host, int rank, std::string role, std::function<void(ActorCtl&)> fn);
  /// The calling actor.
  ActorCtl& self();
  /// The calling actor, or null when called from outside the run's actors.
  ActorCtl* self_or_null();

  // ---------------------------------------------------------------- blocking
  /// Blocks the caller until `ready()` holds, registered on `queues` while parked.
  /// deadline < 0: no deadline. Returns false when the deadline passed first.
  bool wait_until(std::initializer_list<WaitQueue*> queues, double deadline, const std::function<bool()>& ready,
                  WaitInfo info, AbortMode mode = AbortMode::throw_aborted);
  bool wait_until(const std::vector<WaitQueue*>& queues, double deadline, const std::function<bool()>& ready,
                  WaitInfo info, AbortMode mode = AbortMode::throw_aborted);
  void wake(ActorCtl* actor);
  /// Wakes the actor `pid` if it still exists.
  void wake(aid_t pid);
  void wake_all(WaitQueue& queue);
  /// Absolute deadline for a relative Timeout (-1 for none).
  [[nodiscard]] static double deadline_for(Timeout timeout);

  // ---------------------------------------------------------------- failure
  [[nodiscard]] bool aborting() const { return aborting_; }
  void throw_if_aborting() const;
  /// Records a failure (the first one is rethrown by run()) and abandons the run.
  void fail(const std::exception_ptr& error);
  [[nodiscard]] std::exception_ptr first_error() const { return first_error_; }
  /// SimGrid detected a deadlock that the bookkeeping did not see and is killing every actor.
  void on_simgrid_deadlock();
  [[nodiscard]] bool killing() const { return killing_; }

  // ---------------------------------------------------------------- transfers
  /// Simulates moving `bytes` from rank `sender`'s host to rank `receiver`'s and then calls
  /// `done` (in SimGrid's kernel, or right away when the platform has no route from a host
  /// to itself). LogGP's message gap g > 0 (docs/backends/sim.md): the transfer starts no
  /// earlier than `start_at`, the slot book_send() gave the message when it was posted (so a
  /// rank's messages start at least g apart, in the order it posted them), and the transfers
  /// a rank receives are done at least g apart, in the order they arrive: transfer k is done
  /// at max(its arrival, transfer k-1 done + g). When that holds `done` back, `arrived` (if
  /// any) is called at the arrival. Copies that need no route wait for neither.
  /// With Protocol::pair_fifo a transfer waits for the one before it from `sender` to
  /// `receiver`; `started` (if any) is called when it starts.
  void transfer(int sender, int receiver, std::size_t bytes, double start_at, std::function<void()> done,
                std::function<void()> arrived = {}, std::function<void()> started = {});
  /// Books rank `sender`'s next send slot, max(now, previous slot + g), as an absolute clock
  /// for transfer(); 0 without a gap.
  double book_send(int sender) { return gap_ > 0 ? book(next_send_, sender) : 0.0; }

  // ---------------------------------------------------------------- matching
  /// Posts a send or receive (already validated) and matches it if it can.
  void post(const MessagePtr& message);
  /// Removes an unmatched message from its queue.
  void cancel(const MessagePtr& message);

  // ---------------------------------------------------------------- windows
  std::shared_ptr<WindowGroup> join_window_group(int rank);

 private:
  void match(const MessagePtr& send, const MessagePtr& recv);
  /// Starts an eager send's transfer at its post (Protocol::eager_limit).
  void start_eager(const MessagePtr& send);
  /// The clock a transfer between `a` and `b` may start, no earlier than `start_at`: later by
  /// the connect delay for the pair's first transfer.
  double connected(int a, int b, double start_at);
  /// Twice the latency of the route between the hosts of ranks `a` and `b` (cached).
  double round_trip(int a, int b);
  void park(ActorCtl& me, double deadline, AbortMode mode);
  void actor_exit(ActorCtl& me);
  void detect_deadlock(const ActorCtl* trigger);
  void abort_run(const std::string& why);
  [[nodiscard]] std::string describe(const ActorCtl& actor) const;
  [[nodiscard]] bool route_is_empty(sg4::Host* host);
  /// Starts a transfer no earlier than its job's start_at.
  void launch(Transfer* transfer);
  /// Puts a transfer's bytes on the wire (at its slot).
  void begin(Transfer* transfer);
  /// A transfer's bytes arrived (SimGrid's comm completed): the gaps may hold it back.
  void landed(Transfer* transfer);
  /// After a rendezvous transfer's exchange penalty: the receiver's gap.
  void receive_gap(Transfer* transfer);
  /// Calls a transfer's `done`, and starts the next of its pair or forgets it.
  void finish(Transfer* transfer);
  /// Runs `step(transfer)` at absolute clock `at` (now, in SimGrid's next round, when `at` is
  /// past), after the steps set before it for the same clock; one SimGrid kernel timer serves
  /// them all. A step's exception fails the run.
  void at_clock(double at, Transfer* transfer, void (World::*step)(Transfer*));
  /// The timer's callback: runs every step due by its `date`, in the order they were set.
  void run_due(double date);
  /// With pair_fifo, loads the next transfer waiting between the two ranks into `transfer`
  /// (true), or marks the pair idle (false).
  bool next_of_pair(Transfer& transfer);

 public:
  /// SimGrid's completion of a transfer's comm (called for every activity, in SimGrid's kernel).
  static void on_activity_done(const sg4::Activity& activity);

 private:
  /// Books the next slot of one rank's sends or receives: max(now, next), and moves next
  /// a gap beyond it. Returns the absolute clock of the slot.
  double book(std::vector<double>& next, int rank);

  int procs_;
  std::vector<sg4::Host*> rank_hosts_;
  double start_clock_;
  double gap_;
  Protocol protocol_;
  std::set<std::pair<int, int>> connected_;  // rank pairs (low, high) that have had a transfer
  std::map<std::pair<sg4::Host*, sg4::Host*>, double> round_trips_;
  std::vector<double> next_send_;  // per rank: the earliest clock its next transfer may start
  std::vector<double> next_recv_;  // per rank: the earliest clock its next arrival may be done
  std::vector<std::unique_ptr<SimComm>> comms_;
  std::shared_ptr<const NodeLayout> layout_;
  std::shared_ptr<const NetworkModel> network_;

  std::map<aid_t, ActorCtl*> actors_;  // ordered by pid: creation order, deterministic
  int live_ = 0;
  int parked_untimed_ = 0;
  bool aborting_ = false;
  bool killing_ = false;
  std::string abort_reason_;
  std::exception_ptr first_error_;

  struct RankQueues {
    std::list<MessagePtr> posted_recvs;
    std::list<MessagePtr> unexpected_sends;
  };
  std::vector<RankQueues> queues_;
  std::map<sg4::Host*, bool> empty_self_route_;
  std::map<const Transfer*, std::unique_ptr<Transfer>> transfers_;  // in flight
  std::multimap<double, Transfer*> due_;            // the transfers' next steps, by clock, then in order set
  simgrid::kernel::timer::Timer* timer_ = nullptr;  // SimGrid's timer for the first of due_
  bool running_due_ = false;                        // in run_due(), which sets the timer last
  std::vector<sg4::CommPtr> finished_comms_;        // released at the next step, not inside their completion
  std::set<std::pair<int, int>> busy_pairs_;        // (sender, receiver) with a transfer under way (pair_fifo)
  std::map<std::pair<int, int>, std::list<TransferJob>> pending_;  // the transfers waiting behind it
  /// Protocol::exchange_factor: per (sender, receiver), the recent rendezvous transfers'
  /// [start, end) on the wire, end < 0 while under way.
  std::map<std::pair<int, int>, std::list<std::pair<double, double>>> rendezvous_on_wire_;
  /// The extra time a rendezvous transfer of `sender` to `receiver` that was on the wire from
  /// `start` to now pays for the time the other direction carried one too.
  double exchange_penalty(int sender, int receiver, double start);

  std::vector<std::shared_ptr<WindowGroup>> window_groups_;
  std::vector<std::size_t> windows_created_;
};

/// The World of the run in progress (null outside sim::run).
World* current_world();

/// Tag for the backend's own traffic (above every tag the algorithms may use).
inline constexpr int internal_tag = max_tag + 1;

/// Quantizes a simulated duration to whole nanoseconds (see docs/backends/sim.md, "Determinism").
double quantize(double seconds);

}  // namespace ragged::sim::detail
