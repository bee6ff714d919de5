// The distributed construction of Träff's tree over a Context (Träff 2018, lemma 3); the
// rules and the per-rank state machine are in plans/traff_tree.hpp.
//
// Reference: J. L. Träff, "Practical, distributed, low overhead algorithms for irregular gather and scatter
//   collectives", Parallel Computing 75, 2018, lemma 3.
// Limitation: L + 1 <= 2 ceil(log2 p) rounds of constant-size messages with every rank taking part: pure latency,
//   which small blocks do not repay.
// Memory: constant per rank (24-byte cube descriptions).
//
// Per level d, for a pair of cubes A (lower) and B (upper), fixed roots fA, fB and
// gather roots gA, gB:
//
//   fA <══ sendrecv(CubeInfo) ══> fB          every pair, in parallel
//   fA ── isend(B's info) ──> gA               only where gA != fA
//   fB ── isend(A's info) ──> gB               only where gB != fB
//
// Exchanges complete before the next level (it needs their result); notices are
// non-blocking sends completed at the end, so a fixed root never waits for a gather
// root, and a fixed root starts a level's notice only after the next level's
// exchange has started: the chain of exchanges is the critical path, and a process
// pays a start-up per message it sends. A rank whose roles are over stops early.
#include <array>
#include <string>
#include <vector>

#include "internal/traff_driver.hpp"
#include "ragged/error.hpp"

namespace ragged::internal::traff_driver {

namespace traff = plans::traff;

namespace {

// A construction message must come from the expected cube and make sense; anything
// else means the ranks are out of step (a message of another call, a corrupted count).
void check_message(const Status& status, const traff::CubeInfo& info, const traff::Range& cube, int source) {
  const bool ok = status.bytes == sizeof(traff::CubeInfo) && info.root >= cube.first && info.root <= cube.last &&
                  info.root_block >= 0 && info.carried >= info.root_block;
  if (!ok) {
    throw Error("traff: malformed tree message from rank " + std::to_string(source) + " (" +
                std::to_string(status.bytes) + " bytes, root " + std::to_string(info.root) + ", carried " +
                std::to_string(info.carried) + ")");
  }
}

}  // namespace

traff::Node construct(const Context& ctx, std::int64_t elements, const traff::Params& params, int tag,
                      const Hooks& hooks) {
  Comm& comm = ctx.comm();
  const Timeout timeout = ctx.timeout();
  const int me = comm.rank();
  const int p = comm.size();
  traff::Builder builder(me, elements, params);
  const int levels = traff::levels(p);
  std::array<traff::CubeInfo, 32> notices{};  // kept alive until their sends complete
  std::vector<Request> pending;
  int notice_to = -1;  // a notice of the previous level not sent yet
  int notice_level = -1;
  const auto send_notice = [&] {
    if (notice_to < 0) return;
    pending.push_back(
        comm.isend(notice_to, tag, &notices[static_cast<std::size_t>(notice_level)], sizeof(traff::CubeInfo)));
    notice_to = -1;
  };
  bool placed = false;
  std::size_t announced = 0;
  for (int d = 0; d < levels && builder.active(); ++d) {
    if (const int f = builder.exchange_partner(d); f >= 0) {
      const traff::CubeInfo mine = builder.info();
      traff::CubeInfo theirs{};
      std::array<Request, 2> exchange{comm.irecv(f, tag, &theirs, sizeof theirs),
                                      comm.isend(f, tag, &mine, sizeof mine)};
      send_notice();  // behind this level's exchange: the exchanges are the critical path
      comm.wait_all(exchange, timeout);
      check_message(exchange[0].status(), theirs, traff::partner(me, d, p), f);
      if (const int g = builder.on_exchange(d, theirs); g >= 0) {
        notices[static_cast<std::size_t>(d)] = theirs;
        notice_to = g;
        notice_level = d;
      }
    } else {
      send_notice();
      if (const int f2 = builder.notice_from(d); f2 >= 0) {
        traff::CubeInfo theirs{};
        const Status s = comm.recv(f2, tag, &theirs, sizeof theirs, timeout);
        check_message(s, theirs, traff::partner(me, d, p), f2);
        builder.on_notice(d, theirs);
      }
    }
    const traff::Node& node = builder.node();
    for (; announced < node.children.size(); ++announced) {
      if (hooks.child_found) hooks.child_found(node.children[announced]);
    }
    if (!placed && !builder.gather_root()) {
      placed = true;
      if (hooks.placed) hooks.placed(node);
    }
  }
  send_notice();
  if (!placed && hooks.placed) hooks.placed(builder.node());
  comm.wait_all(pending, timeout);
  return builder.node();
}

}  // namespace ragged::internal::traff_driver
