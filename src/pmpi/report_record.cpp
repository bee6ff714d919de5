// libragged_pmpi.so: RAGGED_REPORT=path (report.hpp, docs/pmpi.md "Report"), per rank: what each
// call records, and MPI_Init's and MPI_Finalize's parts (report_internal.hpp says the whole).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmpi.hpp"
#include "report_internal.hpp"
#include "settings.hpp"

namespace ragged::pmpi::report {

std::atomic<bool> recording{false};

State& state() {
  static auto* s = new State();  // never destroyed: MPI may call `forget` during exit
  return *s;
}

namespace {

thread_local Mode current_mode = Mode::unset;
thread_local const char* current_requested = nullptr;

void read_environment() {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const char* path = std::getenv("RAGGED_REPORT");
  s.path = path != nullptr ? path : "";
  if (const char* cap = std::getenv("RAGGED_REPORT_CALLS"); cap != nullptr && *cap != '\0') {
    if (const std::optional<std::size_t> value = parse_report_calls(cap, max_cap)) {
      s.cap = *value;
    } else if (!s.said_cap) {
      s.said_cap = true;
      std::fprintf(stderr,
                   "ragged pmpi: RAGGED_REPORT_CALLS=%s: must be a whole number from 1 to %zu; keeping %zu calls a "
                   "site\n",
                   cap, max_cap, s.cap);
    }
  }
  recording.store(!s.path.empty() && !s.broken && !s.finished);
}

/// RAGGED_REPORT is read when the library is loaded (a Fortran program's MPI_INIT does not come
/// through the library) and again at MPI_Init.
__attribute__((constructor)) void load() { read_environment(); }

/// The report keyval's delete callback: the program frees a communicator.
int forget(MPI_Comm comm, int /*keyval*/, void* /*value*/, void* /*extra*/) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.live.erase(comm);
  if (s.cached == comm) s.cached = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

std::vector<int> world_ranks_of(MPI_Group group, int n) {
  MPI_Group world = MPI_GROUP_NULL;
  check(PMPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group");
  std::vector<int> in(static_cast<std::size_t>(n));
  std::vector<int> out(static_cast<std::size_t>(n));
  std::iota(in.begin(), in.end(), 0);
  const int rc = PMPI_Group_translate_ranks(group, n, in.data(), world, out.data());
  PMPI_Group_free(&world);
  check(rc, "MPI_Group_translate_ranks");
  for (int& r : out) {
    if (r == MPI_UNDEFINED) r = -1;  // a process outside MPI_COMM_WORLD (spawned, connected)
  }
  return out;
}

/// Makes the record of a communicator seen for the first time (mutex held).
std::size_t make_record(State& s, MPI_Comm comm) {
  if (s.keyval == MPI_KEYVAL_INVALID) {
    check(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &forget, &s.keyval, nullptr), "MPI_Comm_create_keyval");
  }
  CommRecord r;
  int inter = 0;
  check(PMPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  r.inter = inter != 0;
  check(PMPI_Comm_rank(comm, &r.rank), "MPI_Comm_rank");
  check(PMPI_Comm_size(comm, &r.size), "MPI_Comm_size");
  r.remote = r.size;
  MPI_Group group = MPI_GROUP_NULL;
  check(PMPI_Comm_group(comm, &group), "MPI_Comm_group");
  r.world_ranks = world_ranks_of(group, r.size);
  PMPI_Group_free(&group);
  if (r.inter) {
    check(PMPI_Comm_remote_size(comm, &r.remote), "MPI_Comm_remote_size");
    check(PMPI_Comm_remote_group(comm, &group), "MPI_Comm_remote_group");
    const std::vector<int> remote = world_ranks_of(group, r.remote);
    PMPI_Group_free(&group);
    r.world_ranks.insert(r.world_ranks.end(), remote.begin(), remote.end());
    std::sort(r.world_ranks.begin(), r.world_ranks.end());  // the same on both sides
  }
  if (comm == MPI_COMM_WORLD) {
    r.name = "MPI_COMM_WORLD";
  } else if (comm == MPI_COMM_SELF) {
    r.name = "MPI_COMM_SELF";
  } else {
    char name[MPI_MAX_OBJECT_NAME] = {};
    int length = 0;
    if (PMPI_Comm_get_name(comm, name, &length) == MPI_SUCCESS && length > 0)
      r.name.assign(name, static_cast<std::size_t>(length));
  }
  std::string group_key = r.inter ? "inter:" : "intra:";
  for (std::size_t i = 0; i < r.world_ranks.size(); ++i) {
    if (i > 0) group_key += ',';
    group_key += std::to_string(r.world_ranks[i]);
  }
  r.key = group_key + "#" + std::to_string(s.ordinals[group_key]++);
  check(PMPI_Comm_set_attr(comm, s.keyval, nullptr), "MPI_Comm_set_attr");
  s.comms.push_back(std::move(r));
  const std::size_t index = s.comms.size() - 1;
  s.live[comm] = index;
  return index;
}

/// The report's private copy of MPI_COMM_WORLD, made at its first use (collective). It copies no
/// attribute of the program's and needs only the caller's thread level.
Comm& private_world(State& s) {
  if (!s.comm) {
    s.comm =
        mpi::make_comm(MPI_COMM_WORLD, mpi::CommOptions{.require_thread_multiple = false, .copy_attributes = false});
  }
  return *s.comm;
}

}  // namespace

const char* name_of(Kind kind) { return kind_names[static_cast<std::size_t>(kind)]; }

void note_route(Mode mode, const char* requested) {
  current_mode = mode;
  current_requested = requested;
}

long long bytes_of(long long count, MPI_Datatype type) {
  if (count <= 0) return 0;
  MPI_Count size = 0;
  if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return 0;
  return count * static_cast<long long>(size);
}

namespace detail {

std::mutex& mutex() { return state().mutex; }

bool begin(MPI_Comm comm, CallRecord& info, std::size_t& record) {
  State& s = state();
  if (s.finished || s.broken) return false;
  if (comm == s.cached) {
    record = s.cached_index;
  } else {
    const auto it = s.live.find(comm);
    record = it != s.live.end() ? it->second : make_record(s, comm);
    s.cached = comm;
    s.cached_index = record;
  }
  const CommRecord& r = s.comms[record];
  info.rank = r.rank;
  info.size = r.inter ? r.remote : r.size;
  info.inter = r.inter;
  return true;
}

void commit(std::size_t record, Kind kind, CallRecord& info, double entry, double exit) {
  if (info.inter) {
    info.bytes = -1;  // the two groups' blocks may differ, roots are MPI_ROOT / MPI_PROC_NULL
    info.root = -1;
  }
  const Mode mode = current_mode;
  const char* requested = current_requested != nullptr ? current_requested : "";
  const char* ran = last();
  State& s = state();
  CommRecord& r = s.comms[record];
  const SiteKey key{kind, info.bytes, info.root};
  if (r.sites.empty() || !(r.sites[r.last_site].key() == key)) {
    const auto [it, inserted] = r.index.try_emplace(key, r.sites.size());
    if (inserted) {
      Site site;
      site.kind = kind;
      site.bytes = info.bytes;
      site.root = info.root;
      r.sites.push_back(std::move(site));
    }
    r.last_site = it->second;
  }
  Site& site = r.sites[r.last_site];
  if (site.entries.size() < s.cap) {
    site.entries.push_back(entry);
  } else {
    site.entries[static_cast<std::size_t>(site.calls % s.cap)] = entry;
  }
  ++site.calls;
  site.contributed += info.contributed;
  const double wait = exit - entry;
  site.wait_sum += wait;
  site.wait_max = std::max(site.wait_max, wait);
  for (Outcome& o : site.outcomes) {
    if (o.mode == mode && o.ran == ran && o.requested == requested) {
      ++o.calls;
      return;
    }
  }
  site.outcomes.push_back(Outcome{mode, requested, ran, 1});
}

void failed(const char* what) {
  State& s = state();
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.broken) return;
    s.broken = true;
    recording.store(false);
  }
  std::fprintf(stderr, "ragged pmpi: RAGGED_REPORT: recording stopped on world rank %d: %s\n", world_rank(), what);
  std::fflush(stderr);
}

}  // namespace detail

void at_init() {
  read_environment();
  State& s = state();
  if (s.path.empty()) return;
  try {
    s.first = measure_offset(private_world(s));
  } catch (const std::exception& e) {
    detail::failed(e.what());
  }
}

void at_finalize() {
  State& s = state();
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.path.empty() || s.finished) return;
  }
  recording.store(false);
  Comm& comm = private_world(s);
  s.last = measure_offset(comm);
  const LinkModel link = measure_link(comm, tag_link, link_probe, link_rounds, call_timeout());
  const MPI_Comm handle = mpi::native_handle(comm);
  std::vector<std::byte> mine;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.finished = true;
    int world = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world);
    mine = serialize(s, world);
    s.comms.clear();
    s.live.clear();
    s.cached = MPI_COMM_NULL;
  }
  if (comm.rank() != 0) {
    send_bytes(mine, handle);
  } else {
    Merge m;
    m.base = s.last.at;  // rank 0's offset is 0: its clock is the reference
    merge(m, mine);
    mine = {};
    for (int r = 1; r < comm.size(); ++r) merge(m, receive_bytes(r, handle));
    write_report(m, link, s, comm.size());
  }
  s.comm.reset();
}

}  // namespace ragged::pmpi::report
