// Persistent collectives of libragged_pmpi.so: the requests and MPI_Start (persistent.hpp).
#include "persistent.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "completion.hpp"
#include "pmpi.hpp"

namespace ragged::pmpi::persistent {
namespace {

/// One persistent call: what each start runs, and what the last one ran.
struct Entry {
  MPI_Comm comm = MPI_COMM_NULL;
  report::Kind kind = report::Kind::barrier;
  nonblocking::Job job;
  nonblocking::Describe describe;
  int tag = 0;
  std::mutex mutex;              ///< guards outcome; orders the worker's writes before its readers
  std::string outcome = "none";  ///< what the last start ran
};

struct Registry {
  std::mutex mutex;
  std::unordered_map<MPI_Request, std::shared_ptr<Entry>> entries;
  MPI_Comm self = MPI_COMM_NULL;  ///< the library's copy of MPI_COMM_SELF: the requests' sends
  int next_tag = 0;
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: requests may outlive static destruction
  return *r;
}
/// How many requests are the library's: MPI_Start of any other request looks nothing up while 0.
std::atomic<long> live{0};

std::shared_ptr<Entry> find(MPI_Request request) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.entries.find(request);
  return it == r.entries.end() ? nullptr : it->second;
}

}  // namespace

int make(MPI_Comm comm, report::Kind kind, nonblocking::Job job, nonblocking::Describe describe, MPI_Request* request) {
  auto entry = std::make_shared<Entry>();
  entry->comm = comm;
  entry->kind = kind;
  entry->job = std::move(job);
  entry->describe = std::move(describe);
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (r.self == MPI_COMM_NULL) {
    const int rc = PMPI_Comm_dup(MPI_COMM_SELF, &r.self);  // local: MPI_COMM_SELF has one process
    if (rc != MPI_SUCCESS) {
      return raise_error(comm, "MPI_Comm_dup(MPI_COMM_SELF) failed", report::name_of(kind), class_of(rc));
    }
  }
  // MPI guarantees tags up to 32767: a tag of its own for each of that many live requests.
  entry->tag = r.next_tag;
  r.next_tag = (r.next_tag + 1) % 32768;
  const int rc = PMPI_Ssend_init(nullptr, 0, MPI_BYTE, 0, entry->tag, r.self, request);
  if (rc != MPI_SUCCESS) return raise_error(comm, "MPI_Ssend_init failed", report::name_of(kind), class_of(rc));
  r.entries[*request] = std::move(entry);
  live.fetch_add(1);
  completion::pin();  // its datatypes and operators, until MPI_Request_free
  return MPI_SUCCESS;
}

bool start(MPI_Request* request, int& code) {
  if (live.load(std::memory_order_relaxed) == 0 || request == nullptr) return false;
  const std::shared_ptr<Entry> entry = find(*request);
  if (!entry) return false;
  code = PMPI_Start(request);  // the synchronous send that the worker's receive completes
  if (code != MPI_SUCCESS) return true;
  const MPI_Comm self = registry().self;
  completion::Token token = completion::track(*request);
  code = nonblocking::post_then(entry->comm, entry->kind, entry->job, entry->describe, [entry, self, token] {
    return [entry, self, token](int /*code*/, const std::string& outcome) {
      {
        const std::lock_guard<std::mutex> lock(entry->mutex);
        entry->outcome = outcome;
      }
      PMPI_Recv(nullptr, 0, MPI_BYTE, 0, entry->tag, self, MPI_STATUS_IGNORE);
      completion::done(token);
    };
  });
  if (code != MPI_SUCCESS) completion::done(token);  // nothing runs: MPI_Wait must not sleep on it
  return true;
}

void forget(MPI_Request request) {
  if (live.load(std::memory_order_relaxed) == 0) return;
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (r.entries.erase(request) != 0) {
    live.fetch_sub(1);
    completion::untrack(request, nullptr);
    completion::unpin();
  }
}

const char* outcome(MPI_Request request) {
  const std::shared_ptr<Entry> entry = find(request);
  if (!entry) return nullptr;
  const std::lock_guard<std::mutex> lock(entry->mutex);
  return entry->outcome.c_str();
}

void finalize_all() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (r.self != MPI_COMM_NULL) PMPI_Comm_free(&r.self);
}

}  // namespace ragged::pmpi::persistent
