// Fuzzes the arithmetic of the threshold broadcast and reduce (plans/threshold_plan.hpp) for
// P up to 2^30, counts up to 2^64 - 1 and thresholds in (0, 1] from 1e-308 to 1 (the
// dispatcher rejects NaN, infinities and anything outside (0, 1] before they get here).
// Checks: ceil_fraction is 0 for n = 0 and else in [1, n], at most the tolerance below t n and
// the smallest such (m - 1 < t n), j/n of n is j (snapped), 1 of n is n, and it is monotone in
// t and in n (up to 2^53; above, where n itself rounds in double, only the bounds); elements() is ceil_fraction;
// stage_of(v) is floor(log2 v) + 1; involved(s, P) = min(P, 2^s); contributors are the fewest whole stages that reach
// ceil(t P): a power of two or P, at least ceil(t P), one stage less not enough; a kept rank's parent is kept and its
// children in the tree of the kept ranks are its kept children in the tree of P; dropped ranks
// join after the kept stages; is_leaf means no child (odd ranks, the last rank, the root of
// one); distance_index(2^j) = j, and the parent and children a rank sees at distance index j
// are (x -+ 2^j) mod P whatever the root.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/binomial_tree.hpp"
#include "plans/threshold_plan.hpp"

namespace binomial = ragged::plans::binomial;
namespace threshold = ragged::plans::threshold;

namespace {

/// A threshold in (0, 1]: round fractions, j/n (exact multiples), their neighbours, any
/// double of (0, 1] down to the subnormals, and 1.
double fraction(FuzzedDataProvider& in, std::size_t n) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      return in.ConsumeIntegralInRange<int>(1, 100) / 100.0;
    case 1: {
      const std::size_t d = n == 0 ? 1 : n;
      return static_cast<double>(in.ConsumeIntegralInRange<std::size_t>(1, d)) / static_cast<double>(d);
    }
    case 2: {
      const double t = static_cast<double>(in.ConsumeIntegralInRange<int>(1, 1000)) / 1000.0;
      return in.ConsumeBool() ? std::nextafter(t, 0.0) : std::nextafter(t, 2.0) <= 1 ? std::nextafter(t, 2.0) : t;
    }
    case 3: {
      const double t = in.ConsumeFloatingPointInRange<double>(0.0, 1.0);
      return t > 0 ? t : std::numeric_limits<double>::denorm_min();
    }
    case 4:
      return std::ldexp(1.0, -in.ConsumeIntegralInRange<int>(0, 1074));
    default:
      return 1.0;
  }
}

std::size_t count(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return in.ConsumeIntegralInRange<std::size_t>(0, 1000);
    case 1:
      return in.ConsumeIntegralInRange<std::size_t>(0, std::size_t{1} << 53);
    case 2:
      return std::numeric_limits<std::size_t>::max() - in.ConsumeIntegralInRange<std::size_t>(0, 4096);
    default:
      return in.ConsumeIntegral<std::size_t>();
  }
}

void check_fraction(double t, std::size_t n, double t2, std::size_t n2) {
  const std::size_t m = threshold::ceil_fraction(t, n);
  FUZZ_REQUIRE(threshold::elements(t, n) == m, "elements is ceil_fraction");
  if (n == 0) {
    FUZZ_REQUIRE(m == 0, "nothing of nothing");
    return;
  }
  FUZZ_REQUIRE(m >= 1 && m <= n, "a positive threshold keeps at least one and at most all");
  FUZZ_REQUIRE(threshold::ceil_fraction(1.0, n) == n, "1 of n is n");
  // Above 2^53 elements n itself is rounded in double; only the bounds are promised there.
  constexpr std::size_t exact = std::size_t{1} << 53;
  if (n > exact) return;
  // x as the function computes it; long double holds it and every count exactly.
  const auto x = static_cast<long double>(t * static_cast<double>(n));
  const long double tolerance = 1e-9L * (x > 1 ? x : 1);
  if (m < n) {
    FUZZ_REQUIRE(static_cast<long double>(m) >= x - tolerance, "at most the tolerance below t n");
    FUZZ_REQUIRE(static_cast<long double>(m - 1) < x, "the smallest such count");
  } else {
    FUZZ_REQUIRE(x > static_cast<long double>(n) - 1, "all of n only when t n is above n - 1");
  }
  FUZZ_REQUIRE(threshold::ceil_fraction(static_cast<double>(m) / static_cast<double>(n), n) == m,
               "j/n of n is j (snapped)");
  const double lo = t < t2 ? t : t2;
  const double hi = t < t2 ? t2 : t;
  FUZZ_REQUIRE(threshold::ceil_fraction(lo, n) <= threshold::ceil_fraction(hi, n), "monotone in t");
  if (n2 <= exact) {
    const std::size_t nlo = n < n2 ? n : n2;
    const std::size_t nhi = n < n2 ? n2 : n;
    FUZZ_REQUIRE(threshold::ceil_fraction(t, nlo) <= threshold::ceil_fraction(t, nhi), "monotone in n");
  }
}

void check_stages(double t, int p, int v, int x, int root) {
  for (int s = 0; s <= binomial::rounds(p) + 2; ++s) {
    const long long want = s >= 31 ? p : (1LL << s) < p ? (1LL << s) : p;
    FUZZ_REQUIRE(threshold::involved(s, p) == want, "involved = min(P, 2^s)");
  }
  const auto needed = static_cast<int>(threshold::elements(t, static_cast<std::size_t>(p)));
  const int s = threshold::stages(t, p);
  const int n = threshold::contributors(t, p);
  FUZZ_REQUIRE(s >= 0 && s <= binomial::rounds(p), "at most every stage");
  FUZZ_REQUIRE(threshold::involved(s, p) == n, "contributors: the ranks of the kept stages");
  FUZZ_REQUIRE(n >= needed && n <= p, "enough ranks, no more than P");
  FUZZ_REQUIRE(n == p || (n & (n - 1)) == 0, "whole stages: a power of two or all ranks");
  if (s > 0) FUZZ_REQUIRE(threshold::involved(s - 1, p) < needed, "one stage less is not enough");
  FUZZ_REQUIRE(threshold::contributors(1.0, p) == p, "a threshold of 1 keeps every rank");

  // v: a rank of the tree; kept or dropped.
  const int sv = threshold::stage_of(v);
  FUZZ_REQUIRE(v == 0 ? sv == 0 : (sv >= 1 && (v >> (sv - 1)) == 1), "stage_of = floor(log2 v) + 1");
  FUZZ_REQUIRE(threshold::contributes(v, n) == (v < n), "contributes: the first n");
  if (v < n) {
    FUZZ_REQUIRE(sv <= s, "a kept rank joins in a kept stage");
    if (v != 0) FUZZ_REQUIRE(threshold::contributes(binomial::parent(v), n), "a kept rank's parent is kept");
    std::vector<int> kept;
    for (const int c : binomial::children(v, p)) {
      if (threshold::contributes(c, n)) kept.push_back(c);
    }
    FUZZ_REQUIRE(binomial::children(v, n) == kept, "the kept ranks form the tree of their own number");
  } else {
    FUZZ_REQUIRE(sv > s, "a dropped rank joins after the kept stages");
  }
  const bool leaf = v == 0 ? p == 1 : ((v & 1) != 0 || v + 1 >= p);
  FUZZ_REQUIRE(threshold::is_leaf(v, p) == leaf, "is_leaf: no child");
  FUZZ_REQUIRE(threshold::is_leaf(v, p) == binomial::children(v, p).empty(), "is_leaf agrees with children");

  // x: an absolute rank under any root; its peers at distance index j are (x -+ 2^j) mod P.
  const int w = binomial::relative(x, root, p);
  if (w != 0) {
    const int j = threshold::distance_index(binomial::lowest_bit(w));
    FUZZ_REQUIRE(j >= 0 && j < binomial::rounds(p), "distance index below ceil(log2 P)");
    const long long up = ((static_cast<long long>(x) - (1LL << j)) % p + p) % p;
    FUZZ_REQUIRE(binomial::absolute(binomial::parent(w), root, p) == up, "the parent is x - 2^j mod P");
  }
  for (const int c : binomial::children(w, p)) {
    const int j = threshold::distance_index(c - w);
    FUZZ_REQUIRE(j >= 0 && j < binomial::rounds(p), "distance index below ceil(log2 P)");
    FUZZ_REQUIRE(binomial::absolute(c, root, p) == (static_cast<long long>(x) + (1LL << j)) % p,
                 "a child is x + 2^j mod P");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::size_t n = count(in);
  const std::size_t n2 = count(in);
  const double t = fraction(in, n);
  const double t2 = fraction(in, n);
  check_fraction(t, n, t2, n2);

  const int j = in.ConsumeIntegralInRange<int>(0, 30);
  FUZZ_REQUIRE(threshold::distance_index(1 << j) == j, "distance_index(2^j) = j");

  const int p = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(1, 70) : in.ConsumeIntegralInRange<int>(1, 1 << 30);
  const double tp = fraction(in, static_cast<std::size_t>(p));
  const int v = in.ConsumeIntegralInRange<int>(0, p - 1);
  const int x = in.ConsumeIntegralInRange<int>(0, p - 1);
  check_stages(tp, p, v, x, in.ConsumeIntegralInRange<int>(0, p - 1));
  return 0;
}
