// The emulated Window of the mpi backend: notified puts over two-sided messages and a progress
// thread per window, for MPI libraries that have no one-sided transport at the thread level
// ragged needs (Open MPI 4.1 over TCP under MPI_THREAD_MULTIPLE: osc/pt2pt refuses the
// thread level, osc/rdma needs an RDMA network; MPI_Win_allocate fails with MPI_ERR_WIN).
// docs/backends/mpi.md, "Windows".
//
//   origin                          target's progress thread         target's caller
//   put_notify: copy header+data,
//     MPI_Isend(tag put) ---------> MPI_Improbe, MPI_Imrecv (every matched
//                                   put in flight at once); in match order:
//                                   lock; data at offset;
//                                   notification id = value;
//                                   unlock; notify waiters --------> notify_wait_some wakes
//   flush: wait the sends,  <------ MPI_Isend(tag ack)                 (data before notification:
//     then one ack per put                                            both under one mutex)
//
// Ordering: MPI keeps one origin's messages to one target in order, so puts land in the
// order they were issued, as with RMA and its flushes. The window has its own duplicate
// communicator: its tags cannot meet the algorithms'. Destruction is collective: flush,
// barrier (every put has landed), then each rank stops its own thread with a message to itself.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "internal.hpp"

namespace ragged::mpi::detail {

namespace {

constexpr int tag_put = 1;
constexpr int tag_ack = 2;

/// Waits for `request` by polling MPI_Test: MPICH 4.0's blocking waits can miss a completion by
/// another thread's message to self (docs/portability.md, "Threads"), and a window talks to
/// itself (a rank's puts to its own window, their acknowledgements, the stop message).
void poll(MPI_Request& request, const char* call) {
  Backoff backoff;
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
    if (done != 0) return;
    backoff.pause();
  }
}

/// Sends `bytes` bytes to `dest` and waits for the send by polling.
void send_polling(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, dest, tag, comm, &request), "MPI_Isend");
  poll(request, "MPI_Isend");
}

struct Header {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t value = 0;  ///< 0: no notification (a chunk before the last) or a stop
  std::int32_t id = 0;
  std::int32_t stop = 0;
};

class EmulatedWindow final : public Window {
 public:
  EmulatedWindow(MpiComm& comm, std::size_t bytes, int notifications)
      : data_(bytes),
        slots_(static_cast<std::size_t>(notifications > 0 ? notifications : 0), 0),
        notifications_(notifications),
        rank_(comm.rank()),
        size_(comm.size()) {
    if (notifications < 0) {
      throw InvalidArgument("notifications", "negative count " + std::to_string(notifications));
    }
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided != MPI_THREAD_MULTIPLE) {
      throw TransportError(MPI_ERR_OTHER, "the emulated window needs MPI_THREAD_MULTIPLE", "MPI_Query_thread");
    }
    check(MPI_Comm_dup(comm.handle(), &comm_), "MPI_Comm_dup");
    check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    live_windows().fetch_add(1, std::memory_order_relaxed);
    progress_ = std::thread([this] { serve(); });
    // Nobody may write into a window before its owner can take the writes.
    check(PMPI_Barrier(comm_), "MPI_Barrier");
  }

  ~EmulatedWindow() override {
    try {
      flush();
      PMPI_Barrier(comm_);  // every rank's puts have landed
    } catch (...) {         // NOLINT(bugprone-empty-catch): a destructor cannot report; stop anyway
    }
    Header stop;
    stop.stop = 1;
    try {
      send_polling(&stop, sizeof stop, rank_, tag_put, comm_);
    } catch (...) {  // NOLINT(bugprone-empty-catch): the thread may have stopped on an error already
    }
    if (progress_.joinable()) progress_.join();
    MPI_Comm_free(&comm_);
    live_windows().fetch_sub(1, std::memory_order_relaxed);
  }
  EmulatedWindow(const EmulatedWindow&) = delete;
  EmulatedWindow& operator=(const EmulatedWindow&) = delete;

  [[nodiscard]] std::span<std::byte> local() override { return data_; }
  [[nodiscard]] std::size_t bytes() const override { return data_.size(); }
  [[nodiscard]] int notifications() const override { return notifications_; }

  void put_notify(int target, std::size_t offset, const void* data, std::size_t size, int id,
                  std::uint64_t value) override {
    rethrow();
    if (target < 0 || target >= size_) {
      throw InvalidArgument("target", "rank " + std::to_string(target) + " is outside 0.." + std::to_string(size_ - 1));
    }
    if (offset > data_.size()) {
      throw InvalidArgument("offset", "offset " + std::to_string(offset) + " is past the window's " +
                                          std::to_string(data_.size()) + " bytes");
    }
    if (size > data_.size() - offset) {
      throw InvalidArgument("size", std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                                        " overrun the window's " + std::to_string(data_.size()) + " bytes");
    }
    if (data == nullptr && size != 0)
      throw InvalidArgument("data", "null buffer for " + std::to_string(size) + " bytes");
    check_notification(id, notifications_, "id");
    if (value == 0) throw InvalidArgument("value", "a notification value must be non-zero");
    // Messages of at most 1 GiB (MPI counts are int); only the last carries the notification.
    constexpr std::size_t chunk = std::size_t{1} << 30;
    std::size_t done = 0;
    do {
      const std::size_t n = size - done < chunk ? size - done : chunk;
      Header h;
      h.offset = offset + done;
      h.size = n;
      h.id = id;
      h.value = done + n == size ? value : 0;
      Outgoing out;
      out.bytes.resize(sizeof h + n);
      std::memcpy(out.bytes.data(), &h, sizeof h);
      if (n != 0) std::memcpy(out.bytes.data() + sizeof h, static_cast<const std::byte*>(data) + done, n);
      check(MPI_Isend(out.bytes.data(), static_cast<int>(out.bytes.size()), MPI_BYTE, target, tag_put, comm_,
                      &out.request),
            "MPI_Isend");
      sent_.push_back(std::move(out));
      ++unacknowledged_;
      done += n;
    } while (done < size);
    reap();
  }

  int notify_wait_some(int first, int count, Timeout timeout) override {
    check_notifications(first, count, notifications_);
    std::unique_lock<std::mutex> lock(mutex_);
    const auto ready = [&] {
      if (error_) return true;
      for (int i = 0; i < count; ++i) {
        if (slots_[static_cast<std::size_t>(first + i)] != 0) return true;
      }
      return false;
    };
    if (timeout) {
      const auto limit = std::chrono::duration<double>(std::max(0.0, *timeout));
      if (!changed_.wait_for(lock, limit, ready)) {
        throw TimeoutError("Window::notify_wait_some: none of notifications " + std::to_string(first) + ".." +
                           std::to_string(first + count - 1) + " arrived within " + std::to_string(*timeout) + " s");
      }
    } else {
      changed_.wait(lock, ready);
    }
    if (error_) std::rethrow_exception(error_);
    for (int i = 0; i < count; ++i) {
      if (slots_[static_cast<std::size_t>(first + i)] != 0) return first + i;
    }
    return first;  // unreachable: ready() held
  }

  std::uint64_t notify_reset(int id) override {
    check_notification(id, notifications_, "id");
    const std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(slots_[static_cast<std::size_t>(id)], 0);
  }

  void flush() override {
    rethrow();
    for (Outgoing& o : sent_) poll(o.request, "MPI_Isend");
    sent_.clear();
    for (; unacknowledged_ > 0; --unacknowledged_) {
      MPI_Request ack = MPI_REQUEST_NULL;
      check(MPI_Irecv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, tag_ack, comm_, &ack), "MPI_Irecv");
      poll(ack, "MPI_Irecv");
    }
  }

 private:
  struct Outgoing {
    std::vector<std::byte> bytes;
    MPI_Request request = MPI_REQUEST_NULL;
  };

  void rethrow() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (error_) std::rethrow_exception(error_);
  }

  /// Frees the buffers of the sends that have completed and takes the acknowledgements that have
  /// arrived, without waiting for either: a rank that never flushes leaves at most one call's
  /// acknowledgements in MPI's queue of unexpected messages, which slows every match.
  void reap() {
    std::erase_if(sent_, [](Outgoing& o) {
      int done = 0;
      check(MPI_Test(&o.request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      return done != 0;
    });
    while (unacknowledged_ > 0) {
      int flag = 0;
      MPI_Message message = MPI_MESSAGE_NULL;
      check(MPI_Improbe(MPI_ANY_SOURCE, tag_ack, comm_, &flag, &message, MPI_STATUS_IGNORE), "MPI_Improbe");
      if (flag == 0) break;
      check(MPI_Mrecv(nullptr, 0, MPI_BYTE, &message, MPI_STATUS_IGNORE), "MPI_Mrecv");
      --unacknowledged_;
    }
  }

  /// The progress thread: applies every put that reaches this rank, acknowledges it, and
  /// stops at the message this rank sends itself when the window goes. It receives every put it
  /// has matched at once (MPI_Imrecv), so rendezvous transfers from many origins overlap instead
  /// of costing a round trip each, one after another; it applies them in the order they matched,
  /// which keeps each origin's puts in the order they were issued.
  void serve() {
    struct Incoming {
      std::vector<std::byte> bytes;
      MPI_Request request = MPI_REQUEST_NULL;
      int source = 0;
    };
    Backoff backoff;
    std::deque<Incoming> matched;
    std::vector<MPI_Request> acks;
    try {
      for (;;) {
        bool moved = false;
        int flag = 0;
        MPI_Message message = MPI_MESSAGE_NULL;
        MPI_Status status;
        check(MPI_Improbe(MPI_ANY_SOURCE, tag_put, comm_, &flag, &message, &status), "MPI_Improbe");
        if (flag != 0) {
          int count = 0;
          check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
          Incoming& in = matched.emplace_back();
          in.bytes.resize(static_cast<std::size_t>(count));
          in.source = status.MPI_SOURCE;
          check(MPI_Imrecv(in.bytes.data(), count, MPI_BYTE, &message, &in.request), "MPI_Imrecv");
          moved = true;
        }
        while (!matched.empty()) {
          Incoming& in = matched.front();
          int done = 0;
          check(MPI_Test(&in.request, &done, MPI_STATUS_IGNORE), "MPI_Test");
          if (done == 0) break;
          Header h;
          std::memcpy(&h, in.bytes.data(), sizeof h);
          if (h.stop != 0) {
            for (MPI_Request& ack : acks) poll(ack, "MPI_Isend");
            return;
          }
          {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (h.size != 0) std::memcpy(data_.data() + h.offset, in.bytes.data() + sizeof h, h.size);
            if (h.value != 0) slots_[static_cast<std::size_t>(h.id)] = h.value;
          }
          changed_.notify_all();
          check(MPI_Isend(nullptr, 0, MPI_BYTE, in.source, tag_ack, comm_, &acks.emplace_back()), "MPI_Isend");
          matched.pop_front();
          moved = true;
        }
        std::erase_if(acks, [](MPI_Request& ack) {
          int done = 0;
          check(MPI_Test(&ack, &done, MPI_STATUS_IGNORE), "MPI_Test");
          return done != 0;
        });
        if (moved) {
          backoff = Backoff{};
        } else {
          backoff.pause();
        }
      }
    } catch (...) {
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
      }
      changed_.notify_all();
    }
  }

  std::vector<std::byte> data_;
  std::vector<std::uint64_t> slots_;
  int notifications_;
  int rank_;
  int size_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::mutex mutex_;  // data_ (written by the progress thread), slots_, error_
  std::condition_variable changed_;
  std::exception_ptr error_;
  std::thread progress_;
  std::vector<Outgoing> sent_;  // the caller's thread only
  std::size_t unacknowledged_ = 0;
};

}  // namespace

std::unique_ptr<Window> make_emulated_window(MpiComm& comm, std::size_t bytes, int notifications) {
  return std::make_unique<EmulatedWindow>(comm, bytes, notifications);
}

}  // namespace ragged::mpi::detail
