// Fuzzes the messages of allgather "push" (plans/push_plan.hpp): unit sizes for blocks up to
// 2^45 bytes (32 TiB; units() is an int) and any P >= 1, and the sends of an arriving rank for
// P <= 200, up to 64 units and any set of waiting ranks. Checks: unit_bytes is 0 for an empty
// block and else within [min(block, min_payload), min(block, max_payload)], a message with its
// header at most max_message, ceil(block / (P - 1)) when that lies within the limits (then at
// most P - 1 units); units() = ceil(block / unit), 0 for an empty block or unit; the payloads
// are positive, at most a unit, and add up to the block. The sends: never to the sender, ranks
// and units in range; a scatter exactly when at least two ranks wait and P <= 64, first, unit u
// to the waiting rank A[u mod |A|] (A in ring order from the sender's right) with the forward set
// A minus that rank, one copy of the block towards the waiting ranks; the other ranks get every
// unit directly, in ring order from the sender's right; every rank but the sender gets every
// unit exactly once, directly or forwarded; the sender's own entry of `arrived` is ignored.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/push_plan.hpp"

namespace push = ragged::plans::push;

namespace {

void check_units(std::size_t block, int p) {
  const std::size_t unit = push::unit_bytes(block, p);
  if (block == 0) {
    FUZZ_REQUIRE(unit == 0 && push::units(block, unit) == 0, "an empty block has no unit");
    return;
  }
  FUZZ_REQUIRE(unit > 0 && unit <= block, "a unit is part of the block");
  FUZZ_REQUIRE(unit <= push::max_payload && unit + push::header_bytes <= push::max_message, "one message a unit");
  FUZZ_REQUIRE(unit >= std::min(block, push::min_payload), "no unit below min_payload but a small block");
  const auto peers = static_cast<std::size_t>(p - 1 > 1 ? p - 1 : 1);
  const std::size_t even = block / peers + (block % peers != 0 ? 1 : 0);
  const int n = push::units(block, unit);
  if (even >= push::min_payload && even <= push::max_payload) {
    FUZZ_REQUIRE(unit == even, "about block / (P - 1)");
    FUZZ_REQUIRE(static_cast<std::size_t>(n) <= peers, "a scatter gives each waiting rank at most one unit");
  }
  FUZZ_REQUIRE(n >= 1 && static_cast<std::size_t>(n) == block / unit + (block % unit != 0 ? 1 : 0),
               "units = ceil(block / unit)");
  // The payloads: every one if few, else the first, a middle and the last two.
  std::vector<int> which;
  if (n <= 4096) {
    for (int u = 0; u < n; ++u) which.push_back(u);
  } else {
    which = {0, n / 2, n - 2, n - 1};
  }
  std::size_t total = 0;
  for (const int u : which) {
    const std::size_t b = push::payload(block, unit, u);
    FUZZ_REQUIRE(b > 0 && b <= unit, "a payload is positive and at most a unit");
    if (u + 1 < n) FUZZ_REQUIRE(b == unit, "only the last unit is shorter");
    total += b;
  }
  if (n > 4096) total += static_cast<std::size_t>(n - 4) * unit;
  FUZZ_REQUIRE(total == block, "the payloads add up to the block");
  FUZZ_REQUIRE(push::units(block, 0) == 0 && push::units(0, unit) == 0, "no units of nothing");
}

void check_sends(int me, int p, int units, std::vector<char>& arrived) {
  const auto up = static_cast<std::size_t>(p);
  std::unique_ptr<bool[]> flags(new bool[up]);
  for (std::size_t r = 0; r < up; ++r) flags[r] = arrived[r] != 0;
  const std::vector<push::Send> sends = push::sends(me, p, units, {flags.get(), up});
  flags[static_cast<std::size_t>(me)] = !flags[static_cast<std::size_t>(me)];
  FUZZ_REQUIRE(push::sends(me, p, units, {flags.get(), up}) == sends, "the sender's own entry is ignored");

  std::vector<int> waiting;  // A, in ring order from the sender's right
  for (int k = 1; k < p; ++k) {
    const int r = (me + k) % p;
    if (arrived[static_cast<std::size_t>(r)] != 0) waiting.push_back(r);
  }
  const bool scatter = waiting.size() >= 2 && p <= push::max_forward_procs;
  std::uint64_t mask = 0;
  if (scatter) {
    for (const int r : waiting) mask |= std::uint64_t{1} << r;
  }
  std::vector<push::Send> want;
  if (scatter) {
    for (int u = 0; u < units; ++u) {
      const int member = waiting[static_cast<std::size_t>(u) % waiting.size()];
      want.push_back(push::Send{member, u, mask & ~(std::uint64_t{1} << member)});
    }
  }
  for (int k = 1; k < p; ++k) {
    const int r = (me + k) % p;
    if (scatter && arrived[static_cast<std::size_t>(r)] != 0) continue;
    for (int u = 0; u < units; ++u) want.push_back(push::Send{r, u, 0});
  }
  FUZZ_REQUIRE(sends == want, "the scatter to the waiting ranks, then every unit to every other rank");

  // Replay: got[r * units + u] counts how often rank r gets unit u.
  std::vector<int> got(up * static_cast<std::size_t>(units), 0);
  int to_waiting = 0;
  bool direct_seen = false;
  for (const push::Send& s : sends) {
    FUZZ_REQUIRE(s.dest >= 0 && s.dest < p && s.dest != me, "to another rank in range");
    FUZZ_REQUIRE(s.unit >= 0 && s.unit < units, "units in range");
    const bool waits = arrived[static_cast<std::size_t>(s.dest)] != 0;
    if (s.forward != 0) {
      FUZZ_REQUIRE(scatter && waits && !direct_seen, "forwarding only in the scatter, first, to a waiting rank");
      FUZZ_REQUIRE((s.forward >> s.dest & 1U) == 0 && (s.forward >> me & 1U) == 0,
                   "the forward set holds neither the receiver nor the sender");
      for (int r = 0; r < p; ++r) {
        if ((s.forward >> r & 1U) == 0) continue;
        FUZZ_REQUIRE(arrived[static_cast<std::size_t>(r)] != 0, "forwarded only to waiting ranks");
        ++got[static_cast<std::size_t>(r) * static_cast<std::size_t>(units) + static_cast<std::size_t>(s.unit)];
      }
    } else {
      direct_seen = direct_seen || !waits || !scatter;
    }
    if (scatter && waits) ++to_waiting;
    ++got[static_cast<std::size_t>(s.dest) * static_cast<std::size_t>(units) + static_cast<std::size_t>(s.unit)];
  }
  for (std::size_t r = 0; r < up; ++r) {
    for (std::size_t u = 0; u < static_cast<std::size_t>(units); ++u) {
      FUZZ_REQUIRE(got[r * static_cast<std::size_t>(units) + u] == (r == static_cast<std::size_t>(me) ? 0 : 1),
                   "every other rank gets every unit exactly once");
    }
  }
  if (scatter) FUZZ_REQUIRE(to_waiting == units, "one copy of the block towards the waiting ranks");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  std::size_t block = 0;
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0:
      block = in.ConsumeIntegralInRange<std::size_t>(0, 3 * push::max_message);
      break;
    case 1:
      block = in.ConsumeIntegralInRange<std::size_t>(0, std::size_t{1} << 30);
      break;
    default:
      block = in.ConsumeIntegralInRange<std::size_t>(0, std::size_t{1} << 45);
      break;
  }
  const int procs = in.ConsumeIntegralInRange<int>(1, in.ConsumeBool() ? 70 : 2147483647);
  check_units(block, procs);

  const int p = in.ConsumeIntegralInRange<int>(1, in.ConsumeBool() ? 70 : 200);
  const int me = in.ConsumeIntegralInRange<int>(0, p - 1);
  const int units = in.ConsumeIntegralInRange<int>(0, 64);
  std::vector<char> arrived(static_cast<std::size_t>(p), 0);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      break;  // nobody waits
    case 1:
      std::fill(arrived.begin(), arrived.end(), 1);  // everybody waits
      break;
    default:
      for (char& a : arrived) a = in.ConsumeBool() ? 1 : 0;
      break;
  }
  check_sends(me, p, units, arrived);
  return 0;
}
