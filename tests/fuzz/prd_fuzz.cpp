// Fuzzes PRD's plan (plans/prd_plan.hpp) for P <= 512 ranks, vectors up to 2^40 bytes and any
// finite link model (zero, negative, tiny, huge alpha and beta). Checks: fewer than two ranks
// throw std::invalid_argument; `late` is the latest arrival (ties: the highest rank) and `early`
// every other rank, earliest first (ties by rank), with position() its inverse; rounds is
// rounds_for's, between 1 and max_rounds, and above 1 only while a piece keeps min_piece_bytes;
// the pieces of every (block, round), in block then round order, tile the vector exactly once.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/prd_plan.hpp"

namespace prd = ragged::plans::prd;

namespace {

double link_value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0:
      return 0.0;
    case 1:
      return in.ConsumeFloatingPointInRange<double>(1e-9, 1e-3);
    case 2:
      return in.ConsumeFloatingPointInRange<double>(-1.0, 1.0);
    case 3:
      return in.ConsumeFloatingPointInRange<double>(-1e300, 1e300);
    default:
      return in.ConsumeFloatingPointInRange<double>(0.0, 1e-300);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int p = in.ConsumeIntegralInRange<int>(0, 512);
  const std::size_t bytes = in.ConsumeBool() ? in.ConsumeIntegralInRange<std::size_t>(0, 1 << 20)
                                             : in.ConsumeIntegralInRange<std::size_t>(0, std::size_t{1} << 40);
  const double alpha = link_value(in);
  const double beta = link_value(in);
  const std::vector<double> a = ragged::fuzz::arrivals(in, p, 1.0);
  if (p < 2) {
    bool threw = false;
    try {
      (void)prd::make_plan(a, bytes, alpha, beta);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    FUZZ_REQUIRE(threw, "fewer than two ranks throw std::invalid_argument");
    return 0;
  }
  const prd::Plan plan = prd::make_plan(a, bytes, alpha, beta);
  const auto up = static_cast<std::size_t>(p);
  FUZZ_REQUIRE(plan.late >= 0 && plan.late < p, "late in range");
  const double latest = *std::max_element(a.begin(), a.end());
  FUZZ_REQUIRE(a[static_cast<std::size_t>(plan.late)] == latest, "late arrives last");
  for (int r = plan.late + 1; r < p; ++r) FUZZ_REQUIRE(a[static_cast<std::size_t>(r)] < latest, "ties: highest rank");
  FUZZ_REQUIRE(plan.early.size() == up - 1, "every other rank is early");
  std::vector<char> seen(up, 0);
  seen[static_cast<std::size_t>(plan.late)] = 1;
  for (std::size_t j = 0; j < plan.early.size(); ++j) {
    const int r = plan.early[j];
    FUZZ_REQUIRE(r >= 0 && r < p && seen[static_cast<std::size_t>(r)] == 0, "early ranks once each");
    seen[static_cast<std::size_t>(r)] = 1;
    FUZZ_REQUIRE(plan.position(r) == static_cast<int>(j), "position is the index in early");
    if (j > 0) {
      const int q = plan.early[j - 1];
      const double x = a[static_cast<std::size_t>(q)];
      const double y = a[static_cast<std::size_t>(r)];
      FUZZ_REQUIRE(x < y || (x == y && q < r), "early: earliest first, ties by rank");
    }
  }
  FUZZ_REQUIRE(plan.position(plan.late) == -1, "the late rank has no position");

  const int blocks = p - 1;
  FUZZ_REQUIRE(plan.rounds == prd::rounds_for(bytes, blocks, alpha, beta), "rounds = rounds_for");
  FUZZ_REQUIRE(plan.rounds >= 1 && plan.rounds <= prd::max_rounds, "1 <= rounds <= max_rounds");
  const std::size_t by_size = bytes / (static_cast<std::size_t>(blocks) * prd::min_piece_bytes);
  FUZZ_REQUIRE(plan.rounds == 1 || static_cast<std::size_t>(plan.rounds) <= by_size, "pieces of min_piece_bytes");

  // The pieces tile a vector of `count` elements (any count: pieces are in elements).
  const std::size_t count = in.ConsumeBool() ? bytes : in.ConsumeIntegralInRange<std::size_t>(0, 100);
  const int rounds = in.ConsumeBool() ? plan.rounds : in.ConsumeIntegralInRange<int>(1, prd::max_rounds);
  std::size_t end = 0;
  for (int j = 0; j < blocks; ++j) {
    for (int r = 0; r < rounds; ++r) {
      const prd::Piece x = prd::piece(count, blocks, rounds, j, r);
      FUZZ_REQUIRE(x.offset == end, "pieces follow each other");
      FUZZ_REQUIRE(x.count <= count - end, "pieces stay in the vector");
      end += x.count;
    }
  }
  FUZZ_REQUIRE(end == count, "pieces cover the vector");
  return 0;
}
