// ragged-bench's inputs from outside (tools/bench/options.cpp and mf_sgd.cpp, compiled in):
// what the fuzzers bench_options and movielens found.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "mf_sgd.hpp"
#include "options.hpp"
#include "ragged/error.hpp"

namespace ragged::bench {
namespace test_bench_inputs {

// A max near 2^64 is 2^64 as a double: "17179869184G" (2^64) passed the comparison and was
// converted to uint64_t (undefined behaviour, fuzz.bench_options). Compared as integers now.
TEST(ParseCount, RefusesWhatNoUint64Holds) {
  constexpr std::uint64_t all = std::numeric_limits<std::uint64_t>::max();
  EXPECT_THROW((void)parse_count("17179869184G", "--size", all), InvalidArgument);
  EXPECT_THROW((void)parse_count("18446744073709551616", "--size", all), InvalidArgument);
  EXPECT_EQ(parse_count("18446744073709549568", "--size", all), 18446744073709549568ULL);  // 2^64 - 2048
  EXPECT_EQ(parse_count("16G", "--size", all), std::uint64_t{1} << 34);
  EXPECT_EQ(parse_count("256Ki", "--size"), 262144U);
  EXPECT_THROW((void)parse_count("1e30", "--size"), InvalidArgument);
}

std::string refusal(const std::string& text) {
  std::istringstream in(text);
  try {
    (void)mf::read_movielens(in, "ratings.csv");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "taken";
}

// stoull took "-8" as 2^64 - 8 (fuzz.movielens); ids are digits only, ratings plain decimals.
TEST(ReadMovielens, RefusesSignsSpacesAndHexadecimal) {
  const std::string bad = ": expected userId,movieId,rating[,timestamp]";
  EXPECT_EQ(refusal("7,1,4.5\n-8,1,3\n"), "ratings.csv:2" + bad);
  EXPECT_EQ(refusal("1,-2,3\n"), "ratings.csv:1" + bad);
  EXPECT_EQ(refusal(" 1,2,3\n"), "ratings.csv:1" + bad);
  EXPECT_EQ(refusal("+1,2,3\n"), "ratings.csv:1" + bad);
  EXPECT_EQ(refusal("1,2,0x3\n"), "ratings.csv:1" + bad);
  EXPECT_EQ(refusal("1,2, 3\n"), "ratings.csv:1" + bad);
  EXPECT_EQ(refusal("1,2,nan\n"), "ratings.csv:1" + bad);
  std::istringstream good("userId,movieId,rating,timestamp\r\n1,296,5.0,1147880044\r\n1,306,.5e1,1\r\n2,296,4\r\n");
  const mf::Ratings r = mf::read_movielens(good, "ratings.csv");
  EXPECT_EQ(r.users, 2U);
  EXPECT_EQ(r.items, 2U);
  EXPECT_EQ(r.train.size() + r.test.size(), 3U);
  EXPECT_EQ(r.source, "ratings.csv");
}

}  // namespace test_bench_inputs
}  // namespace ragged::bench
