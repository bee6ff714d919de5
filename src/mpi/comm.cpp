// The Comm of the mpi backend: point-to-point over a duplicated communicator.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "internal.hpp"
#include "ragged/mpi.hpp"

namespace ragged::mpi {
namespace detail {

std::atomic<long>& live_requests() {
  static std::atomic<long> count{0};
  return count;
}

std::atomic<long>& live_windows() {
  static std::atomic<long> count{0};
  return count;
}

namespace {

bool mpi_finalized() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

/// MPICH 4.0 (ch4): a thread blocked in MPI_Wait or MPI_Waitany on a request that another thread
/// completes with a message to self (its own send, or a receive that a send to self matches) can
/// sleep forever; MPI_Test sees the completion (docs/portability.md, "Threads"). Requests that may
/// involve a message to self (peer = this rank, or any_source) are therefore waited for by polling.
#if defined(MPICH)
constexpr bool poll_self_requests = true;
#else
constexpr bool poll_self_requests = false;
#endif

/// Polls MPI_Test on `request` until it completes (yielding, then sleeping up to 50 µs).
int poll_wait(MPI_Request* request, MPI_Status* status) {
  Backoff backoff;
  for (;;) {
    int flag = 0;
    const int code = MPI_Test(request, &flag, status);
    if (code != MPI_SUCCESS || flag != 0) return code;
    backoff.pause();
  }
}

/// A pending MPI_Isend or MPI_Irecv.
///
/// Destroying an incomplete receive cancels it (MPI_Cancel, then MPI_Wait, which returns
/// at once if the cancel succeeded and after the delivery if the message had already
/// matched). Destroying an incomplete send waits for it: MPI cannot reliably cancel sends
/// (MPI-4 deprecates it), so the destructor blocks until the receiver has taken the
/// message (small messages complete at once, large ones need the matching receive).
class MpiRequest final : public RequestImpl {
 public:
  /// `self`: the peer is this rank or any_source (see poll_self_requests).
  MpiRequest(MPI_Request request, bool receive, Status send_status, bool self, int peer, int tag)
      : request_(request),
        receive_(receive),
        poll_(poll_self_requests && self),
        status_(send_status),
        peer_(peer),
        tag_(tag) {
    live_requests().fetch_add(1, std::memory_order_relaxed);
  }
  ~MpiRequest() override {
    live_requests().fetch_sub(1, std::memory_order_relaxed);
    if (request_ == MPI_REQUEST_NULL || mpi_finalized()) return;
    // Errors cannot leave a destructor; the request is gone either way.
    if (receive_) MPI_Cancel(&request_);
    if (poll_) {
      MPI_Status ignored;
      poll_wait(&request_, &ignored);
    } else {
      MPI_Wait(&request_, MPI_STATUS_IGNORE);
    }
  }
  MpiRequest(const MpiRequest&) = delete;
  MpiRequest& operator=(const MpiRequest&) = delete;

  bool test() override {
    if (finished()) return rethrow_or_true();
    int flag = 0;
    MPI_Status status;
    const int code = MPI_Test(&request_, &flag, &status);  // before reading flag
    settle(code, "MPI_Test", status, flag != 0);
    return flag != 0;
  }

  bool wait_for(Timeout timeout) override {
    if (finished()) return rethrow_or_true();
    if (!timeout) {
      MPI_Status status;
      const int code = poll_ ? poll_wait(&request_, &status) : MPI_Wait(&request_, &status);
      settle(code, poll_ ? "MPI_Test" : "MPI_Wait", status, true);
      return true;
    }
    ThreadRuntime clock;
    const double deadline = clock.now() + *timeout;
    Backoff backoff;
    for (;;) {
      if (test()) return true;
      if (clock.now() >= deadline) return false;
      backoff.pause();
    }
  }

  [[nodiscard]] Status status() const override { return status_; }
  [[nodiscard]] std::string describe() const override {
    const std::string peer = peer_ == any_source ? "any rank" : "rank " + std::to_string(peer_);
    return (receive_ ? "a receive from " : "a send to ") + peer + ", tag " + std::to_string(tag_);
  }

  /// True once the request completed or failed (its MPI request is gone).
  [[nodiscard]] bool finished() const noexcept { return done_ || error_ != MPI_SUCCESS; }
  [[nodiscard]] MPI_Request handle() const noexcept { return request_; }
  /// Waited for by polling (a message to self under MPICH).
  [[nodiscard]] bool polled() const noexcept { return poll_; }

  /// Records the outcome of a completion call (MPI_Test, MPI_Wait, MPI_Waitany, ...) that
  /// ran on this request's handle; `handle` is the handle as that call left it. Throws
  /// TransportError when `code` reports a failure.
  void settle(int code, const char* call, const MPI_Status& status, bool completed, MPI_Request handle) {
    request_ = handle;
    settle(code, call, status, completed);
  }

  /// Records a failure reported for this request by a call on several requests.
  void fail(int code, const char* call) {
    error_ = code == MPI_SUCCESS ? MPI_ERR_OTHER : code;
    error_call_ = call;
    request_ = MPI_REQUEST_NULL;
  }

 private:
  void settle(int code, const char* call, const MPI_Status& status, bool completed) {
    if (code != MPI_SUCCESS) {
      // E.g. MPI_ERR_TRUNCATE: a message longer than the receive's capacity. The request
      // is complete (and freed by MPI); remember the failure so every later call reports it.
      fail(code, call);
      rethrow_or_true();
    }
    if (!completed) return;
    done_ = true;
    if (receive_) {
      int count = 0;
      check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
      status_ = Status{status.MPI_SOURCE, status.MPI_TAG, static_cast<std::size_t>(count < 0 ? 0 : count)};
    }
  }

  bool rethrow_or_true() const {
    if (error_ != MPI_SUCCESS) {
      throw TransportError(error_, error_text(error_),
                           std::string(error_call_) + (receive_ ? " (receive)" : " (send)"));
    }
    return true;
  }

  MPI_Request request_;
  bool receive_;
  bool poll_;
  Status status_;
  int peer_;
  int tag_;
  bool done_ = false;
  int error_ = MPI_SUCCESS;
  const char* error_call_ = "";
};

void check_tag(int tag) {
  if (tag < 0 || tag > max_tag) {
    throw InvalidArgument("tag", "tag " + std::to_string(tag) + " is outside 0.." + std::to_string(max_tag));
  }
}

void check_data(const void* data, std::size_t bytes, const char* argument) {
  if (data == nullptr && bytes != 0) {
    throw InvalidArgument(argument, "null buffer for " + std::to_string(bytes) + " bytes");
  }
}

}  // namespace

namespace {

/// The ranks of `comm` that share a node (MPI_COMM_TYPE_SHARED), the same on every rank: each
/// rank learns its node's lowest rank, an allgather spreads them, and an allreduce of a hash of
/// the result checks that every rank built the same layout; otherwise `error` says so, naming
/// the layout, on every rank (MpiComm::layout() raises it). PMPI_ calls: the PMPI library must
/// not route these to itself.
std::shared_ptr<const NodeLayout> shared_memory_layout(MPI_Comm comm, int rank, int size, std::string& error) {
  MPI_Comm node = MPI_COMM_NULL;
  check(PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int leader = rank;
  const int rc = PMPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node);
  PMPI_Comm_free(&node);
  check(rc, "MPI_Allreduce");
  std::vector<int> leaders(static_cast<std::size_t>(size));
  check(PMPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm), "MPI_Allgather");
  auto layout = std::make_shared<NodeLayout>(NodeLayout::from_list(leaders));
  std::uint64_t hash = std::uint64_t{1469598103934665603U};  // FNV-1a over the node numbers
  for (const int n : layout->node) {
    hash ^= static_cast<std::uint32_t>(n);
    hash *= std::uint64_t{1099511628211U};
  }
  std::uint64_t range[2] = {hash, ~hash};  // the least hash and the complement of the greatest
  std::uint64_t agreed[2] = {0, 0};
  check(PMPI_Allreduce(range, agreed, 2, MPI_UINT64_T, MPI_MIN, comm), "MPI_Allreduce");
  if (agreed[0] != hash || agreed[1] != ~hash) {
    error = "ragged::mpi: the node layout from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) differs between ranks (rank " +
            std::to_string(rank) + " has " + layout->describe() + "); set RAGGED_LAYOUT to one for every rank";
  }
  return layout;
}

}  // namespace

MpiComm::MpiComm(MPI_Comm user, CommOptions options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0 || mpi_finalized()) {
    throw UnsupportedError("ragged::mpi: MPI is not initialized (create a ragged::mpi::Session first)");
  }
  if (options.require_thread_multiple) require_thread_multiple();
  if (user == MPI_COMM_NULL) throw InvalidArgument("comm", "MPI_COMM_NULL");
  // Errors of MPI_Comm_dup (or _split) itself are raised on `user` with the handler the caller chose.
  if (options.copy_attributes) {
    check(MPI_Comm_dup(user, &comm_), "MPI_Comm_dup");
  } else {
    int user_rank = 0;
    check(MPI_Comm_rank(user, &user_rank), "MPI_Comm_rank");
    check(MPI_Comm_split(user, 0, user_rank, &comm_), "MPI_Comm_split");
  }
  try {
    check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
    layout_ = shared_memory_layout(comm_, rank_, size_, layout_error_);
  } catch (...) {
    MPI_Comm_free(&comm_);
    throw;
  }
}

MpiComm::~MpiComm() {
  if (comm_ != MPI_COMM_NULL && !mpi_finalized()) MPI_Comm_free(&comm_);
}

Request MpiComm::isend(int dest, int tag, const void* data, std::size_t bytes) {
  check_rank(*this, dest, "dest");
  check_tag(tag);
  check_data(data, bytes, "data");
  if (bytes > max_count) {
    throw InvalidArgument("bytes", "a message of " + std::to_string(bytes) +
                                       " bytes exceeds the mpi backend's limit of INT_MAX bytes per message");
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, dest, tag, comm_, &request), "MPI_Isend");
  return Request(std::make_unique<MpiRequest>(request, false, Status{rank_, tag, bytes}, dest == rank_, dest, tag));
}

Request MpiComm::irecv(int source, int tag, void* data, std::size_t capacity) {
  if (source != any_source) check_rank(*this, source, "source");
  check_tag(tag);
  check_data(data, capacity, "data");
  // No message exceeds INT_MAX bytes (isend rejects them), so a larger capacity loses nothing.
  const int count = static_cast<int>(capacity > max_count ? max_count : capacity);
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Irecv(data, count, MPI_BYTE, source == any_source ? MPI_ANY_SOURCE : source, tag, comm_, &request),
        "MPI_Irecv");
  return Request(
      std::make_unique<MpiRequest>(request, true, Status{}, source == any_source || source == rank_, source, tag));
}

std::size_t MpiComm::wait_any(std::span<Request> requests, Timeout timeout) {
  std::vector<MPI_Request> handles;
  std::vector<std::size_t> where;
  std::vector<MpiRequest*> impls;
  bool polled = false;  // one of them must not be waited for in MPI_Waitany (poll_self_requests)
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!requests[i].active()) continue;
    auto* impl = dynamic_cast<MpiRequest*>(requests[i].impl());
    // A request of another backend: fall back to polling every request.
    if (impl == nullptr) return poll_wait_any(requests, timeout, 1e-6);
    if (impl->finished()) {
      impl->test();  // rethrows a recorded failure; a completed request is skipped
      continue;
    }
    handles.push_back(impl->handle());
    where.push_back(i);
    impls.push_back(impl);
    polled = polled || impl->polled();
  }
  if (handles.empty()) return npos;

  const int n = static_cast<int>(handles.size());
  int index = MPI_UNDEFINED;
  MPI_Status status;
  const char* call = timeout || polled ? "MPI_Testany" : "MPI_Waitany";
  int code = MPI_SUCCESS;
  if (!timeout && !polled) {
    code = MPI_Waitany(n, handles.data(), &index, &status);
  } else {
    const double deadline = timeout ? runtime_.now() + *timeout : 0.0;
    Backoff backoff;
    for (;;) {
      int flag = 0;
      code = MPI_Testany(n, handles.data(), &index, &flag, &status);
      if (code != MPI_SUCCESS || flag != 0) break;
      if (timeout && runtime_.now() >= deadline) {
        const std::string pending = describe_pending(requests);
        throw TimeoutError("Comm::wait_any: no completion within " + std::to_string(*timeout) + " s" +
                           (pending.empty() ? "" : " of " + pending));
      }
      backoff.pause();
    }
  }
  const bool indexed = index != MPI_UNDEFINED && index >= 0 && index < n;
  // A handle that MPI freed without reporting it as the completed one can only belong to a
  // request that failed; record it so that its destructor does not touch the freed handle.
  for (std::size_t k = 0; k < handles.size(); ++k) {
    if (indexed && k == static_cast<std::size_t>(index)) continue;
    if (handles[k] == MPI_REQUEST_NULL) impls[k]->fail(code, call);
  }
  if (!indexed) {
    check(code, call);
    return npos;  // no active handle left (cannot happen: every handle was active)
  }
  const auto k = static_cast<std::size_t>(index);
  impls[k]->settle(code, call, status, true, handles[k]);  // throws on failure
  mark_complete(requests[where[k]]);
  return where[k];
}

std::unique_ptr<Window> MpiComm::create_window(std::size_t bytes, int notifications) {
  return make_window(*this, bytes, notifications);
}

}  // namespace detail

Resources live_resources() {
  return Resources{detail::live_requests().load(std::memory_order_relaxed),
                   detail::live_windows().load(std::memory_order_relaxed)};
}

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS || length <= 0) return "unknown MPI error";
  return std::string(text, static_cast<std::size_t>(length));
}

std::unique_ptr<Comm> make_comm(MPI_Comm user, CommOptions options) {
  return std::make_unique<detail::MpiComm>(user, options);
}

namespace detail {

std::shared_ptr<const NodeLayout> MpiComm::layout() const {
  if (!layout_error_.empty()) throw Error(layout_error_);
  return layout_;
}

}  // namespace detail

MPI_Comm native_handle(Comm& comm) {
  auto* mpi_comm = dynamic_cast<detail::MpiComm*>(&comm);
  if (mpi_comm == nullptr) {
    throw InvalidArgument("comm", "a Comm of the '" + comm.backend() + "' backend has no MPI communicator");
  }
  return mpi_comm->handle();
}

}  // namespace ragged::mpi
