// The Window of the mpi backend: MPI-3 RMA in one passive-target epoch.
//
// Each rank allocates (MPI_Win_allocate) its data bytes, padded to 8, followed by one
// uint64 per notification slot, the whole padded to 64 bytes, and opens an
// MPI_Win_lock_all epoch that lasts as long as the window. put_notify writes the data
// (MPI_Put), completes it at the target (MPI_Win_flush), and only then writes the
// notification (MPI_Accumulate with MPI_REPLACE) and completes that too: a rank that sees
// the notification sees the data.
// Notification slots are only ever touched by accumulate operations on MPI_UINT64_T
// (MPI_REPLACE to write, MPI_NO_OP to read), which MPI makes atomic with respect to each
// other; the owner reads its own slots through MPI_Get_accumulate on itself.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "internal.hpp"
#include "ragged/selection.hpp"

namespace ragged::mpi::detail {

void check_notification(int id, int notifications, const char* argument) {
  if (id < 0 || id >= notifications) {
    throw InvalidArgument(argument,
                          "notification " + std::to_string(id) + " is outside 0.." + std::to_string(notifications - 1));
  }
}

void check_notifications(int first, int count, int notifications) {
  check_notification(first, notifications, "first");
  if (count < 1 || count > notifications - first) {
    throw InvalidArgument("count", "slots " + std::to_string(first) + ".." + std::to_string(first + count - 1) +
                                       " are not all among the window's " + std::to_string(notifications) +
                                       " notifications");
  }
}

namespace {

constexpr std::size_t slot_bytes = sizeof(std::uint64_t);
constexpr std::size_t window_align = 64;

class MpiWindow final : public Window {
 public:
  MpiWindow(MpiComm& comm, std::size_t bytes, int notifications)
      : bytes_(bytes), notifications_(notifications), rank_(comm.rank()), size_(comm.size()) {
    if (notifications < 0) {
      throw InvalidArgument("notifications", "negative count " + std::to_string(notifications));
    }
    const std::size_t padded = (bytes + slot_bytes - 1) / slot_bytes * slot_bytes;
    if (padded < bytes) throw InvalidArgument("bytes", "window too large");
    notify_offset_ = static_cast<MPI_Aint>(padded);
    // Each rank's share padded to a whole number of 64-byte lines: MPICH 4.0's MPI_Win_allocate on
    // one node places puts and accumulates at wrong addresses when a rank's size is not a multiple
    // of 16 bytes (docs/portability.md, "RMA"). The padding is never exposed (local() is `bytes`).
    const std::size_t used = padded + static_cast<std::size_t>(notifications) * slot_bytes;
    const std::size_t total = (used + window_align - 1) / window_align * window_align;
    if (total < used) throw InvalidArgument("bytes", "window too large");
    void* base = nullptr;
    MPI_Comm mpi_comm = comm.handle();
    check(MPI_Win_allocate(static_cast<MPI_Aint>(total), 1, MPI_INFO_NULL, mpi_comm, &base, &win_), "MPI_Win_allocate");
    live_windows().fetch_add(1, std::memory_order_relaxed);
    base_ = static_cast<std::byte*>(base);
    try {
      check(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
      if (total != 0) std::memset(base_, 0, total);
      check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
      locked_ = true;
      check(MPI_Win_sync(win_), "MPI_Win_sync");
      // Nobody may write into a window before its owner has zeroed it.
      // PMPI_: a PMPI library that wraps MPI_Barrier must not see ragged's own barrier.
      check(PMPI_Barrier(mpi_comm), "MPI_Barrier");
    } catch (...) {
      release();
      throw;
    }
  }

  ~MpiWindow() override { release(); }
  MpiWindow(const MpiWindow&) = delete;
  MpiWindow& operator=(const MpiWindow&) = delete;

  [[nodiscard]] std::span<std::byte> local() override { return {base_, bytes_}; }
  [[nodiscard]] std::size_t bytes() const override { return bytes_; }
  [[nodiscard]] int notifications() const override { return notifications_; }

  void put_notify(int target, std::size_t offset, const void* data, std::size_t size, int id,
                  std::uint64_t value) override {
    if (target < 0 || target >= size_) {
      throw InvalidArgument("target", "rank " + std::to_string(target) + " is outside 0.." + std::to_string(size_ - 1));
    }
    if (offset > bytes_) {
      throw InvalidArgument(
          "offset", "offset " + std::to_string(offset) + " is past the window's " + std::to_string(bytes_) + " bytes");
    }
    if (size > bytes_ - offset) {
      throw InvalidArgument("size", std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                                        " overrun the window's " + std::to_string(bytes_) + " bytes");
    }
    if (data == nullptr && size != 0)
      throw InvalidArgument("data", "null buffer for " + std::to_string(size) + " bytes");
    check_notification(id, notifications_, "id");
    if (value == 0) throw InvalidArgument("value", "a notification value must be non-zero");

    // MPI counts are int: larger writes go in chunks, all completed by the flush below.
    for (std::size_t done = 0; done < size;) {
      const std::size_t n = size - done < max_count ? size - done : max_count;
      check(MPI_Put(static_cast<const std::byte*>(data) + done, static_cast<int>(n), MPI_BYTE, target,
                    static_cast<MPI_Aint>(offset + done), static_cast<int>(n), MPI_BYTE, win_),
            "MPI_Put");
      done += n;
    }
    if (size != 0) check(MPI_Win_flush(target, win_), "MPI_Win_flush");
    const std::uint64_t notification = value;
    check(MPI_Accumulate(&notification, 1, MPI_UINT64_T, target, slot(id), 1, MPI_UINT64_T, MPI_REPLACE, win_),
          "MPI_Accumulate");
    check(MPI_Win_flush(target, win_), "MPI_Win_flush");
  }

  int notify_wait_some(int first, int count, Timeout timeout) override {
    check_notifications(first, count, notifications_);
    ThreadRuntime clock;
    const double deadline = timeout ? clock.now() + *timeout : 0.0;
    std::vector<std::uint64_t> values(static_cast<std::size_t>(count));
    Backoff backoff;
    for (;;) {
      check(MPI_Get_accumulate(nullptr, 0, MPI_UINT64_T, values.data(), count, MPI_UINT64_T, rank_, slot(first), count,
                               MPI_UINT64_T, MPI_NO_OP, win_),
            "MPI_Get_accumulate");
      check(MPI_Win_flush(rank_, win_), "MPI_Win_flush");
      // Make the data of the puts that preceded these notifications visible to local loads.
      check(MPI_Win_sync(win_), "MPI_Win_sync");
      for (int i = 0; i < count; ++i) {
        if (values[static_cast<std::size_t>(i)] != 0) return first + i;
      }
      if (timeout && clock.now() >= deadline) {
        throw TimeoutError("Window::notify_wait_some: none of notifications " + std::to_string(first) + ".." +
                           std::to_string(first + count - 1) + " arrived within " + std::to_string(*timeout) + " s");
      }
      backoff.pause();
    }
  }

  std::uint64_t notify_reset(int id) override {
    check_notification(id, notifications_, "id");
    const std::uint64_t zero = 0;
    std::uint64_t old = 0;
    check(MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, rank_, slot(id), MPI_REPLACE, win_), "MPI_Fetch_and_op");
    check(MPI_Win_flush(rank_, win_), "MPI_Win_flush");
    return old;
  }

  void flush() override { check(MPI_Win_flush_all(win_), "MPI_Win_flush_all"); }

 private:
  [[nodiscard]] MPI_Aint slot(int id) const {
    return notify_offset_ + static_cast<MPI_Aint>(static_cast<std::size_t>(id) * slot_bytes);
  }

  // Ends the epoch and frees the window (collective); errors cannot leave a destructor.
  void release() noexcept {
    if (win_ == MPI_WIN_NULL) return;
    live_windows().fetch_sub(1, std::memory_order_relaxed);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized != 0) return;
    if (locked_) MPI_Win_unlock_all(win_);
    locked_ = false;
    MPI_Win_free(&win_);
    win_ = MPI_WIN_NULL;
  }

  MPI_Win win_ = MPI_WIN_NULL;
  std::byte* base_ = nullptr;
  std::size_t bytes_;
  int notifications_;
  int rank_;
  int size_;
  MPI_Aint notify_offset_ = 0;
  bool locked_ = false;
};

/// Whether MPI-3 windows on `comm` may share memory with another communicator's. Open MPI before
/// 5.0 names the shared-memory file of an osc/rdma window after the node, the job and the
/// communicator's id only (`osc_rdma.<node>.<job>.<cid>`), and an id is unique only among the
/// processes that share it: two communicators with no process in common on one node can have
/// the same id, and their windows then live in one file. A notification or a put into one
/// window lands in the other (open-mpi/ompi#9495, in 5.0; Debian 12 ships 4.1.4). Seen as
/// "expected notification 1 on slot 3, found 0" from alltoall onesided and "unlink(2)
/// /dev/shm/osc_rdma...: No such file" when the second window went. A communicator of every
/// process of MPI_COMM_WORLD cannot share its id with a live one, so only smaller ones are at risk.
bool rma_may_alias(MpiComm& comm) {
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
  int world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  return comm.size() < world;
#else
  (void)comm;
  return false;
#endif
}

/// Set by emulate_windows_on_this_thread().
thread_local bool emulated_on_this_thread = false;

}  // namespace

std::unique_ptr<Window> make_window(MpiComm& comm, std::size_t bytes, int notifications) {
  // RAGGED_WINDOW: "rma" (MPI-3 RMA or an error), "emulated" (window_emulated.cpp), or unset /
  // "auto": RMA, and the emulated window where MPI_Win_allocate fails (every rank alike: Open MPI
  // 4.1 over TCP under MPI_THREAD_MULTIPLE has no one-sided component) or where RMA windows of
  // Open MPI before 5.0 may alias another communicator's (rma_may_alias; every rank of `comm`
  // alike).
  // Read with the other settings (once per process, compared across ranks by the PMPI library).
  const std::string* env = environment().find("RAGGED_WINDOW");
  const std::string mode = env == nullptr || env->empty() ? "auto" : *env;
  if (mode != "auto" && mode != "rma" && mode != "emulated") {
    throw InvalidArgument("RAGGED_WINDOW", "'" + mode + "' is not a window kind (expected auto, rma or emulated)");
  }
  if (mode == "emulated" || emulated_on_this_thread) return make_emulated_window(comm, bytes, notifications);
  if (mode == "auto" && rma_may_alias(comm)) return make_emulated_window(comm, bytes, notifications);
  try {
    return std::make_unique<MpiWindow>(comm, bytes, notifications);
  } catch (const TransportError& e) {
    if (mode == "rma" || std::string_view(e.what()).rfind("MPI_Win_allocate:", 0) != 0) throw;
  }
  return make_emulated_window(comm, bytes, notifications);
}

}  // namespace ragged::mpi::detail

namespace ragged::mpi {
void emulate_windows_on_this_thread() { detail::emulated_on_this_thread = true; }
}  // namespace ragged::mpi
