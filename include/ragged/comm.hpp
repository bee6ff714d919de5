// ragged: the Comm seam. Small and MPI-shaped: point-to-point messages that
// match by (source, tag) and do not overtake, move-only requests, and windows
// for one-sided communication. Algorithms see only Comm and Runtime.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include "ragged/runtime.hpp"
#include "ragged/window.hpp"

namespace ragged {

struct NodeLayout;
struct NetworkModel;

/// Receive from whichever rank's message matches first.
inline constexpr int any_source = -1;
/// Highest tag the algorithms may use; backends guarantee at least this range.
inline constexpr int max_tag = 32767;

/// What a completed receive got.
struct Status {
  int source = -1;
  int tag = -1;
  std::size_t bytes = 0;
};

/// Backend side of a Request.
class RequestImpl {
 public:
  virtual ~RequestImpl() = default;
  /// Non-blocking completion check.
  virtual bool test() = 0;
  /// Blocks until complete (returns true) or until the timeout ran out (returns false).
  virtual bool wait_for(Timeout timeout) = 0;
  /// Valid once complete.
  [[nodiscard]] virtual Status status() const = 0;
  /// What the request waits for, for a timeout's message ("a receive from rank 3, tag 17"), or
  /// empty where the backend does not say.
  [[nodiscard]] virtual std::string describe() const { return {}; }
};

/// A pending isend or irecv. Move-only; an empty Request counts as complete.
/// Destroying an incomplete request cancels it where the backend can and otherwise waits
/// for it, so no buffer is ever written after the request is gone.
class Request {
 public:
  Request() = default;
  explicit Request(std::unique_ptr<RequestImpl> impl) : impl_(std::move(impl)) {}
  Request(Request&&) noexcept = default;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request();

  /// What the request waits for (RequestImpl::describe()), or empty.
  [[nodiscard]] std::string describe() const { return impl_ ? impl_->describe() : std::string(); }
  /// True when complete; completes the request without blocking if it can.
  bool test();
  /// Blocks until complete; throws TimeoutError when `timeout` runs out first.
  void wait(Timeout timeout = {});
  /// Status of the completed request (source, tag and bytes of a receive).
  [[nodiscard]] Status status() const;
  /// False for an empty (default-constructed or moved-from) request.
  [[nodiscard]] bool active() const noexcept { return impl_ != nullptr; }
  /// True once test() or wait() saw it complete (no call to the backend).
  [[nodiscard]] bool done() const noexcept { return done_; }
  [[nodiscard]] RequestImpl* impl() const noexcept { return impl_.get(); }

 private:
  std::unique_ptr<RequestImpl> impl_;
  Status completed_{};
  bool done_ = false;
  friend class Comm;
};

class Comm {
 public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  virtual ~Comm() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  [[nodiscard]] virtual Runtime& runtime() = 0;
  /// "mpi" or "sim".
  [[nodiscard]] virtual std::string backend() const = 0;

  /// Starts sending `bytes` bytes at `data` to `dest` with `tag` (0..max_tag).
  virtual Request isend(int dest, int tag, const void* data, std::size_t bytes) = 0;
  /// Starts receiving at most `capacity` bytes from `source` (or any_source) with `tag`.
  /// A longer message raises TransportError when waited for.
  virtual Request irecv(int source, int tag, void* data, std::size_t capacity) = 0;
  /// Waits until one active request completes and returns its index; npos if none is active.
  /// Throws TimeoutError when the timeout runs out first.
  virtual std::size_t wait_any(std::span<Request> requests, Timeout timeout = {});
  /// Creates a window of `bytes` bytes with `notifications` slots on every rank (collective).
  virtual std::unique_ptr<Window> create_window(std::size_t bytes, int notifications) = 0;
  /// Whether create_window() can give a window (false for a composing algorithm's SubComm).
  [[nodiscard]] virtual bool has_windows() const { return true; }
  /// The largest message the backend sends (npos: no limit; the mpi backend: INT_MAX bytes).
  /// Selection gives a call that moves more in all to the backend's "native" algorithm.
  [[nodiscard]] virtual std::size_t max_message_bytes() const { return npos; }
  /// Which ranks share a node, the same on every rank (ragged/layout.hpp); null when the backend
  /// does not know (one rank per node is then assumed). RAGGED_LAYOUT overrides it in dispatch.
  [[nodiscard]] virtual std::shared_ptr<const NodeLayout> layout() const { return nullptr; }
  /// What the backend knows of its links (ragged/layout.hpp); null when nothing.
  [[nodiscard]] virtual std::shared_ptr<const NetworkModel> network() const { return nullptr; }

  /// Waits for every request; throws TimeoutError when the timeout runs out first.
  void wait_all(std::span<Request> requests, Timeout timeout = {});
  void send(int dest, int tag, const void* data, std::size_t bytes, Timeout timeout = {});
  Status recv(int source, int tag, void* data, std::size_t capacity, Timeout timeout = {});
  /// Sends and receives concurrently (deadlock-free exchange).
  Status sendrecv(int dest, int send_tag, const void* send_data, std::size_t send_bytes, int source, int recv_tag,
                  void* recv_data, std::size_t recv_capacity, Timeout timeout = {});

  /// What a layer above the seam keeps on this communicator, one value per type T, as MPI
  /// caches attributes on a communicator (MPI_Comm_set_attr): made by T's default constructor at
  /// the first call, owned by the Comm and destroyed with it. The seam knows none of these types
  /// (dispatch keeps its workspace and fallback log this way). From the rank's foreground only.
  template <class T>
  [[nodiscard]] T& cached() {
    const std::type_index key(typeid(T));
    for (auto& [type, value] : attributes_) {
      if (type == key) return *static_cast<T*>(value.get());
    }
    auto value = std::make_shared<T>();
    T& out = *value;
    attributes_.emplace_back(key, std::move(value));
    return out;
  }

 protected:
  /// Marks `request` complete with the status its implementation reports.
  static void mark_complete(Request& request);
  /// Default wait_any: polls test() and yields through the runtime.
  std::size_t poll_wait_any(std::span<Request> requests, Timeout timeout, double poll_interval_s);

 private:
  std::vector<std::pair<std::type_index, std::shared_ptr<void>>> attributes_;
};

/// Checks that `rank` names a rank of `comm` (0..size-1); throws InvalidArgument naming `argument`.
void check_rank(const Comm& comm, int rank, const char* argument);

/// What the incomplete requests of `requests` wait for, for a timeout's message: "a receive from
/// rank 3, tag 17, a send to rank 1, tag 17" (at most 8, then "and N more"); empty if none says.
[[nodiscard]] std::string describe_pending(std::span<Request> requests);

}  // namespace ragged
