// Fuzzes what the arrival agents make of the records they exchange (src/core/arrival/
// monitor_agent.cpp): P <= 64 records of one epoch, each 48 raw bytes as they come off the
// network (internal::Wire), sometimes with one plan copied to every rank, through
// received_record() and combine_records(), and the snapshot the agent then builds:
//   * received_record(): times finite (a non-finite publication counts as 0, a non-finite
//     arrival as the publication), a source ArrivalSource knows (an unknown one is an estimate),
//     finite times and known sources and every other field kept bit for bit; applied twice, the
//     same;
//   * combine_records(): rank r's arrival and source are its record's, the last publication the
//     latest; the agreed plan is none or the plan of every record, runnable, its root a rank and
//     its kind a background part, not skipped as balanced; and whenever every record names such
//     a plan, that plan;
//   * ArrivalSnapshot from them (as the agent builds it: known at the last publication plus one
//     latency) never throws, holds the arrivals and sources, and its imbalance is not NaN.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#include "arrival/monitor_state.hpp"
#include "fuzz_check.hpp"

namespace {

using ragged::internal::Wire;

static_assert(sizeof(Wire) == 48, "the wire record has no padding: every byte comes from the network");

bool same_bits(const Wire& a, const Wire& b) { return std::memcmp(&a, &b, sizeof(Wire)) == 0; }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int procs = in.ConsumeIntegralInRange<int>(1, 64);
  const bool fallback = in.ConsumeBool();
  ragged::LinkModel link;
  if (in.ConsumeBool()) {
    link.alpha = in.ConsumeFloatingPointInRange<double>(0, 1e-2);
    link.beta = in.ConsumeFloatingPointInRange<double>(0, 1e-6);
  }
  const int shape = in.ConsumeIntegralInRange<int>(0, 3);  // 0: raw; 1: one plan; 2, 3: one known plan
  std::vector<Wire> raw(static_cast<std::size_t>(procs));
  for (Wire& w : raw) {
    const std::vector<std::uint8_t> bytes = in.ConsumeBytes<std::uint8_t>(sizeof(Wire));
    if (!bytes.empty()) std::memcpy(&w, bytes.data(), bytes.size());
    if (shape >= 2) {  // plausible times and a plan that may run
      w.time = in.ConsumeFloatingPointInRange<double>(-1, 1);
      w.published = in.ConsumeFloatingPointInRange<double>(-1, 1);
    }
  }
  if (shape >= 2) {
    raw[0].plan_kind = in.ConsumeIntegralInRange<std::uint32_t>(0, 7);
    raw[0].plan_root = in.ConsumeIntegralInRange<std::int32_t>(-1, procs);
    raw[0].plan_bytes = in.ConsumeIntegralInRange<std::uint64_t>(0, 1 << 20);
  }
  if (shape >= 1) {
    for (Wire& w : raw) {
      w.plan_kind = raw[0].plan_kind;
      w.plan_root = raw[0].plan_root;
      w.plan_bytes = raw[0].plan_bytes;
    }
  }

  std::vector<Wire> records;
  for (const Wire& w : raw) {
    const Wire got = ragged::internal::received_record(w);
    FUZZ_REQUIRE(std::isfinite(got.time) && std::isfinite(got.published), "finite times");
    FUZZ_REQUIRE(got.source <= static_cast<std::uint32_t>(ragged::ArrivalSource::measured), "a known source");
    FUZZ_REQUIRE(got.kind == w.kind && got.epoch == w.epoch && got.plan_kind == w.plan_kind &&
                     got.plan_root == w.plan_root && got.plan_bytes == w.plan_bytes,
                 "the record's kind, epoch and plan kept");
    FUZZ_REQUIRE(same_bits(got.published, std::isfinite(w.published) ? w.published : 0.0),
                 "a publication kept, 0 when not finite");
    FUZZ_REQUIRE(same_bits(got.time, std::isfinite(w.time) ? w.time : got.published),
                 "an arrival kept, the publication when not finite");
    FUZZ_REQUIRE(got.source == (w.source <= 2 ? w.source : 1U), "a source kept, an estimate when unknown");
    FUZZ_REQUIRE(same_bits(ragged::internal::received_record(got), got), "received twice, the same");
    records.push_back(got);
  }

  const ragged::internal::EpochRecords e = ragged::internal::combine_records(records, link, fallback);
  FUZZ_REQUIRE(e.arrivals.size() == records.size() && e.sources.size() == records.size(), "a record per rank");
  double last = records[0].published;
  for (std::size_t r = 0; r < records.size(); ++r) {
    FUZZ_REQUIRE(same_bits(e.arrivals[r], records[r].time), "the rank's arrival");
    FUZZ_REQUIRE(static_cast<std::uint32_t>(e.sources[r]) == records[r].source, "the rank's source");
    last = std::max(last, records[r].published);
  }
  FUZZ_REQUIRE(same_bits(e.last_published, last), "the last publication");

  const ragged::internal::PlanKey none{};
  const ragged::internal::PlanKey first = ragged::internal::plan_of(records[0]);
  bool all_same = true;
  for (const Wire& w : records) all_same = all_same && ragged::internal::plan_of(w) == first;
  const ragged::internal::Background* part = ragged::internal::background_of(first.kind);
  const bool runs = all_same && first.runnable() && first.root >= 0 && first.root < procs && part != nullptr;
  const bool skipped = runs && part->skip_when_balanced && fallback &&
                       ragged::internal::balanced_pattern(e.arrivals, e.last_published + link.alpha, link,
                                                          static_cast<std::size_t>(first.block_bytes));
  if (!(e.agreed == none)) {
    FUZZ_REQUIRE(runs && e.agreed == first, "an agreed plan is every record's, runnable, for a rank, known");
    FUZZ_REQUIRE(!skipped, "an agreed plan is not skipped as balanced");
  }
  FUZZ_REQUIRE((e.agreed == first) == (runs && !skipped) || (first == none && e.agreed == none),
               "every record naming a plan that runs agrees on it");

  try {
    const ragged::ArrivalSnapshot snapshot(e.arrivals, link, records[0].epoch, e.sources, e.last_published + link.alpha,
                                           nullptr, fallback);
    FUZZ_REQUIRE(snapshot.size() == procs, "the snapshot's size");
    for (int r = 0; r < procs; ++r) {
      FUZZ_REQUIRE(same_bits(snapshot.arrival(r), e.arrivals[static_cast<std::size_t>(r)]), "the snapshot's arrival");
      FUZZ_REQUIRE(snapshot.source(r) == e.sources[static_cast<std::size_t>(r)], "the snapshot's source");
    }
    FUZZ_REQUIRE(!std::isnan(snapshot.imbalance()), "an imbalance");
    (void)snapshot.balanced(static_cast<std::size_t>(first.block_bytes));
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "the agent's snapshot threw: %s\n", ex.what());
    std::abort();
  }
  return 0;
}
