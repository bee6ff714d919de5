// ragged-bench select: `auto` against every registered algorithm of a collective, per message
// size, on one platform and P (docs/selection.md, "Deep clusters"). Each algorithm, and `auto`,
// runs `--warmup` unmeasured and `--iterations` measured calls after a barrier; a call's time is
// the slowest rank's, the cell's the mean over the calls. Results are checked after the last
// call. Rows: per (collective, size) auto's pick, its time, the fastest registered algorithm,
// its time and their ratio; with --detail one row per algorithm.
//
// Sizes are per rank: the vector of allreduce, bcast, reduce, scan and exscan; a rank's whole receive buffer
// of allgather and send buffer of alltoall and reduce_scatter_block, so their block is
// max(1, size / P) bytes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "harness.hpp"
#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"

namespace ragged::bench {

namespace {

struct SelectOptions {
  std::vector<std::string> collectives;
  std::vector<std::uint64_t> sizes;
  std::vector<std::string> algorithms;  // empty: every registered one of the collective
  int warmup = 1;
  int iterations = 2;
  bool check = true;
  bool detail = false;
  std::string spread = "ramp";  // allgatherv: how the bytes spread over the blocks
  bool no_progress = false;     // else a progress line on stderr, one step per (collective, size, algorithm)
};

/// allgatherv's block sizes for `total` bytes over `procs` ranks: "equal", "ramp" (rank r's
/// block r + 1 parts) or "one" (the middle rank holds everything).
std::vector<int> spread_counts(const std::string& spread, std::size_t total, int procs) {
  const auto p = static_cast<std::size_t>(procs);
  std::vector<int> counts(p, 0);
  if (spread == "one") {
    counts[p / 2] = static_cast<int>(total);
  } else if (spread == "ramp") {
    const std::size_t parts = p * (p + 1) / 2;
    for (std::size_t r = 0; r < p; ++r) counts[r] = static_cast<int>(total * (r + 1) / parts);
  } else {
    for (std::size_t r = 0; r < p; ++r) counts[r] = static_cast<int>(total / p);
  }
  return counts;
}

/// Byte i of rank r's send buffer.
std::byte pattern(int r, std::size_t i) { return static_cast<std::byte>((static_cast<std::size_t>(r) * 31 + i) % 251); }

/// What one rank runs for one (collective, size, algorithm): the buffers and the call.
class Cell {
 public:
  Cell(Comm& comm, Collective c, std::size_t bytes, const std::string& spread) : comm_(comm), c_(c) {
    const auto p = static_cast<std::size_t>(comm.size());
    const bool reduces = c == Collective::allreduce || c == Collective::reduce || c == Collective::scan ||
                         c == Collective::exscan || c == Collective::reduce_scatter_block ||
                         c == Collective::reduce_scatter;
    type_ = reduces ? DataType::float32 : DataType::byte;
    const std::size_t element = size_of(type_);
    const bool blocks =
        c == Collective::allgather || c == Collective::alltoall || c == Collective::reduce_scatter_block;
    count_ = std::max<std::size_t>(1, (blocks ? bytes / p : bytes) / element);
    const std::size_t total = blocks ? count_ * p : count_;
    in_.assign(total * element, std::byte{0});
    out_.assign((c == Collective::reduce_scatter_block ? count_ : total) * element, std::byte{0});
    if (c == Collective::allgatherv) {  // `bytes`: all the blocks, back to back in rank order
      counts_ = spread_counts(spread, bytes, comm.size());
      displs_.assign(counts_.size(), 0);
      std::exclusive_scan(counts_.begin(), counts_.end(), displs_.begin(), 0);
      in_.assign(static_cast<std::size_t>(counts_[static_cast<std::size_t>(comm.rank())]), std::byte{0});
      out_.assign(bytes, std::byte{0});
    }
    if (c == Collective::reduce_scatter) {  // `bytes`: the whole vector, its blocks spread as allgatherv's
      counts_ = spread_counts(spread, bytes / element, comm.size());
      displs_.assign(counts_.size(), 0);
      std::exclusive_scan(counts_.begin(), counts_.end(), displs_.begin(), 0);
      count_ = static_cast<std::size_t>(counts_[static_cast<std::size_t>(comm.rank())]);
      in_.assign(bytes / element * element, std::byte{0});
      out_.assign(count_ * element, std::byte{0});
    }
  }

  void fill() {
    const int r = comm_.rank();
    if (type_ == DataType::float32) {
      auto* f = reinterpret_cast<float*>(in_.data());
      for (std::size_t i = 0; i < in_.size() / 4; ++i) f[i] = static_cast<float>((r + static_cast<int>(i)) % 7);
    } else {
      for (std::size_t i = 0; i < in_.size(); ++i) in_[i] = pattern(r, i);
    }
    std::fill(out_.begin(), out_.end(), std::byte{0});
    if (c_ == Collective::bcast && r == 0) out_ = in_;
  }

  const Algorithm& run(const std::string& algorithm) {
    CollectiveOptions o;
    o.algorithm = algorithm;
    switch (c_) {
      case Collective::allreduce:
        return allreduce(comm_, in_.data(), out_.data(), count_, type_, ReduceOp::sum(), o);
      case Collective::reduce:
        return reduce(comm_, in_.data(), out_.data(), count_, type_, ReduceOp::sum(), 0, o);
      case Collective::bcast:
        return bcast(comm_, out_.data(), count_, type_, 0, o);
      case Collective::allgather:
        return allgather(comm_, in_.data(), out_.data(), count_, type_, o);
      case Collective::alltoall:
        return alltoall(comm_, in_.data(), out_.data(), count_, type_, o);
      case Collective::scan:
        return scan(comm_, in_.data(), out_.data(), count_, type_, ReduceOp::sum(), o);
      case Collective::exscan:
        return exscan(comm_, in_.data(), out_.data(), count_, type_, ReduceOp::sum(), o);
      case Collective::reduce_scatter_block:
        return reduce_scatter_block(comm_, in_.data(), out_.data(), count_, type_, ReduceOp::sum(), o);
      case Collective::allgatherv:
        return allgatherv(comm_, in_.data(), static_cast<int>(in_.size()), out_.data(), counts_, displs_, type_, o);
      case Collective::reduce_scatter:
        return reduce_scatter(comm_, in_.data(), out_.data(), counts_, type_, ReduceOp::sum(), o);
      default:
        throw InvalidArgument("--collectives", std::string(name_of(c_)) + " is not measured here");
    }
  }

  /// Checks this rank's result exactly.
  void verify(const std::string& algorithm) const {
    const int p = comm_.size();
    const int r = comm_.rank();
    const std::size_t element = size_of(type_);
    bool ok = true;
    const bool all_ranks = c_ != Collective::reduce || r == 0;
    if (type_ == DataType::float32 && all_ranks) {
      // the ranks whose operands the result sums: all (allreduce, reduce, reduce_scatter_block),
      // 0..r (scan), 0..r-1 (exscan); reduce_scatter_block's result is block r of the vector
      const int upto = c_ == Collective::scan ? r + 1 : c_ == Collective::exscan ? r : p;
      const std::size_t first = c_ == Collective::reduce_scatter_block ? static_cast<std::size_t>(r) * count_
                                : c_ == Collective::reduce_scatter
                                    ? static_cast<std::size_t>(displs_[static_cast<std::size_t>(r)])
                                    : 0;
      const auto* f = reinterpret_cast<const float*>(out_.data());
      for (std::size_t i = 0; i < count_ && ok && upto > 0; ++i) {
        float want = 0;
        for (int q = 0; q < upto; ++q) want += static_cast<float>((q + static_cast<int>(first + i)) % 7);
        ok = f[i] == want;
      }
    } else if (c_ == Collective::bcast) {
      for (std::size_t i = 0; i < out_.size() && ok; ++i) ok = out_[i] == pattern(0, i);
    } else if (c_ == Collective::allgather) {
      for (int q = 0; q < p && ok; ++q) {
        for (std::size_t i = 0; i < count_ && ok; ++i) {
          ok = out_[static_cast<std::size_t>(q) * count_ + i] == pattern(q, i);
        }
      }
    } else if (c_ == Collective::allgatherv) {
      for (std::size_t q = 0; q < counts_.size() && ok; ++q) {
        for (std::size_t i = 0; i < static_cast<std::size_t>(counts_[q]) && ok; ++i) {
          ok = out_[static_cast<std::size_t>(displs_[q]) + i] == pattern(static_cast<int>(q), i);
        }
      }
    } else if (c_ == Collective::alltoall) {
      // block r of rank q's send buffer: bytes [r count, (r + 1) count) of q's pattern
      for (int q = 0; q < p && ok; ++q) {
        for (std::size_t i = 0; i < count_ && ok; ++i) {
          const std::size_t at = static_cast<std::size_t>(r) * count_ + i;
          ok = out_[static_cast<std::size_t>(q) * count_ + i] == pattern(q, at);
        }
      }
    }
    (void)element;
    if (!ok) {
      throw Error("select: " + std::string(name_of(c_)) + " '" + algorithm + "' gave a wrong result on rank " +
                  std::to_string(r));
    }
  }

 private:
  Comm& comm_;
  Collective c_;
  DataType type_ = DataType::byte;
  std::size_t count_ = 0;
  std::vector<std::byte> in_;
  std::vector<std::byte> out_;
  std::vector<int> counts_;  // allgatherv
  std::vector<int> displs_;
};

/// The algorithms measured for `c`: the given ones, or every registered one that runs on the
/// backend, then "auto".
std::vector<std::string> candidates(Collective c, const SelectOptions& o, const std::string& backend) {
  std::vector<std::string> out;
  if (!o.algorithms.empty()) {
    for (const std::string& a : o.algorithms) {
      if (a != "auto" && Registry::instance().contains(c, a)) out.push_back(a);
    }
  } else {
    for (const Algorithm* a : Registry::instance().list(c, backend)) out.push_back(a->name);
  }
  out.emplace_back("auto");
  return out;
}

struct Measured {
  std::string collective;
  std::uint64_t bytes = 0;
  std::string algorithm;
  std::string selected;
  double time_s = 0;
  bool failed = false;  ///< the run failed (sim: e.g. more transfers in flight than the process can map)
};

std::string seconds_text(double s) { return human_seconds(s); }

Report run_select(const SelectOptions& o, const BackendOptions& b) {
  std::vector<Collective> collectives;
  for (const std::string& name : o.collectives) {
    const Collective c = parse_collective(name);
    if (c != Collective::allreduce && c != Collective::reduce && c != Collective::bcast && c != Collective::allgather &&
        c != Collective::alltoall && c != Collective::scan && c != Collective::exscan &&
        c != Collective::reduce_scatter_block && c != Collective::allgatherv && c != Collective::reduce_scatter) {
      throw InvalidArgument("--collectives", name +
                                                 " is not one of allreduce, allgather, bcast, reduce, alltoall, scan, "
                                                 "exscan, reduce_scatter_block, allgatherv, reduce_scatter");
    }
    collectives.push_back(c);
  }
  std::vector<Measured> results;
  std::string layout_text;
  int procs = 0;
  // What runs: every (collective, size, algorithm), each in a run of its own, so that on sim a run
  // the simulator cannot carry (World::transfer's budget of actors) fails alone, as a row.
  struct Job {
    Collective c;
    std::uint64_t size;
    std::string algorithm;
  };
  std::vector<Job> jobs;
  run_ranks(b, [&](Comm& comm) {
    // Every process of an mpi job runs every job; on sim the ranks share this one.
    if (comm.rank() != 0 && b.backend == "sim") return;
    for (const Collective c : collectives) {
      for (const std::uint64_t size : o.sizes) {
        for (const std::string& algorithm : candidates(c, o, comm.backend())) jobs.push_back({c, size, algorithm});
      }
    }
    if (comm.rank() != 0) return;
    layout_text = layout_of(comm, Hints{})->describe();
    procs = comm.size();
  });
  const ProgressBar bar(jobs.size(), !o.no_progress && !layout_text.empty(), "runs");
  for (std::size_t done = 0; done < jobs.size(); ++done) {
    const Job& job = jobs[done];
    const std::string what = std::string(name_of(job.c)) + " " + std::to_string(job.size) + " B " + job.algorithm;
    bar.show(done, what);
    Measured measured{name_of(job.c), job.size, job.algorithm, "", 0};
    try {
      run_ranks(b, [&](Comm& comm) {
        Cell cell(comm, job.c, static_cast<std::size_t>(job.size), o.spread);
        std::string selected;
        const auto samples = timed_loop<double>(comm, TimedLoop<double>{.warmup = o.warmup,
                                                                        .iterations = o.iterations,
                                                                        .prepare = [&](int) { cell.fill(); },
                                                                        .start = {},
                                                                        .body =
                                                                            [&](int, double start) {
                                                                              const Algorithm& ran =
                                                                                  cell.run(job.algorithm);
                                                                              selected = ran.name;
                                                                              return comm.runtime().now() - start;
                                                                            },
                                                                        .verify =
                                                                            [&](int) {
                                                                              if (o.check) cell.verify(job.algorithm);
                                                                            },
                                                                        .verify_on = VerifyOn::last_round});
        const auto all = collect_to_root(comm, 30000, samples, samples.size());
        if (comm.rank() != 0) return;
        double sum = 0;
        for (std::size_t i = 0; i < samples.size(); ++i) {
          double slowest = 0;
          for (const auto& rank : all) slowest = std::max(slowest, rank[i]);
          sum += slowest;
        }
        measured.selected = selected;
        measured.time_s = sum / static_cast<double>(samples.size());
      });
    } catch (const Error& e) {
      if (b.backend != "sim") throw;  // an mpi job's ranks would part ways
      std::fprintf(stderr, "\nselect: %s failed: %s\n", what.c_str(), e.what());
      measured.failed = true;
    }
    if (!layout_text.empty()) results.push_back(std::move(measured));
    bar.show(done + 1, what);
  }
  Report report;
  report.experiment = "select";
  report.metadata = {
      {"backend", b.backend},  {"platform", platform_label(b)},      {"procs", std::to_string(procs)},
      {"layout", layout_text}, {"warmup", std::to_string(o.warmup)}, {"iterations", std::to_string(o.iterations)},
      {"spread", o.spread}};
  if (o.detail) {
    for (const Measured& m : results) {
      Row row;
      row.set("collective", m.collective)
          .set("bytes", static_cast<std::int64_t>(m.bytes))
          .set("algorithm", m.algorithm)
          .set("selected", m.failed ? "failed" : m.selected)
          .set("time_s", m.failed ? std::numeric_limits<double>::quiet_NaN() : m.time_s)
          .set("time", m.failed ? std::string("failed (see stderr)") : seconds_text(m.time_s));
      report.rows.push_back(std::move(row));
    }
    return report;
  }
  for (std::size_t i = 0; i < results.size();) {
    std::size_t j = i;
    const Measured* best = nullptr;
    const Measured* pick = nullptr;
    while (j < results.size() && results[j].collective == results[i].collective &&
           results[j].bytes == results[i].bytes) {
      if (results[j].failed) {
        // not measured: neither auto's time nor a candidate for the best
      } else if (results[j].algorithm == "auto") {
        pick = &results[j];
      } else if (best == nullptr || results[j].time_s < best->time_s) {
        best = &results[j];
      }
      ++j;
    }
    if (pick != nullptr && best != nullptr) {
      Row row;
      row.set("collective", results[i].collective)
          .set("bytes", static_cast<std::int64_t>(results[i].bytes))
          .set("auto", pick->selected)
          .set("auto_s", pick->time_s)
          .set("best", best->algorithm == best->selected ? best->algorithm : best->algorithm + "->" + best->selected)
          .set("best_s", best->time_s)
          .set("ratio", best->time_s > 0 ? pick->time_s / best->time_s : 1.0);
      report.rows.push_back(std::move(row));
    }
    i = j;
  }
  return report;
}

}  // namespace

CLI::App* add_select_command(CLI::App& app, Common& common, Runner& chosen) {
  Command cmd(app, "select", "auto against every registered algorithm, per collective and size (docs/selection.md)",
              common);
  auto o = std::make_shared<SelectOptions>();
  cmd.list("--collectives", o->collectives, "allreduce,allgather,bcast,reduce,alltoall", "collectives to measure");
  cmd.counts("--sizes", o->sizes, "8,64Ki,1Mi",
             "bytes per rank: the vector (allreduce, bcast, reduce, scan, exscan), a rank's whole buffer (allgather, "
             "alltoall, reduce_scatter_block, allgatherv, reduce_scatter: all the blocks)");
  cmd.list("--algorithms", o->algorithms, "", "algorithms to measure besides auto (default: every registered one)");
  cmd->add_option("--warmup", o->warmup, "unmeasured calls per algorithm")->capture_default_str();
  cmd->add_option("--iterations", o->iterations, "measured calls per algorithm")->capture_default_str();
  cmd->add_option("--spread", o->spread,
                  "allgatherv, reduce_scatter: block sizes equal, ramp (rank r: r + 1 parts) or one (one rank)")
      ->check(CLI::IsMember({"equal", "ramp", "one"}))
      ->capture_default_str();
  cmd->add_flag("--detail", o->detail, "one row per algorithm instead of one per (collective, size)");
  cmd.no_check(o->check, "skip the exact check of the last call's result");
  cmd->add_flag("--no-progress", o->no_progress, "no progress line on stderr");
  cmd.runs(chosen, [o](const BackendOptions& backend) { return run_select(*o, backend); });
  return cmd.app();
}

}  // namespace ragged::bench
