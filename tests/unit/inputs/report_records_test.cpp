// The records each rank sends rank 0 for RAGGED_REPORT (src/pmpi/report_merge.cpp, compiled in;
// no MPI call is made): what the report_records fuzzer found. A rank's bytes are refused with
// ragged::Error unless they are exactly its records.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ragged/error.hpp"
#include "report_internal.hpp"

namespace ragged::pmpi {
Timeout call_timeout() { return {}; }  // state.cpp is not compiled in
}  // namespace ragged::pmpi

namespace ragged::pmpi::report {
namespace test_report_records {

std::vector<std::byte> one_site(Kind kind) {
  State s;
  s.last.measured = true;
  CommRecord c;
  c.key = "intra:0,1#0";
  c.name = "MPI_COMM_WORLD";
  c.size = 2;
  c.world_ranks = {0, 1};
  Site site;
  site.kind = kind;
  site.bytes = 4096;
  site.calls = 3;
  site.entries = {1.0, 2.0, 3.0};
  site.outcomes.push_back(Outcome{Mode::named, "ring", "ring", 3});
  c.sites.push_back(site);
  s.comms.push_back(c);
  return serialize(s, 1);
}

std::string refusal(const std::vector<std::byte>& bytes) {
  Merge m;
  try {
    merge(m, bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "merged";
}

TEST(ReportRecords, RoundTrip) {
  Merge m;
  merge(m, one_site(Kind::allreduce));
  ASSERT_EQ(m.sites.size(), 1U);
  EXPECT_EQ(m.sites[0].kind, Kind::allreduce);
  EXPECT_EQ(m.sites[0].calls, 3U);
  EXPECT_EQ(m.sites[0].earliest, (std::vector<double>{1.0, 2.0, 3.0}));
}

// The kind byte indexed kind_names unchecked (a read past the array).
TEST(ReportRecords, RefusesAnUnknownKindOrMode) {
  std::vector<std::byte> bytes = one_site(Kind::barrier);
  std::vector<std::byte> unknown = bytes;
  // The kind is the first byte after the site count: find it as the only byte 11 (barrier)
  // followed by the site's 4096.
  const long long size = 4096;
  for (std::size_t at = 0; at + 9 <= unknown.size(); ++at) {
    if (unknown[at] == std::byte{11} && std::memcmp(&unknown[at + 1], &size, sizeof size) == 0) {
      unknown[at] = std::byte{51};
    }
  }
  EXPECT_EQ(refusal(unknown), "ragged pmpi report: unknown collective 51 in the records");
  EXPECT_EQ(refusal(bytes), "merged");
}

// A length of 2^63 went to std::string's constructor (std::length_error escaped); a count is now
// checked against the bytes left before anything is allocated, and bytes past the records are
// refused.
TEST(ReportRecords, RefusesLengthsBeyondTheBytesAndBytesPastThem) {
  std::vector<std::byte> bytes = one_site(Kind::bcast);
  std::vector<std::byte> longer = bytes;
  longer.push_back(std::byte{0});
  EXPECT_EQ(refusal(longer), "ragged pmpi report: bytes past the records");
  // The key's length: after world rank (4), broken (1), two offsets (2 x 17) and the comm count (8).
  std::vector<std::byte> huge = bytes;
  const std::uint64_t length = std::uint64_t{1} << 63;
  std::memcpy(&huge[4 + 1 + 34 + 8], &length, sizeof length);
  EXPECT_EQ(refusal(huge), "ragged pmpi report: truncated records");
  bytes.resize(bytes.size() - 1);
  EXPECT_EQ(refusal(bytes), "ragged pmpi report: truncated records");
}

}  // namespace test_report_records
}  // namespace ragged::pmpi::report
