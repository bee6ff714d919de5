// libragged_pmpi.so: the library's requests and the MPI_Wait family that sleeps on them
// (completion.hpp).
#include "completion.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "nonblocking.hpp"
#include "pmpi.hpp"

namespace ragged::pmpi::completion {
namespace {

struct Table {
  std::mutex mutex;
  std::condition_variable changed;  ///< a flag became done
  std::unordered_map<MPI_Request, Token> flags;
};
Table& table() {
  static Table* t = new Table;  // never destroyed: requests may outlive static destruction
  return *t;
}
/// How many requests are tracked: the MPI_Wait family looks nothing up while 0.
std::atomic<long> tracked{0};

/// What is pinned, and the frees that wait for the last pin to go.
struct Pins {
  std::mutex mutex;
  long count = 0;
  std::vector<MPI_Datatype> types;
  std::vector<MPI_Op> ops;
};
Pins& pins() {
  static Pins* p = new Pins;  // never destroyed: a worker may unpin during static destruction
  return *p;
}

/// Frees `*handle` now (nothing pinned) or when the last pin goes; the handle is null at once.
/// Whether MPI would refuse to free it (a predefined handle): then it answers at once.
bool predefined_type(MPI_Datatype type) {
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  return PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS ||
         combiner == MPI_COMBINER_NAMED;
}
bool predefined_op(MPI_Op op) {
  for (const MPI_Op named : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR,
                             MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP}) {
    if (op == named) return true;
  }
  return false;
}

/// (MPI_Datatype and MPI_Op may be one type, int under MPICH: the predicate is an argument.)
template <class Handle>
int free_later(Handle* handle, Handle null, bool (*predefined)(Handle), std::vector<Handle> Pins::*later,
               int (*free_now)(Handle*)) {
  if (handle == nullptr || *handle == null || predefined(*handle)) return free_now(handle);  // MPI's error
  Pins& p = pins();
  {
    const std::lock_guard<std::mutex> lock(p.mutex);
    if (p.count > 0) {
      (p.*later).push_back(*handle);
      *handle = null;
      return MPI_SUCCESS;
    }
  }
  return free_now(handle);
}

}  // namespace

Token track(MPI_Request request) {
  auto flag = std::make_shared<Flag>();
  Table& t = table();
  const std::lock_guard<std::mutex> lock(t.mutex);
  const auto [it, inserted] = t.flags.insert_or_assign(request, flag);
  (void)it;
  if (inserted) tracked.fetch_add(1);
  return flag;
}

void done(const Token& token) {
  Table& t = table();
  {
    const std::lock_guard<std::mutex> lock(t.mutex);
    token->done = true;
  }
  t.changed.notify_all();
}

void untrack(MPI_Request request, const Flag* flag) {
  if (tracked.load(std::memory_order_relaxed) == 0) return;
  Table& t = table();
  const std::lock_guard<std::mutex> lock(t.mutex);
  const auto it = t.flags.find(request);
  if (it == t.flags.end() || (flag != nullptr && it->second.get() != flag)) return;
  t.flags.erase(it);
  tracked.fetch_sub(1);
}

void pin() {
  Pins& p = pins();
  const std::lock_guard<std::mutex> lock(p.mutex);
  ++p.count;
}

void unpin() {
  Pins& p = pins();
  std::vector<MPI_Datatype> types;
  std::vector<MPI_Op> ops;
  {
    const std::lock_guard<std::mutex> lock(p.mutex);
    if (--p.count > 0) return;
    types.swap(p.types);
    ops.swap(p.ops);
  }
  for (MPI_Datatype& type : types) PMPI_Type_free(&type);
  for (MPI_Op& op : ops) PMPI_Op_free(&op);
}

bool tracking() { return tracked.load(std::memory_order_relaxed) != 0; }

void await(int count, const MPI_Request* requests, bool all) {
  if (!tracking() || requests == nullptr || count <= 0) return;
  if (nonblocking::on_worker()) return;  // the backend's own waits: never the library's requests
  Table& t = table();
  std::unique_lock<std::mutex> lock(t.mutex);
  std::vector<const Flag*> mine;
  bool others = false;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    const auto it = t.flags.find(requests[i]);
    if (it == t.flags.end()) {
      others = true;
    } else {
      mine.push_back(it->second.get());
    }
  }
  // Waitany/Waitsome with a request of the program's own among them: that one may complete first
  // and the program may need it to (a receive another rank's collective waits behind).
  if (mine.empty() || (!all && others)) return;
  t.changed.wait(lock, [&] {
    std::size_t finished = 0;
    for (const Flag* flag : mine) finished += flag->done ? 1 : 0;
    return all ? finished == mine.size() : finished > 0;
  });
}

}  // namespace ragged::pmpi::completion

namespace pmpi = ragged::pmpi;

extern "C" {

RAGGED_PMPI_EXPORT int MPI_Type_free(MPI_Datatype* type) {
  return pmpi::completion::free_later(type, MPI_DATATYPE_NULL, &pmpi::completion::predefined_type,
                                      &pmpi::completion::Pins::types, &PMPI_Type_free);
}

RAGGED_PMPI_EXPORT int MPI_Op_free(MPI_Op* op) {
  return pmpi::completion::free_later(op, MPI_OP_NULL, &pmpi::completion::predefined_op, &pmpi::completion::Pins::ops,
                                      &PMPI_Op_free);
}

RAGGED_PMPI_EXPORT int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (request != nullptr) pmpi::completion::await(1, request, true);
  return PMPI_Wait(request, status);
}

RAGGED_PMPI_EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  pmpi::completion::await(count, requests, true);
  return PMPI_Waitall(count, requests, statuses);
}

RAGGED_PMPI_EXPORT int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  pmpi::completion::await(count, requests, false);
  return PMPI_Waitany(count, requests, index, status);
}

RAGGED_PMPI_EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                                    MPI_Status statuses[]) {
  pmpi::completion::await(incount, requests, false);
  return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
}

}  // extern "C"
