// allgather "push": arrival-reactive. Each rank pushes its block the moment it arrives, to the
// ranks that still compute directly and to the ranks that already wait through themselves; it
// needs no prediction of the arrivals (ragged, beyond Proficz 2021; docs/algorithms/allgather-push.md).
//
//   time ->         rank 2 and 0 early, 3 later, 1 last (P = 4, block in units a b c)
//
//   2 arrives       2 --abc--> 0, 1, 3                (nobody waits yet: all direct)
//   0 arrives       0 --abc--> 1, 3; 0 --abc--> 2     (only 2 waits: direct too)
//   3 arrives       3 --a--> 0 --a--> 2               (0 and 2 wait: scatter, they forward)
//                   3 --b--> 2 --b--> 0,  3 --c--> 0 --c--> 2,  and 3 --abc--> 1
//   1 arrives       1's blocks of 0, 2, 3 are already here (sent while it computed);
//                   1 scatters its own to 0, 2, 3, which forward inside {0, 2, 3}
//
// Units are messages of at most 32 KiB (plans/push_plan.hpp), below Open MPI's TCP eager limit:
// the MPI library of a rank that still computes (its arrival agent polls it) or its kernel
// takes them in before the rank arrives. A rank learns who waits from the units it finds at
// its arrival, so nothing is exchanged but the data.
//
// Reference: ragged's own design, docs/algorithms/allgather-push.md.
// Limitation: a rank can be at most one call ahead of another on a communicator; it relies on the MPI library (or the
//   arrival agent) taking eager units of at most 32 KiB in while a rank computes; arriving together it is the linear
//   allgather, (P-1) u latencies.
//
// Cost, all arriving together (nobody waits): (P-1) u alpha + (P-1)/P n beta for n = P*block
// bytes gathered and u = units per block, the linear allgather. The last rank, arriving when
// every other rank waits: its own units go out once (block/B), each waiting rank forwards its
// share to the P-2 others (about (P-2)/(P-1) block/B), and everything sent to it earlier is
// already here: about 2 block beta + (u + P) alpha after the last arrival, against the
// (P-1)/P n beta = (P-1) block beta any regular allgather needs after it.
//
// Messages: tag 16 + (call mod 2) of the call's tag block; a rank can be at most one call of
// this algorithm ahead of another on a communicator (it needs everybody's block to finish), so
// two tags keep consecutive calls apart. Every rank receives exactly (P-1) * units messages
// (any source, a header names the origin and unit).
// Memory: from the workspace, one buffer of (P-1) * units messages (the receives, posted all at
// arrival) and 2 * units messages (own units).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "plans/push_plan.hpp"

namespace ragged {
namespace {

namespace push = plans::push;

struct Header {
  std::uint32_t origin = 0;
  std::uint32_t unit = 0;
  std::uint64_t forward = 0;
  std::uint64_t call = 0;
  std::uint64_t bytes = 0;
};
static_assert(sizeof(Header) == push::header_bytes);

[[noreturn]] void corrupt(const std::string& what) {
  throw TransportError(0, "unexpected message", "allgather push: " + what);
}

/// A forward set names only other ranks of the communicator, and only its origin sets one.
bool forwardable(const Header& h, int me, int procs, int source) {
  if (h.forward == 0) return true;
  const std::uint64_t outside = procs >= 64 ? 0 : ~std::uint64_t{0} << procs;
  const std::uint64_t self = (std::uint64_t{1} << me) | (std::uint64_t{1} << h.origin);
  return source == static_cast<int>(h.origin) && (h.forward & (outside | self)) == 0;
}

}  // namespace

void allgather_push(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t block = count * size_of(type);
  if (procs == 1 || block == 0) return;
  const std::uint64_t call = internal::call_number(ctx);
  const int tag = ctx.tag(16 + static_cast<int>(call % 2));
  const std::size_t unit = push::unit_bytes(block, procs);
  const int units = push::units(block, unit);
  const std::size_t slot = push::header_bytes + unit;
  const std::size_t expected = static_cast<std::size_t>(procs - 1) * static_cast<std::size_t>(units);
  std::byte* out = internal::bytes(recvbuf);  // dispatch copied this rank's block into place

  // Every receive of the call, posted at once: what was sent while this rank computed matches
  // at once (MPI matches a posted receive against the messages already there). Requests
  // [0, expected) are the receives, [expected, expected + window) the sends in flight.
  const std::size_t window = std::clamp<std::size_t>(2 * static_cast<std::size_t>(procs - 1), 8, 64);
  std::span<std::byte> inbox = ctx.workspace().get(expected * slot, 0);
  std::vector<Request> requests(expected + window);
  for (std::size_t i = 0; i < expected; ++i) requests[i] = comm.irecv(any_source, tag, inbox.data() + i * slot, slot);

  // Sends wait in two queues: the urgent ones (the scatter to waiting ranks, forwards) go first;
  // direct units to ranks that still compute take at most half of the window.
  struct Outgoing {
    int dest;
    const std::byte* message;
    std::size_t bytes;
  };
  std::deque<Outgoing> urgent;
  std::deque<Outgoing> direct;
  std::vector<std::size_t> free_slots;
  for (std::size_t k = window; k > 0; --k) free_slots.push_back(expected + k - 1);
  std::vector<char> slot_direct(window, 0);
  std::size_t direct_in_flight = 0;
  const auto issue = [&] {
    while (!free_slots.empty()) {
      const bool take_direct = urgent.empty();
      if (take_direct && (direct.empty() || direct_in_flight >= window / 2)) return;
      std::deque<Outgoing>& queue = take_direct ? direct : urgent;
      const Outgoing o = queue.front();
      queue.pop_front();
      const std::size_t k = free_slots.back();
      free_slots.pop_back();
      requests[k] = comm.isend(o.dest, tag, o.message, o.bytes);
      slot_direct[k - expected] = take_direct ? 1 : 0;
      direct_in_flight += take_direct ? 1 : 0;
    }
  };

  std::size_t received = 0;
  std::vector<char> arrived(static_cast<std::size_t>(procs), 0);
  // One received message: its payload into place, and on to the ranks its forward set names.
  const auto take = [&](std::size_t i) {
    const Status status = requests[i].status();
    requests[i] = Request();
    std::byte* message = inbox.data() + i * slot;
    Header h;
    if (status.bytes < sizeof h) corrupt("a message of " + std::to_string(status.bytes) + " bytes");
    std::memcpy(&h, message, sizeof h);
    if (h.origin >= static_cast<std::uint32_t>(procs) || static_cast<int>(h.origin) == me ||
        h.unit >= static_cast<std::uint32_t>(units) || h.call != call || !forwardable(h, me, procs, status.source) ||
        h.bytes != push::payload(block, unit, static_cast<int>(h.unit)) || status.bytes != sizeof h + h.bytes) {
      corrupt("from rank " + std::to_string(status.source) + ": origin " + std::to_string(h.origin) + ", unit " +
              std::to_string(h.unit) + ", call " + std::to_string(h.call) + " (this call is " + std::to_string(call) +
              "), " + std::to_string(status.bytes) + " bytes");
    }
    std::memcpy(out + h.origin * block + h.unit * unit, message + sizeof h, h.bytes);
    if (status.source == static_cast<int>(h.origin)) arrived[h.origin] = 1;
    if (h.forward != 0) {
      const std::uint64_t forward = h.forward;
      h.forward = 0;
      std::memcpy(message, &h, sizeof h);
      for (int r = 0; r < procs; ++r) {
        if ((forward >> r & 1u) != 0) urgent.push_back(Outgoing{r, message, status.bytes});
      }
    }
    ++received;
  };

  // Who waits already: the ranks whose units are here now.
  for (std::size_t i = 0; i < expected; ++i) {
    if (requests[i].test()) take(i);
  }
  const auto waiting = std::make_unique<bool[]>(static_cast<std::size_t>(procs));
  for (int r = 0; r < procs; ++r) waiting[static_cast<std::size_t>(r)] = arrived[static_cast<std::size_t>(r)] != 0;
  const std::vector<push::Send> plan = push::sends(me, procs, units, {waiting.get(), static_cast<std::size_t>(procs)});

  // Own units: one message per unit for the direct sends (the same bytes to everybody), and one
  // per scatter send (each with its own forward set).
  std::size_t scattered = 0;
  for (const push::Send& s : plan) scattered += s.forward != 0 ? 1 : 0;
  std::span<std::byte> outbox = ctx.workspace().get((static_cast<std::size_t>(units) + scattered) * slot, 1);
  const auto compose = [&](std::size_t at, int u, std::uint64_t forward) {
    std::byte* message = outbox.data() + at * slot;
    const Header h{static_cast<std::uint32_t>(me), static_cast<std::uint32_t>(u), forward, call,
                   push::payload(block, unit, u)};
    std::memcpy(message, &h, sizeof h);
    std::memcpy(message + sizeof h, out + static_cast<std::size_t>(me) * block + static_cast<std::size_t>(u) * unit,
                h.bytes);
    return message;
  };
  for (int u = 0; u < units; ++u) compose(static_cast<std::size_t>(u), u, 0);
  std::size_t next_scatter = static_cast<std::size_t>(units);
  for (const push::Send& s : plan) {
    const std::size_t length = push::header_bytes + push::payload(block, unit, s.unit);
    if (s.forward != 0) {
      urgent.push_back(Outgoing{s.dest, compose(next_scatter++, s.unit, s.forward), length});
    } else {
      direct.push_back(Outgoing{s.dest, outbox.data() + static_cast<std::size_t>(s.unit) * slot, length});
    }
  }

  for (;;) {
    issue();
    if (received == expected && free_slots.size() == window) break;  // all received, all sent
    const std::size_t i = comm.wait_any(requests, ctx.timeout());
    if (i == Comm::npos) corrupt("nothing left to wait for with " + std::to_string(expected - received) + " missing");
    if (i < expected) {
      take(i);
    } else {
      requests[i] = Request();
      free_slots.push_back(i);
      direct_in_flight -= static_cast<std::size_t>(slot_direct[i - expected]);
    }
  }
}

}  // namespace ragged
