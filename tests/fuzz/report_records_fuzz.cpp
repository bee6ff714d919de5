// Fuzzes the byte stream in which each rank hands its RAGGED_REPORT records to rank 0
// (src/pmpi/report_merge.cpp, compiled in: serialize() on every rank, merge() on rank 0). No MPI
// call is made, so MPI is never initialized. The first byte picks:
//   * a round trip: a rank's records built from the fuzz bytes (communicators, sites, outcomes,
//     the entry ring as report_record.cpp's commit fills it for a cap of 1 to 6, clock offsets)
//     go through serialize() and merge(): the rank's clock, every site's communicator, kind,
//     bytes, root, calls, contributed bytes, waits and outcomes come back as they were, the kept
//     entries oldest first on rank 0's clock (t - offset_at(t)), the entry sum relative to the
//     merge's base; merged again as another world rank, a tie keeps the first rank as the last
//     one in, and every site stays consistent;
//   * arbitrary bytes: merge() either throws ragged::Error ("ragged pmpi report: ...") having
//     allocated no more than the bytes could describe, or adds sites whose kinds and modes are
//     ones the report knows, with as many latest entries as earliest entries and last ranks;
//     bytes past the records are refused.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "ragged/error.hpp"
#include "report_internal.hpp"

namespace ragged::pmpi {
// state.cpp is not compiled in: the gathering's timeout (merge() and serialize() never wait).
Timeout call_timeout() { return {}; }
}  // namespace ragged::pmpi

extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }  // MPI's own allocations

namespace {

using namespace ragged::pmpi::report;

struct Model {
  int world = 0;
  std::vector<std::vector<double>> kept;  // per (comm, site) in order: the entries oldest first
};

void build(FuzzedDataProvider& in, State& s, Model& model) {
  model.world = in.ConsumeIntegral<int>();
  s.broken = in.ConsumeBool();
  for (Offset* o : {&s.first, &s.last}) {
    o->measured = in.ConsumeBool();
    o->at = in.ConsumeFloatingPointInRange<double>(-1e3, 1e3);
    o->offset = in.ConsumeFloatingPointInRange<double>(-10, 10);
    o->round_trip = in.ConsumeFloatingPointInRange<double>(0, 1);
  }
  const int comms = in.ConsumeIntegralInRange<int>(0, 3);
  for (int c = 0; c < comms; ++c) {
    CommRecord r;
    r.key = in.ConsumeRandomLengthString(24) + "#" + std::to_string(c);  // unique, as ordinals make them
    r.name = in.ConsumeRandomLengthString(24);
    r.rank = in.ConsumeIntegral<int>();
    r.size = in.ConsumeIntegral<int>();
    r.inter = in.ConsumeBool();
    r.world_ranks.resize(in.ConsumeIntegralInRange<std::size_t>(0, 6));
    for (int& w : r.world_ranks) w = in.ConsumeIntegralInRange<int>(-1, 1000);
    const int sites = in.ConsumeIntegralInRange<int>(0, 3);
    for (int k = 0; k < sites; ++k) {
      Site site;
      site.kind = static_cast<Kind>(in.ConsumeIntegralInRange<int>(0, static_cast<int>(kind_names.size()) - 1));
      site.bytes = in.ConsumeIntegral<long long>();
      site.root = in.ConsumeIntegral<int>();
      bool repeated = false;
      for (const Site& other : r.sites) repeated = repeated || other.key() == site.key();
      if (repeated) continue;  // a communicator has one site per (kind, bytes, root)
      site.contributed = in.ConsumeIntegral<std::uint64_t>();
      site.wait_sum = in.ConsumeFloatingPointInRange<double>(0, 1e6);
      site.wait_max = in.ConsumeFloatingPointInRange<double>(0, 1e6);
      const int outcomes = in.ConsumeIntegralInRange<int>(0, 3);
      for (int o = 0; o < outcomes; ++o) {
        Outcome out;
        out.mode = static_cast<Mode>(in.ConsumeIntegralInRange<int>(0, static_cast<int>(Mode::rules)));
        out.requested = in.ConsumeRandomLengthString(16);
        out.ran = in.ConsumeRandomLengthString(16);
        out.calls = in.ConsumeIntegral<std::uint64_t>();
        site.outcomes.push_back(out);
      }
      // The ring as detail::commit fills it.
      const auto cap = in.ConsumeIntegralInRange<std::size_t>(1, 6);
      const int calls = in.ConsumeIntegralInRange<int>(0, 20);
      std::vector<double> times;
      for (int i = 0; i < calls; ++i) {
        const double t = in.ConsumeFloatingPointInRange<double>(-1e3, 1e3);
        times.push_back(t);
        if (site.entries.size() < cap) {
          site.entries.push_back(t);
        } else {
          site.entries[static_cast<std::size_t>(site.calls % cap)] = t;
        }
        ++site.calls;
      }
      std::vector<double> kept(times.end() - static_cast<std::ptrdiff_t>(site.entries.size()), times.end());
      for (double& t : kept) t -= offset_at(s, t);
      model.kept.push_back(kept);
      r.sites.push_back(site);
    }
    s.comms.push_back(std::move(r));
  }
}

void round_trip(FuzzedDataProvider& in) {
  State s;
  Model model;
  build(in, s, model);
  const std::vector<std::byte> bytes = serialize(s, model.world);
  Merge m;
  m.base = in.ConsumeFloatingPointInRange<double>(-1e3, 1e3);
  merge(m, bytes);
  FUZZ_REQUIRE(m.clocks.size() == 1, "one clock per merge");
  const RankClock& clock = m.clocks[0];
  FUZZ_REQUIRE(clock.world == model.world && clock.broken == s.broken, "the rank and whether it broke");
  for (const auto& [got, sent] : {std::pair{&clock.first, &s.first}, std::pair{&clock.last, &s.last}}) {
    FUZZ_REQUIRE(got->measured == sent->measured && got->offset == sent->offset && got->round_trip == sent->round_trip,
                 "the clock offsets");
  }
  std::size_t g = 0;
  for (const CommRecord& c : s.comms) {
    for (const Site& site : c.sites) {
      FUZZ_REQUIRE(g < m.sites.size(), "a merged site per site sent");
      const GlobalSite& got = m.sites[g];
      const std::vector<double>& kept = model.kept[g];
      FUZZ_REQUIRE(
          got.comm_key == c.key && got.comm_name == c.name && got.inter == c.inter && got.world_ranks == c.world_ranks,
          "the site's communicator");
      FUZZ_REQUIRE(got.comm_size == (c.inter ? static_cast<int>(c.world_ranks.size()) : c.size),
                   "the communicator's size (both groups of an intercommunicator)");
      FUZZ_REQUIRE(got.kind == site.kind && got.bytes == site.bytes && got.root == site.root, "the site's key");
      FUZZ_REQUIRE(got.calls == site.calls && got.contributed == site.contributed, "calls and bytes");
      FUZZ_REQUIRE(got.consistent && !got.outcomes_differ, "one rank is consistent");
      FUZZ_REQUIRE(got.outcomes.size() == site.outcomes.size(), "the outcomes");
      for (std::size_t o = 0; o < site.outcomes.size(); ++o) {
        const Outcome& a = got.outcomes[o];
        const Outcome& b = site.outcomes[o];
        FUZZ_REQUIRE(a.mode == b.mode && a.requested == b.requested && a.ran == b.ran && a.calls == b.calls,
                     "an outcome");
      }
      FUZZ_REQUIRE(got.ranks.size() == 1, "one rank's statistics");
      const RankStat& st = got.ranks[0];
      FUZZ_REQUIRE(st.world == model.world && st.comm_rank == c.rank && st.calls == site.calls &&
                       st.wait_sum == site.wait_sum && st.wait_max == site.wait_max,
                   "the rank's statistics");
      FUZZ_REQUIRE(got.earliest == kept && got.latest == kept, "the kept entries, oldest first, on rank 0's clock");
      double sum = 0;
      for (const double t : kept) sum += t - m.base;
      FUZZ_REQUIRE(st.entry_sum == sum, "the entry sum from the base");
      FUZZ_REQUIRE(got.last_rank == std::vector<int>(kept.size(), model.world), "the only rank is the last in");
      ++g;
    }
  }
  FUZZ_REQUIRE(g == m.sites.size(), "no site but those sent");

  // The same records from another rank: a tie keeps the first as the last one in.
  const int other = model.world == 0 ? 1 : 0;
  merge(m, serialize(s, other));
  FUZZ_REQUIRE(m.clocks.size() == 2 && m.clocks[1].world == other, "a clock per rank");
  FUZZ_REQUIRE(g == m.sites.size(), "the same sites");
  for (std::size_t k = 0; k < m.sites.size(); ++k) {
    const GlobalSite& got = m.sites[k];
    FUZZ_REQUIRE(got.ranks.size() == 2 && got.ranks[1].world == other, "two ranks' statistics");
    FUZZ_REQUIRE(got.consistent && !got.outcomes_differ, "equal records are consistent");
    FUZZ_REQUIRE(got.earliest == model.kept[k] && got.latest == model.kept[k], "equal entries");
    FUZZ_REQUIRE(got.last_rank == std::vector<int>(model.kept[k].size(), model.world), "a tie keeps the first");
  }
}

void arbitrary(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(data),
                                     reinterpret_cast<const std::byte*>(data) + size);
  Merge m;
  try {
    merge(m, bytes);
  } catch (const ragged::Error& e) {
    const std::string_view head = "ragged pmpi report: ";
    FUZZ_REQUIRE(std::string_view(e.what()).substr(0, head.size()) == head, "a refusal says it is the report's");
    return;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a ragged::Error: %s\n", e.what());
    std::abort();
  }
  FUZZ_REQUIRE(m.clocks.size() == 1, "one clock per merge");
  for (const GlobalSite& g : m.sites) {
    FUZZ_REQUIRE(static_cast<std::size_t>(g.kind) < kind_names.size(), "a kind the report knows");
    for (const Outcome& o : g.outcomes) FUZZ_REQUIRE(o.mode <= Mode::rules, "a mode the report knows");
    FUZZ_REQUIRE(g.latest.size() == g.earliest.size() && g.last_rank.size() == g.earliest.size(),
                 "as many latest entries and last ranks as earliest");
    FUZZ_REQUIRE(!g.ranks.empty(), "a site comes from a rank");
    const std::string key = std::string(kind_names[static_cast<std::size_t>(g.kind)]);
    FUZZ_REQUIRE(!key.empty(), "the kind's name");
  }
  // Records followed by anything are refused.
  std::vector<std::byte> longer = bytes;
  longer.push_back(std::byte{0});
  Merge again;
  bool refused = false;
  try {
    merge(again, longer);
  } catch (const ragged::Error&) {
    refused = true;
  }
  FUZZ_REQUIRE(refused, "bytes past the records are refused");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  if (data[0] < 128) {
    FuzzedDataProvider in(data + 1, size - 1);
    round_trip(in);
  } else {
    arbitrary(data + 1, size - 1);
  }
  return 0;
}
