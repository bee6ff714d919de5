// ragged: how a collective call chooses its algorithm (docs/selection.md).
//
//   1. the call's own name (CollectiveOptions::algorithm), unless empty or "auto";
//   2. else RAGGED_<COLLECTIVE> from the environment (RAGGED_ALLGATHER=bgd), unless "auto";
//   3. else the first matching rule of the JSON file named by RAGGED_TUNING_FILE;
//   4. else "auto": the arrival-aware algorithm with the least cost model when the call has an
//      arrival snapshot that is imbalanced (omega / tau >= 1, Proficz 2021, §2), otherwise the regular
//      algorithm with the least alpha-beta cost.
// A chosen algorithm whose restrictions fail runs its fallback instead, said once per
// communicator. Every input is one that all ranks share (the environment and the rules file
// are the same on every rank under mpirun; sizes, the operator and the hints are the call's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ragged/error.hpp"
#include "ragged/registry.hpp"

namespace ragged {

struct NodeLayout;
struct NetworkModel;

/// What selection sees of a call.
struct CallInfo {
  Collective collective = Collective::allgather;
  int procs = 1;
  /// Bytes of one block (allgather, gather, scatter, alltoall) or of the vector (allreduce, bcast,
  /// reduce) or of all blocks (allgatherv, reduce_scatter_block); 0 for gatherv, scatterv,
  /// alltoallv, whose sizes the ranks do not share.
  std::size_t bytes = 0;
  /// allgatherv and reduce_scatter: the bytes of the largest block (0 for the other collectives).
  std::size_t largest = 0;
  bool commutative = true;  ///< the reduction operator's (reductions only)
  /// The size of one element of a reduction's datatype, bytes (0: unknown, taken as 4): with the
  /// network's NetworkModel::reduce_element it gives the cost models' gamma per byte.
  std::size_t element_bytes = 0;
  const Hints* hints = nullptr;
  std::string backend;  ///< the Comm's ("sim", "mpi")
  bool windows = true;  ///< the Comm can create windows (Comm::has_windows(); a SubComm cannot)
  /// A part of another algorithm (dispatch_bcast() in src/core/dispatch/compose.hpp): every rank
  /// is already inside the enclosing call, so `auto` chooses among the regular algorithms and
  /// takes only the link model from an arrival snapshot among the hints.
  bool sub_call = false;
  /// A bcast whose root buffer still fills while it runs (a SourceProgress hint, allgather lnbc):
  /// `auto` takes the source to fill as a linear gather at the link's rate, F = (P-1)(alpha +
  /// m/P beta), and weighs an algorithm that streams its source by what it adds to F,
  /// max(T - F, its time after the last byte is in (CostInput::source_fills)); any other by its
  /// whole time T, which starts only after F.
  bool source_fills = false;
  /// The backend's largest message (Comm::max_message_bytes()): a call that moves more in all
  /// (a block collective's P blocks, or the vector) runs the backend's "native" algorithm, where
  /// it has one, whatever was asked for: algorithms combine blocks into larger messages.
  std::size_t max_message_bytes = static_cast<std::size_t>(-1);
  /// Which ranks share a node (Context::layout(): a hint, RAGGED_LAYOUT or the Comm's), and what
  /// the backend knows of its links; null: one rank per node, links unknown.
  std::shared_ptr<const NodeLayout> layout;
  std::shared_ptr<const NetworkModel> network;
};

/// Dispatch's choice for one call. select() makes it once; a caller that must know it before
/// the call (the PMPI library: ragged or the MPI library?) hands it to the collective through
/// CollectiveOptions::selection, and dispatch runs it without choosing again.
struct Selection {
  const Algorithm* algorithm = nullptr;  ///< what runs
  std::string requested;                 ///< the name asked for (after the environment and rules), or "auto"
  std::string source;                    ///< "call", "environment", "rules", "auto"
  std::string fallback_reason;           ///< non-empty when `algorithm` is a fallback for `requested`
};

/// What a call asks for before any algorithm is chosen: the call's own name, else
/// RAGGED_<COLLECTIVE>, else the first matching rule of RAGGED_TUNING_FILE, else "auto"
/// (steps 1-3 above). `name` is empty only when nothing asks for anything ("auto" then).
struct Requested {
  std::string name;    ///< a registry name, "auto", or empty (nothing set: "auto")
  std::string source;  ///< "call", "environment", "rules", "auto"
};

/// Resolves what `call` asks for (`requested` is CollectiveOptions::algorithm). Reads the
/// environment and the rules file as the process first saw them (environment()). Throws Error
/// naming the file, line and field for a malformed rules file. Chooses nothing.
[[nodiscard]] Requested resolve_request(const CallInfo& call, std::string_view requested);

/// Chooses the algorithm for `call` (dispatch's selector, steps 1-4 above); `requested` is
/// CollectiveOptions::algorithm. Throws InvalidArgument("algorithm") for an unknown name or one
/// not available on the backend, and Error naming the file, line and field for a malformed rules
/// file. Every call of a collective runs it exactly once (selections() counts them).
[[nodiscard]] Selection select(const CallInfo& call, std::string_view requested = {});
/// The same for a request already resolved (resolve_request()): a caller that must look at what
/// was asked before selecting (the PMPI library fetches an arrival snapshot only for `auto`).
[[nodiscard]] Selection select(const CallInfo& call, const Requested& requested);

/// How many times select() ran in this process (for tests that prove one selection per call).
[[nodiscard]] std::uint64_t selections() noexcept;

/// The name of the environment variable that forces an algorithm of `collective` (RAGGED_ALLGATHER).
[[nodiscard]] std::string environment_variable(Collective collective);

/// The RAGGED_* settings that selection reads, as the process saw them at its first collective:
/// the environment is read once per process, not per call.
struct Environment {
  /// RAGGED_<COLLECTIVE> per collective (indexed by Collective), empty where unset or empty.
  std::vector<std::string> forced;
  std::string rules_file;  ///< RAGGED_TUNING_FILE, empty where unset
  /// Every RAGGED_* variable, by name, as set (the PMPI library's RAGGED_BARRIER, RAGGED_ARRIVAL, ...).
  std::map<std::string, std::string, std::less<>> all;
  [[nodiscard]] const std::string& forced_for(Collective collective) const {
    return forced[static_cast<std::size_t>(collective)];
  }
  /// The value of RAGGED_* variable `name`, or null where unset.
  [[nodiscard]] const std::string* find(std::string_view name) const {
    const auto it = all.find(name);
    return it == all.end() ? nullptr : &it->second;
  }
};

/// The settings, read at the first use. Thread-safe.
[[nodiscard]] const Environment& environment();

/// Reads the environment again (a program or test that changes RAGGED_* after its first
/// collective calls this; collectives running meanwhile see the old or the new settings).
void reread_environment();

/// The largest rules file ragged reads (1 MiB); a larger one is refused before it is read.
inline constexpr std::uint64_t max_rules_file_bytes = std::uint64_t{1} << 20;

/// Why the rules file `file` cannot be used (it is not a regular file, it is larger than
/// max_rules_file_bytes, it does not parse, ...), or null if it can. The file is read and parsed
/// once per process, the first time a selection or this function asks; a file that failed is
/// not read again, so a caller can fall back at once (the PMPI library runs natively).
[[nodiscard]] const ConfigError* rules_file_error(const std::string& file);

/// One rule of a rules file: communicator sizes [min_procs, max_procs] and message bytes
/// [min_bytes, max_bytes] (inclusive) of one collective run `algorithm`.
struct TuningRule {
  Collective collective = Collective::allgather;
  int min_procs = 1;
  int max_procs = 1 << 30;
  std::size_t min_bytes = 0;
  std::size_t max_bytes = static_cast<std::size_t>(-1);
  std::string algorithm;
  int line = 0;  ///< where it stands in its file
};

/// Parses a rules file's text (`file` names it in errors). Format (docs/selection.md):
///   {"allreduce": [{"procs": [1, 8], "bytes": [0, 65536], "algorithm": "recursive_doubling"},
///                  {"algorithm": "ring"}], "allgather": [...]}
/// Throws Error("<file>:<line>: field '<field>': <why>") for anything malformed, including an
/// algorithm name the registry does not know.
[[nodiscard]] std::vector<TuningRule> parse_tuning_rules(std::string_view text, const std::string& file);

/// The algorithm of the first rule matching (collective, procs, bytes), or empty.
[[nodiscard]] std::string match_tuning_rule(const std::vector<TuningRule>& rules, Collective collective, int procs,
                                            std::size_t bytes);

}  // namespace ragged
