// Internals of RAGGED_REPORT (report.hpp, docs/pmpi.md "Report") shared by its three parts:
// report_record.cpp (per-call recording), report_merge.cpp (clock synchronisation and merging
// the ranks' records on rank 0) and report_write.cpp (the JSON report and the table).
//
// While the program runs, each rank records per call site: calls, bytes, the sum and maximum of
// its waits (entry to exit of the MPI call), the algorithms that ran and how the environment
// chose them, and the entry times of the site's last `cap` calls (a ring). At MPI_Finalize, over
// a private copy of MPI_COMM_WORLD and with PMPI and the mpi backend's point-to-point only:
//   1. every rank measures its clock's offset to rank 0 (measure_clock_offset; also done at
//      MPI_Init, and the offset is interpolated between the two);
//   2. the ranks measure the link model (measure_link, 0 and 64 KiB ping-pongs);
//   3. each rank sends its records, entry times on rank 0's clock, to rank 0, one rank after the
//      other; rank 0 merges them as they come (per call: earliest and latest entry, who was
//      last), so it never holds more than one rank's records besides its own and the merge;
//   4. rank 0 writes the JSON report and prints the table on stderr.
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "ragged/arrival.hpp"
#include "ragged/comm.hpp"
#include "ragged/mpi.hpp"
#include "report.hpp"
#include "settings.hpp"

namespace ragged::pmpi::report {

using Json = nlohmann::ordered_json;
using mpi::check;

inline constexpr std::size_t default_cap = 100000;          ///< entry times kept per site (RAGGED_REPORT_CALLS)
inline constexpr std::size_t max_cap = max_report_calls;    ///< RAGGED_REPORT_CALLS at most (settings.hpp)
inline constexpr int clock_rounds = 20;                     ///< ping-pongs per rank and clock measurement
inline constexpr std::size_t link_probe = 64 * 1024;        ///< measure_link's probe
inline constexpr int link_rounds = 5;                       ///< measure_link's rounds of the probe
inline constexpr std::size_t chunk = std::size_t{1} << 30;  ///< largest message of the gathering
// Tags on the private communicator (nothing else uses it).
inline constexpr int tag_clock = 1;
inline constexpr int tag_link = 2;  // and 3
inline constexpr int tag_size = 4;
inline constexpr int tag_data = 5;

inline constexpr std::array<const char*, 51> kind_names = {"allgather",
                                                           "allgatherv",
                                                           "allreduce",
                                                           "alltoall",
                                                           "alltoallv",
                                                           "bcast",
                                                           "reduce",
                                                           "gather",
                                                           "gatherv",
                                                           "scatter",
                                                           "scatterv",
                                                           "barrier",
                                                           "scan",
                                                           "exscan",
                                                           "reduce_scatter_block",
                                                           "reduce_scatter",
                                                           "alltoallw",
                                                           "iallgather",
                                                           "iallgatherv",
                                                           "iallreduce",
                                                           "ialltoall",
                                                           "ialltoallv",
                                                           "ibcast",
                                                           "ireduce",
                                                           "igather",
                                                           "igatherv",
                                                           "iscatter",
                                                           "iscatterv",
                                                           "ibarrier",
                                                           "iscan",
                                                           "iexscan",
                                                           "ireduce_scatter_block",
                                                           "ireduce_scatter",
                                                           "ialltoallw",
                                                           "allgather_init",
                                                           "allgatherv_init",
                                                           "allreduce_init",
                                                           "alltoall_init",
                                                           "alltoallv_init",
                                                           "bcast_init",
                                                           "reduce_init",
                                                           "gather_init",
                                                           "gatherv_init",
                                                           "scatter_init",
                                                           "scatterv_init",
                                                           "barrier_init",
                                                           "scan_init",
                                                           "exscan_init",
                                                           "reduce_scatter_block_init",
                                                           "reduce_scatter_init",
                                                           "alltoallw_init"};

// ---------------------------------------------------------------------------- per rank

/// What ran, as the environment asked for it: one entry per distinct outcome of a site.
struct Outcome {
  Mode mode = Mode::unset;
  std::string requested;  ///< the variable's value (the rules file for Mode::rules)
  std::string ran;        ///< ragged_pmpi_last_algorithm() after the call
  std::uint64_t calls = 0;
};

struct SiteKey {
  Kind kind;
  long long bytes;
  int root;
  bool operator==(const SiteKey&) const = default;
};

struct Site {
  Kind kind = Kind::barrier;
  long long bytes = -1;
  int root = -1;
  std::uint64_t calls = 0;
  std::uint64_t contributed = 0;
  double wait_sum = 0;
  double wait_max = 0;
  std::vector<Outcome> outcomes;
  std::vector<double> entries;  ///< entry times of the last `cap` calls; call c at c % cap
  [[nodiscard]] SiteKey key() const { return SiteKey{kind, bytes, root}; }
};
struct SiteKeyHash {
  std::size_t operator()(const SiteKey& k) const noexcept {
    return std::hash<long long>()(k.bytes) * 31U + static_cast<std::size_t>(k.kind) * 7U +
           static_cast<std::size_t>(k.root + 1);
  }
};

/// One communicator, as first seen by a recorded call. Kept (with its sites) after the program
/// frees it; a new communicator that gets the freed handle gets a new record.
struct CommRecord {
  std::string key;   ///< the same on every rank: group (world ranks) and ordinal among same-group comms
  std::string name;  ///< MPI_COMM_WORLD, MPI_COMM_SELF, or MPI_Comm_get_name's
  int rank = 0;
  int size = 1;
  int remote = 1;  ///< the remote group's size (intercommunicators), else size
  bool inter = false;
  std::vector<int> world_ranks;  ///< comm rank -> world rank (intercommunicators: both groups, sorted)
  std::unordered_map<SiteKey, std::size_t, SiteKeyHash> index;
  std::vector<Site> sites;    ///< in order of first call
  std::size_t last_site = 0;  ///< the site of the last call (most calls repeat it)
};

struct Offset {
  bool measured = false;
  double at = 0;  ///< local time of the measurement
  double offset = 0;
  double round_trip = 0;
};

struct State {
  std::mutex mutex;  // guards everything below
  std::string path;
  std::size_t cap = default_cap;
  bool said_cap = false;  ///< a bad RAGGED_REPORT_CALLS was said (it is read at load and at MPI_Init)
  bool broken = false;    ///< recording failed here: the rank still takes part in the gathering
  bool finished = false;  ///< MPI_Finalize gathered the records
  std::deque<CommRecord> comms;
  std::unordered_map<MPI_Comm, std::size_t> live;  ///< handle -> comms index, until freed
  std::map<std::string, int> ordinals;             ///< group key -> communicators seen with it
  MPI_Comm cached = MPI_COMM_NULL;
  std::size_t cached_index = 0;
  int keyval = MPI_KEYVAL_INVALID;
  std::unique_ptr<Comm> comm;  ///< private copy of MPI_COMM_WORLD
  Offset first;                ///< at MPI_Init
  Offset last;                 ///< at MPI_Finalize
};

/// The process's recording state (never destroyed: MPI may call the keyval's delete callback
/// during exit).
State& state();

/// This rank's clock minus rank 0's at local time t: interpolated between the measurements at
/// MPI_Init and at MPI_Finalize (drift), or the one at MPI_Finalize.
[[nodiscard]] double offset_at(const State& s, double t);
/// Measures this rank's clock offset to rank 0 (collective over `comm`).
[[nodiscard]] Offset measure_offset(Comm& comm);

/// This rank's records, entry times on rank 0's clock, oldest kept call first.
[[nodiscard]] std::vector<std::byte> serialize(const State& s, int world_rank);
/// Sends serialize()'s bytes to rank 0 of `comm`, in pieces of at most `chunk` bytes.
void send_bytes(const std::vector<std::byte>& bytes, MPI_Comm comm);
/// Receives what rank `source` of `comm` sent with send_bytes.
[[nodiscard]] std::vector<std::byte> receive_bytes(int source, MPI_Comm comm);

// ------------------------------------------------------------------ rank 0: merge

struct RankStat {
  int world = -1;
  int comm_rank = -1;
  std::uint64_t calls = 0;
  double wait_sum = 0;
  double wait_max = 0;
  std::uint64_t last = 0;  ///< calls this rank entered last
  double entry_sum = 0;    ///< sum of its kept entry times minus the base
};

struct GlobalSite {
  std::string comm_key;
  std::string comm_name;
  int comm_size = 0;
  bool inter = false;
  std::vector<int> world_ranks;
  Kind kind = Kind::barrier;
  long long bytes = -1;
  int root = -1;
  std::uint64_t calls = 0;
  std::uint64_t contributed = 0;
  bool consistent = true;  ///< every rank saw the same number of calls and kept as many
  bool outcomes_differ = false;
  std::vector<Outcome> outcomes;  ///< the first reporting rank's (the lowest world rank)
  std::vector<RankStat> ranks;
  std::vector<double> earliest;  ///< per kept call
  std::vector<double> latest;
  std::vector<int> last_rank;  ///< world rank that entered last
};

struct RankClock {
  int world = -1;
  bool broken = false;
  Offset first;
  Offset last;
};

struct Merge {
  std::vector<GlobalSite> sites;
  std::unordered_map<std::string, std::size_t> index;
  std::vector<RankClock> clocks;
  double base = 0;  ///< rank 0's clock at MPI_Finalize: entry sums are relative to it
};

/// Adds one rank's serialized records to `m`.
void merge(Merge& m, const std::vector<std::byte>& bytes);

/// Rank 0: writes the JSON report to s.path and prints the table on stderr.
void write_report(Merge& m, const LinkModel& link, const State& s, int world_size);

}  // namespace ragged::pmpi::report
