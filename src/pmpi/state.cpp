// libragged_pmpi.so: process state, the keyval that hangs ragged's Comm on each communicator,
// routing by environment, and the mapping of failures to MPI error classes.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "pmpi.hpp"
#include "ragged/arrival.hpp"
#include "ragged/mpi.hpp"
#include "ragged/selection.hpp"
#include "settings.hpp"
#include "site_prediction.hpp"

namespace ragged::pmpi {

namespace {

/// What the library keeps for the whole process. Never destroyed: a delete callback or a
/// collective may run while static destructors do.
struct Globals {
  std::once_flag initialized;
  std::mutex mutex;  // guards the members below
  std::unordered_set<CommAttribute*> live;
  std::set<std::string> said;
  int keyval = MPI_KEYVAL_INVALID;
  std::atomic<int> world_rank{-1};
  std::atomic<bool> pack_raw{false};
  std::atomic<bool> settings_differ{false};  ///< agree_on_settings() found ranks that differ
};

Globals& globals() {
  static auto* g = new Globals();
  return *g;
}

/// The keyval's delete callback: the program freed the communicator (or MPI_Finalize runs).
/// Destroying the state frees ragged's private communicator, which MPI allows here.
int delete_state(MPI_Comm /*comm*/, int /*keyval*/, void* value, void* /*extra*/) {
  auto* state = static_cast<CommAttribute*>(value);
  {
    const std::lock_guard<std::mutex> lock(globals().mutex);
    globals().live.erase(state);
  }
  delete state;
  return MPI_SUCCESS;
}

/// MPI_Pack of a type with a hole ({char at 0, int at 4}) must give the 5 data bytes of each
/// element back to back: then packing any derived datatype gives the raw bytes of its type map,
/// which is what a rank with a predefined type sends for the same type signature.
bool check_pack_is_raw() {
  struct Element {
    char c;
    int i;
  };
  int lengths[2] = {1, 1};
  MPI_Aint displacements[2] = {static_cast<MPI_Aint>(offsetof(Element, c)),
                               static_cast<MPI_Aint>(offsetof(Element, i))};
  MPI_Datatype types[2] = {MPI_CHAR, MPI_INT};
  MPI_Datatype element = MPI_DATATYPE_NULL;
  if (PMPI_Type_create_struct(2, lengths, displacements, types, &element) != MPI_SUCCESS) return false;
  MPI_Datatype resized = MPI_DATATYPE_NULL;
  PMPI_Type_create_resized(element, 0, static_cast<MPI_Aint>(sizeof(Element)), &resized);
  PMPI_Type_free(&element);
  PMPI_Type_commit(&resized);
  const Element in[2] = {{'a', 0x01020304}, {'b', 0x05060708}};
  unsigned char out[32] = {};
  int position = 0;
  const int rc = PMPI_Pack(in, 2, resized, out, static_cast<int>(sizeof out), &position, MPI_COMM_SELF);
  PMPI_Type_free(&resized);
  unsigned char want[10];
  std::memcpy(want, &in[0].c, 1);
  std::memcpy(want + 1, &in[0].i, 4);
  std::memcpy(want + 5, &in[1].c, 1);
  std::memcpy(want + 6, &in[1].i, 4);
  return rc == MPI_SUCCESS && position == 10 && std::memcmp(out, want, sizeof want) == 0;
}

thread_local std::string last_outcome = "none";

/// The RAGGED_* variables that may differ between ranks without changing what any rank selects.
bool rank_local(std::string_view name) {
  return name == "RAGGED_REPORT" || name == "RAGGED_REPORT_CALLS" || name == "RAGGED_PLATFORM_PATH" ||
         name == "RAGGED_TUNING_FILE";  // its content counts, not its path
}

/// FNV-1a, 64 bits, over `text` and a separator.
void mix(std::uint64_t& h, std::string_view text) {
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  h ^= 0xffU;
  h *= 1099511628211ULL;
}

/// A digest of what selection reads: every RAGGED_* variable of the settings snapshot `env` (but
/// the rank-local ones), in name order, and the rules file's content, or its failure.
std::uint64_t settings_digest(const Environment& env, std::string& shown) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const auto& [name, value] : env.all) {  // a std::map: sorted by name
    if (rank_local(name)) continue;
    const std::string setting = name + "=" + value;
    mix(h, setting);
    shown += (shown.empty() ? "" : " ") + setting;
  }
  if (const std::string& file = env.rules_file; !file.empty()) {
    if (const ConfigError* error = rules_file_error(file); error != nullptr) {
      mix(h, std::string("rules file failed: ") + error->what());
      shown += std::string(shown.empty() ? "" : " ") + "RAGGED_TUNING_FILE (cannot be used)";
    } else {
      std::ifstream in(file, std::ios::binary);  // a regular file of at most 1 MiB: rules_file_error read it
      std::stringstream text;
      text << in.rdbuf();
      mix(h, std::string("rules file: ") + text.str());
      shown += std::string(shown.empty() ? "" : " ") + "RAGGED_TUNING_FILE (its content)";
    }
  }
  return h;
}

}  // namespace

void agree_on_settings(const char* caller) {
  // The settings snapshot every collective selects from, taken now: what a rank sets with setenv
  // later changes nothing until every rank calls ragged_pmpi_reread_environment(), which
  // compares again.
  ragged::reread_environment();
  Globals& g = globals();
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) return;
  std::string shown;
  const std::uint64_t mine = settings_digest(ragged::environment(), shown);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
  std::uint64_t sent = mine;
  MPI_Request request = MPI_REQUEST_NULL;
  if (PMPI_Iallgather(&sent, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD, &request) != MPI_SUCCESS) {
    return;
  }
  if (const Timeout limit = call_timeout(); !limit) {
    PMPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {  // RAGGED_TIMEOUT bounds it too: a rank that never comes must not hang the others
    const double deadline = PMPI_Wtime() + *limit;
    for (int done = 0; done == 0;) {
      PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done == 0 && PMPI_Wtime() > deadline) {
        const std::string what =
            "RAGGED_TIMEOUT ran out: comparing the ranks' RAGGED_* settings: not every rank of "
            "MPI_COMM_WORLD came within " +
            std::to_string(*limit) + " s";
        raise_error(MPI_COMM_WORLD, what.c_str(), caller, MPI_ERR_OTHER);
        return;  // the request stays: MPI_COMM_WORLD's handler (fatal by default) ended the job
      }
      if (done == 0) std::this_thread::yield();
    }
  }
  std::string differ;
  for (int r = 1; r < size; ++r) {
    if (all[static_cast<std::size_t>(r)] != all[0]) differ += (differ.empty() ? "" : ", ") + std::to_string(r);
  }
  g.settings_differ = !differ.empty();
  if (differ.empty()) return;
  say_once("settings differ: " + shown,
           "ragged pmpi: the ranks' RAGGED_* settings or rules files differ (rank(s) " + differ +
               " from rank 0; this rank has: " + (shown.empty() ? "none" : shown) +
               "): they could select different algorithms and hang, so every collective runs natively");
}

Timeout call_timeout() {
  static const Timeout value = []() -> Timeout {
    const std::string* set = ragged::environment().find("RAGGED_TIMEOUT");  // read once per process
    if (set == nullptr || set->empty()) return {};
    if (const std::optional<double> seconds = parse_timeout(set->c_str())) return *seconds;
    say_once("RAGGED_TIMEOUT=" + *set,
             "ragged pmpi: RAGGED_TIMEOUT='" + *set +
                 "' is not a number of seconds in (0, 86400]: collectives wait without a timeout");
    return {};
  }();
  return value;
}

bool settings_differ() { return globals().settings_differ.load(std::memory_order_relaxed); }

void ensure_initialized() {
  Globals& g = globals();
  std::call_once(g.initialized, [&g] {
    mpi::register_native_algorithms();
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const bool raw = check_pack_is_raw();
    int keyval = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &delete_state, &keyval, nullptr) != MPI_SUCCESS) {
      throw Error("ragged pmpi: MPI_Comm_create_keyval failed");
    }
    const std::lock_guard<std::mutex> lock(g.mutex);
    g.world_rank = rank;
    g.pack_raw = raw;
    g.keyval = keyval;
  });
}

void after_init(int provided) {
  try {
    ensure_initialized();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ragged pmpi: %s\n", e.what());
    return;
  }
  if (raise_thread_level() && provided < MPI_THREAD_MULTIPLE) {
    say_once("thread level",
             std::string("ragged pmpi: MPI granted ") + mpi::thread_level_name(provided) +
                 ", not MPI_THREAD_MULTIPLE: ragged's collectives run on the calling thread only, and the "
                 "arrival-aware algorithms will have no arrival agent (they run their regular form)");
  }
}

void before_finalize() {
  Globals& g = globals();
  std::vector<CommAttribute*> states;
  int keyval = MPI_KEYVAL_INVALID;
  {
    const std::lock_guard<std::mutex> lock(g.mutex);
    states.assign(g.live.begin(), g.live.end());
    keyval = g.keyval;
    g.keyval = MPI_KEYVAL_INVALID;
  }
  if (keyval == MPI_KEYVAL_INVALID) return;
  // The arrival monitors first, all of them in the order they were made (their agents talk to
  // each other until every one is told to stop), then the states.
  pat_before_finalize();  // the program's PAT monitor, if it did not stop it
  prediction::finalize_all();
  // Communicators the program did not free: their delete callbacks run now, while MPI works.
  for (CommAttribute* state : states) PMPI_Comm_delete_attr(state->user, keyval);
  PMPI_Comm_free_keyval(&keyval);
}

bool raise_thread_level() {
  const char* value = std::getenv("RAGGED_PMPI_THREAD_MULTIPLE");
  return value == nullptr || std::strcmp(value, "0") != 0;
}

bool pack_is_raw() { return globals().pack_raw.load(); }

int world_rank() { return globals().world_rank.load(); }

void say_once(const std::string& key, const std::string& text) {
  Globals& g = globals();
  {
    const std::lock_guard<std::mutex> lock(g.mutex);
    if (!g.said.insert(key).second) return;
  }
  // Every rank says it, naming itself: the rank whose rules file differs, or whose environment
  // differs, may not be rank 0.
  std::fprintf(stderr, "[rank %d] %s (said once)\n", g.world_rank.load(), text.c_str());
  std::fflush(stderr);
}

CommAttribute& state_of(MPI_Comm comm) {
  Globals& g = globals();
  int keyval = MPI_KEYVAL_INVALID;
  {
    const std::lock_guard<std::mutex> lock(g.mutex);
    keyval = g.keyval;
  }
  if (keyval == MPI_KEYVAL_INVALID) throw UnsupportedError("ragged pmpi: called after MPI_Finalize");
  void* value = nullptr;
  int found = 0;
  mpi::check(PMPI_Comm_get_attr(comm, keyval, &value, &found), "MPI_Comm_get_attr");
  if (found != 0) return *static_cast<CommAttribute*>(value);

  auto state = std::make_unique<CommAttribute>();
  state->user = comm;
  int inter = 0;
  mpi::check(PMPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  state->inter = inter != 0;
  if (!state->inter) {
    // No arrival agent yet: the Comm needs only the level of the threads that call collectives.
    // MPI_Comm_split rather than _dup: the program's attribute copy callbacks do not run.
    state->comm = mpi::make_comm(comm, mpi::CommOptions{.require_thread_multiple = false, .copy_attributes = false});
  }
  mpi::check(PMPI_Comm_set_attr(comm, keyval, state.get()), "MPI_Comm_set_attr");
  const std::lock_guard<std::mutex> lock(g.mutex);
  g.live.insert(state.get());
  return *state.release();
}

CommAttribute* find_state(MPI_Comm comm) {
  int keyval = MPI_KEYVAL_INVALID;
  {
    const std::lock_guard<std::mutex> lock(globals().mutex);
    keyval = globals().keyval;
  }
  if (keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return nullptr;
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS || found == 0) return nullptr;
  return static_cast<CommAttribute*>(value);
}

long live_states() {
  const std::lock_guard<std::mutex> lock(globals().mutex);
  return static_cast<long>(globals().live.size());
}

namespace {
/// Says once, on every rank, that the rules file cannot be used.
void rules_file_failed(const ConfigError& error) {
  static std::atomic<bool> said{false};
  if (said.load(std::memory_order_relaxed) || said.exchange(true)) return;
  say_once(std::string("rules ") + error.what(),
           std::string("ragged pmpi: ") + error.what() + "; every collective it would choose for runs natively");
}
}  // namespace

Route route(Collective collective) {
  if (settings_differ()) [[unlikely]] {
    if (report::enabled()) [[unlikely]]
      report::note_route(report::Mode::native, "native (the ranks' settings differ)");
    return Route::native;
  }
  // The program named this collective's algorithm with PAT_UseAlg (pat.cpp): ragged runs it.
  if (pat_plans(collective)) [[unlikely]] {
    if (report::enabled()) [[unlikely]]
      report::note_route(report::Mode::named, "PAT_UseAlg");
    return Route::ragged;
  }
  // Dispatch's reading of the environment (once per process), not one of our own.
  const Environment& env = ragged::environment();
  if (const std::string& name = env.forced_for(collective); !name.empty()) {
    const bool native = name == "native";
    if (report::enabled()) [[unlikely]] {
      const bool automatic = name == "auto";
      report::note_route(native      ? report::Mode::native
                         : automatic ? report::Mode::automatic
                                     : report::Mode::named,
                         name.c_str());
    }
    return native ? Route::native : Route::ragged;
  }
  const bool ruled = !env.rules_file.empty();
  if (ruled) {
    // A rules file that cannot be used was read once and said once (the first call that
    // selected); every call after runs natively at native's cost.
    if (const ConfigError* error = rules_file_error(env.rules_file); error != nullptr) [[unlikely]] {
      rules_file_failed(*error);
      if (report::enabled()) [[unlikely]]
        report::note_route(report::Mode::rules, env.rules_file.c_str());
      return Route::native;
    }
  }
  if (report::enabled()) [[unlikely]]
    report::note_route(ruled ? report::Mode::rules : report::Mode::unset, ruled ? env.rules_file.c_str() : nullptr);
  return ruled ? Route::ragged : Route::native;
}

void note_last(const char* what) { last_outcome = what; }
void note_last(const std::string& what) { last_outcome = what; }
const char* last() { return last_outcome.c_str(); }

MPI_Comm Call::handle() const { return mpi::native_handle(*state_.comm); }

std::vector<std::byte>& Call::scratch(int i, std::size_t bytes) {
  std::vector<std::byte>& buffer = state_.scratch[i];
  if (buffer.size() < bytes) buffer.resize(bytes);
  return buffer;
}

bool Call::selects_ragged(std::size_t bytes, bool commutative, std::size_t largest, std::size_t element) {
  CallInfo info;
  info.collective = collective_;
  info.procs = size();
  info.bytes = bytes;
  info.largest = largest;
  info.commutative = commutative;
  info.element_bytes = element;
  info.hints = &options_.hints;
  info.backend = state_.comm->backend();
  info.max_message_bytes = state_.comm->max_message_bytes();
  try {
    // The layout and the links as dispatch sees them (a hint, RAGGED_LAYOUT, the Comm's), so
    // `auto` here chooses what it would choose inside dispatch.
    info.layout = layout_of(comm(), options_.hints);
    info.network = network_of(comm(), options_.hints);
    // What the call asks for (the environment or the rules file); for `auto` on a site the
    // arrival runtime tracks, the call's snapshot first, which `auto` then reads. Then dispatch's
    // selector, once: the call carries its result (options_.selection) and dispatch runs it. All
    // of it is the same on every rank: the environment, the site and the snapshot are shared.
    // After a computation phase the program reported with PAT_* (pat.cpp), a call on
    // MPI_COMM_WORLD of the collective PAT_UseAlg named runs that algorithm with the monitor's
    // snapshot, on the monitor's communicator. Every rank decides alike: the PAT calls are the
    // program's, the same on every rank.
    // Its other calls there run the algorithm without a snapshot.
    std::optional<PatArrival> pat;
    if (state_.user == MPI_COMM_WORLD && pat_plans(collective_)) pat = pat_arrival(collective_);
    if (pat && pat->snapshot) {
      options_.hints.set(std::move(pat->snapshot));
      site_comm_ = pat->comm;
    }
    const Requested requested =
        pat ? Requested{pat->call.algorithm, "PAT_UseAlg"} : resolve_request(info, std::string_view{});
    // Routed here only because PAT_UseAlg named the collective (route()): on another
    // communicator, nothing set still means the MPI library's.
    if (!pat && requested.source == "auto" && pat_plans(collective_) && ragged::environment().rules_file.empty() &&
        ragged::environment().forced_for(collective_).empty()) {
      return false;
    }
    // An arrival-aware algorithm named by the environment or the rules file gets no prediction:
    // a site's monitor prepares the one algorithm its ranks announced, and a program (or the
    // rules file) may name another at the next call of the site. It says so, once.
    if (!pat && requested.name != "auto" && requested.name != "native" && size() > 1 &&
        Registry::instance().contains(collective_, requested.name) &&
        Registry::instance().find(collective_, requested.name).restrictions.needs_arrival) {
      say_once("no prediction for " + requested.name,
               "ragged pmpi: " + requested.name + " (" + requested.source +
                   ") is arrival-aware, but the library predicts arrivals only for `auto`: " + requested.name +
                   " runs without a prediction, as its regular form; RAGGED_" +
                   environment_variable(collective_).substr(7) + "=auto chooses it when arrivals are imbalanced");
    }
    if (!pat && requested.name == "auto" && size() > 1 && prediction::applies(collective_)) {
      auto snapshot = prediction::at_call(state_, collective_, bytes, site_comm_);
      auto spread = prediction::spread(state_, collective_, bytes);
      if (snapshot) options_.hints.set(std::move(snapshot));
      // Arrivals spread at random (nobody predicts them): an arrival-reactive algorithm.
      if (spread) options_.hints.set(std::move(spread));
    }
    selection_ = ragged::select(info, requested);
    options_.selection = &selection_;
    if (selection_.algorithm->name != "native") return true;
    // "native" by choice, or because the call is more than the backend can send (the reason).
    return selection_.fallback_reason.empty() ? false : fallback(selection_.fallback_reason.c_str());
  } catch (const InvalidArgument& e) {
    const std::string variable = environment_variable(collective_);
    say_once(variable + "=" + ragged::environment().forced_for(collective_),
             std::string("ragged pmpi: ") + e.what() + "; " + function_name(collective_) + " runs natively");
    return fallback("unknown algorithm");
  } catch (const Error& e) {
    say_once(std::string("rules ") + e.what(),
             std::string("ragged pmpi: ") + e.what() + "; " + function_name(collective_) + " runs natively");
    return fallback("rules file");
  }
}

bool Call::fallback(const char* why) {
  fallback_ = why;
  return false;
}

void Call::ran(const Algorithm& algorithm) { note_last(algorithm.name); }

int raise_error(MPI_Comm comm, const char* what, const char* function, int error_class) {
  std::fprintf(stderr, "[rank %d] ragged pmpi: %s: %s\n", globals().world_rank.load(), function, what);
  std::fflush(stderr);
  PMPI_Comm_call_errhandler(comm, error_class);
  return error_class;
}

bool internal_argument(const std::string& argument) {
  // What dispatch's checks name (src/core/dispatch/dispatch.cpp), all made before any message.
  static const std::set<std::string, std::less<>> checked = {
      "sendbuf", "recvbuf", "buffer",  "root", "sendcount", "recvcount", "sendcounts", "recvcounts",
      "displs",  "sdispls", "rdispls", "comm", "algorithm", "count",     "type",       "op"};
  return checked.count(argument) == 0;
}

int class_of(int code) {
  int error_class = MPI_ERR_INTERN;
  if (PMPI_Error_class(code, &error_class) != MPI_SUCCESS || error_class == MPI_SUCCESS) return MPI_ERR_INTERN;
  return error_class;
}

const char* function_name(Collective collective) {
  // "MPI_" and the collective's name (registry.hpp) with a capital: MPI_Allgather, MPI_Alltoallv.
  static const auto names = [] {
    std::array<std::string, std::size(all_collectives)> out;
    for (Collective c : all_collectives) {
      std::string name = name_of(c);
      name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
      out[static_cast<std::size_t>(c)] = "MPI_" + name;
    }
    return out;
  }();
  const auto index = static_cast<std::size_t>(collective);
  return index < names.size() ? names[index].c_str() : "MPI collective";
}

}  // namespace ragged::pmpi
