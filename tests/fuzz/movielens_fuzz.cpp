// Fuzzes the MovieLens reader of ragged-bench's mf-sgd experiment (mf::read_movielens,
// tools/bench/mf_sgd.cpp, compiled in) with arbitrary ratings.csv text up to 1 MiB, against an
// independent reading of the format its header documents: lines ("\r\n" too), empty ones
// skipped, a first line starting with "userId" a header, then userId,movieId,rating[,...] with
// ids of decimal digits that fit 64 bits and a rating of digits, '.', and an exponent that is a
// number from 0 to 10. The reader
//   * accepts exactly when every row is such and some rating is kept for training, else throws
//     std::runtime_error naming the file and the first bad line ("<file>:<line>: ...") or
//     saying there are no ratings ("<file>: no ratings"), never anything else;
//   * numbers users and movies densely in order of appearance (users, items = the distinct ids);
//   * keeps every row once, in order, in train or test, with its rating as a float.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "mf_sgd.hpp"

namespace {

struct Row {
  std::uint64_t user;
  std::uint64_t item;
  float value;
};

bool id(const std::string& text, std::uint64_t& out) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  errno = 0;
  out = std::strtoull(text.c_str(), nullptr, 10);
  return errno == 0;
}

bool rating(const std::string& text, double& out) {
  if (text.empty() || !((text[0] >= '0' && text[0] <= '9') || text[0] == '.')) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return false;
  }
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno == 0 && out >= 0 && out <= 10;
}

/// The rows of `text`, or the number of its first bad line.
long reference(std::string_view text, std::vector<Row>& rows) {
  long number = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string line(text.substr(at, end - at));
    at = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (number == 1 && line.rfind("userId", 0) == 0) continue;
    std::vector<std::string> fields;
    std::size_t from = 0;
    for (int k = 0; k < 3; ++k) {
      const std::size_t comma = line.find(',', from);
      if (from > line.size() || (from == line.size() && k > 0)) break;
      fields.push_back(line.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
      from = comma == std::string::npos ? line.size() + 1 : comma + 1;
    }
    Row row{};
    double value = 0;
    if (fields.size() < 3 || !id(fields[0], row.user) || !id(fields[1], row.item) || !rating(fields[2], value)) {
      return number;
    }
    row.value = static_cast<float>(value);
    rows.push_back(row);
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string name = "fuzz/ratings.csv";
  std::vector<Row> rows;
  const long bad = reference(text, rows);
  std::istringstream in(text);
  ragged::bench::mf::Ratings got;
  try {
    got = ragged::bench::mf::read_movielens(in, name);
  } catch (const std::runtime_error& e) {
    const std::string_view what(e.what());
    if (bad != 0) {
      const std::string head = name + ":" + std::to_string(bad) + ": ";
      if (what.substr(0, head.size()) != head) std::fprintf(stderr, "got: %s\nwant: %s...\n", e.what(), head.c_str());
      FUZZ_REQUIRE(what.substr(0, head.size()) == head, "a refusal names the file and the first bad line");
    } else {
      FUZZ_REQUIRE(what == name + ": no ratings", "good rows are refused only when none is kept for training");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a runtime_error: %s\n", e.what());
    std::abort();
  }
  if (bad != 0) std::fprintf(stderr, "line %ld is bad, and was taken\n", bad);
  FUZZ_REQUIRE(bad == 0, "every row taken is well formed");
  FUZZ_REQUIRE(!got.train.empty(), "ratings to train on");
  FUZZ_REQUIRE(got.source == name, "the source is the file");
  FUZZ_REQUIRE(got.train.size() + got.test.size() == rows.size(), "every row once");
  std::map<std::uint64_t, std::uint32_t> users;
  std::map<std::uint64_t, std::uint32_t> items;
  std::size_t t = 0;
  std::size_t h = 0;
  for (const Row& row : rows) {
    const std::uint32_t user = users.try_emplace(row.user, static_cast<std::uint32_t>(users.size())).first->second;
    const std::uint32_t item = items.try_emplace(row.item, static_cast<std::uint32_t>(items.size())).first->second;
    const auto same = [&](const ragged::bench::mf::Rating& r) {
      return r.user == user && r.item == item && r.value == row.value;
    };
    if (t < got.train.size() && same(got.train[t])) {
      ++t;
    } else {
      FUZZ_REQUIRE(h < got.test.size() && same(got.test[h]), "the rows in order, numbered in order of appearance");
      ++h;
    }
  }
  FUZZ_REQUIRE(got.users == users.size() && got.items == items.size(), "users and items: the distinct ids");
  return 0;
}
