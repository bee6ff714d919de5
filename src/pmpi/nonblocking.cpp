// Nonblocking collectives of libragged_pmpi.so: the communicators' workers and the generalized
// requests (nonblocking.hpp).
#include "nonblocking.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "completion.hpp"
#include "pmpi.hpp"
#include "ragged/mpi.hpp"
#include "report_internal.hpp"
#include "site_prediction.hpp"

namespace ragged::pmpi::nonblocking {
namespace {

/// Whether the calling thread is a worker.
thread_local bool on_worker_thread = false;

/// A request's extra state: what the worker leaves for the waiting thread. The worker writes it
/// before MPI_Grequest_complete and never touches it after; the free callback deletes it. The
/// mutex orders the worker's writes (the program's buffers included) before the waiting thread's
/// reads where a thread checker can see it: MPI's completion is invisible to ThreadSanitizer.
struct Completion {
  std::mutex mutex;
  int code = MPI_SUCCESS;
  std::string outcome = "none";  ///< what ran (note_last of the worker's thread)
  MPI_Request handle = MPI_REQUEST_NULL;
  completion::Token token;  ///< the MPI_Wait family sleeps on it (completion.hpp)
};

int query(void* extra, MPI_Status* status) {
  auto* done = static_cast<Completion*>(extra);
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  const std::lock_guard<std::mutex> lock(done->mutex);
  note_last(done->outcome);  // the thread that completes the request learns what ran
  return done->code;
}

int release(void* extra) {
  auto* done = static_cast<Completion*>(extra);
  completion::untrack(done->handle, done->token.get());
  delete done;
  return MPI_SUCCESS;
}

/// A collective cannot be cancelled (MPI); the request completes as the collective does.
int cancel(void* /*extra*/, int /*complete*/) { return MPI_SUCCESS; }

/// One posted call.
struct Task {
  Job job;
  Describe describe;
  report::Kind kind = report::Kind::barrier;
  double posted = 0;        ///< the rank's arrival: the time of the post
  bool recorded = false;    ///< the report reserved the communicator's record at the post
  report::CallRecord info;  ///< rank, size, inter filled at the post
  std::size_t record = 0;   ///< the communicator's record in the report
  Finish finish;            ///< completes the program's request
};

/// A communicator's worker: its copy (MPI_Comm_idup at the first post) and its thread.
class Worker {
 public:
  explicit Worker(MPI_Comm user) : user_(user) {
    const int rc = PMPI_Comm_idup(user, &shadow_, &dup_);
    if (rc != MPI_SUCCESS) throw TransportError(rc, "MPI_Comm_idup failed", "nonblocking collective");
    thread_ = std::thread([this] { loop(); });
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() { join(); }

  void push(Task task) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(task));
      ++posted_;
    }
    wake_.notify_all();
  }
  [[nodiscard]] MPI_Comm user() const { return user_; }
  [[nodiscard]] bool stopping() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return stopping_;
  }
  /// After the jobs posted so far: the copy is freed and the thread ends (the communicator was freed).
  void stop() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
  }
  /// Waits until the copy exists: the MPI library may not keep a communicator whose
  /// MPI_Comm_idup is pending alive through MPI_Comm_free (Open MPI 4.1 does not).
  void await_copy() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return copied_; });
  }
  /// Waits until every job posted so far has returned.
  void drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    const unsigned long long target = posted_;
    idle_.wait(lock, [&] { return finished_ >= target || ended_; });
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  [[nodiscard]] bool ended() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return ended_;
  }

 private:
  void loop();
  void run(Task& task);

  MPI_Comm user_;  ///< the program's communicator (while it holds the attribute)
  MPI_Comm shadow_ = MPI_COMM_NULL;
  MPI_Request dup_ = MPI_REQUEST_NULL;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<Task> queue_;
  unsigned long long posted_ = 0;
  unsigned long long finished_ = 0;
  bool stopping_ = false;
  bool copied_ = false;  ///< the MPI_Comm_idup completed
  bool ended_ = false;
};

void Worker::run(Task& task) {
  int code = MPI_SUCCESS;
  try {
    code = task.job(shadow_);
  } catch (const std::exception& e) {
    code = raise_error(shadow_, e.what(), "a nonblocking collective", MPI_ERR_INTERN);
  }
  completion::unpin();  // the program's datatypes and operators: done with them
  const double exit = report::now();
  if (task.recorded && code == MPI_SUCCESS && report::enabled()) {
    try {
      const std::lock_guard<std::mutex> lock(report::detail::mutex());
      task.describe(task.info);
      report::detail::commit(task.record, task.kind, task.info, task.posted, exit);
    } catch (const std::exception& e) {
      report::detail::failed(e.what());
    }
  }
  task.finish(code, last());
}

void Worker::loop() {
  on_worker_thread = true;
  ragged::mpi::emulate_windows_on_this_thread();  // RMA windows of several workers at once hang
  prediction::off_on_this_thread();               // the arrival monitors follow the program's thread (docs/pmpi.md)
  PMPI_Wait(&dup_, MPI_STATUS_IGNORE);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    copied_ = true;
  }
  idle_.notify_all();
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) break;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    run(task);
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      ++finished_;
    }
    idle_.notify_all();
  }
  PMPI_Comm_free(&shadow_);  // its state (ragged's Comm) goes with it
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    ended_ = true;
  }
  idle_.notify_all();
}

/// Every worker of the process, and the keyval that ties one to its communicator.
struct Workers {
  std::mutex mutex;
  std::list<std::unique_ptr<Worker>> all;
  int keyval = MPI_KEYVAL_INVALID;
};
Workers& workers() {
  static Workers* w = new Workers;  // never destroyed: workers end at MPI_Finalize
  return *w;
}

/// The communicator was freed (or MPI_Finalize deletes the attribute): its worker stops after
/// the jobs posted so far.
int forget(MPI_Comm /*comm*/, int /*keyval*/, void* value, void* /*extra*/) {
  auto* worker = static_cast<Worker*>(value);
#ifdef OPEN_MPI
  // Open MPI deletes the attribute in the program's MPI_Comm_free, at once, and does not keep the
  // communicator alive for a pending MPI_Comm_idup: wait for the copy (MPI_Comm_free is
  // collective: the other ranks posted theirs too). MPICH holds the communicator until the idup
  // completes and deletes the attribute then, possibly inside a worker's own wait for its copy:
  // it must not wait there.
  if (!on_worker_thread) worker->await_copy();
#endif
  worker->stop();
  return MPI_SUCCESS;
}

/// `comm`'s worker, made at its first post (joins the workers that ended meanwhile).
Worker& worker_of(MPI_Comm comm) {
  Workers& w = workers();
  const std::lock_guard<std::mutex> lock(w.mutex);
  if (w.keyval == MPI_KEYVAL_INVALID) {
    const int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &forget, &w.keyval, nullptr);
    if (rc != MPI_SUCCESS) throw TransportError(rc, "MPI_Comm_create_keyval failed", "nonblocking collective");
  }
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, w.keyval, &value, &found);
  if (found != 0) return *static_cast<Worker*>(value);
  for (auto it = w.all.begin(); it != w.all.end();) {
    if ((*it)->ended()) {
      (*it)->join();
      it = w.all.erase(it);
    } else {
      ++it;
    }
  }
  auto made = std::make_unique<Worker>(comm);
  Worker& worker = *made;
  w.all.push_back(std::move(made));
  const int rc = PMPI_Comm_set_attr(comm, w.keyval, &worker);
  if (rc != MPI_SUCCESS) throw TransportError(rc, "MPI_Comm_set_attr failed", "nonblocking collective");
  return worker;
}

}  // namespace

bool on_worker() { return on_worker_thread; }

bool available() {
  static const bool granted = [] {
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    return provided >= MPI_THREAD_MULTIPLE;
  }();
  if (!granted) {
    say_once("nonblocking",
             "ragged pmpi: MPI did not grant MPI_THREAD_MULTIPLE: nonblocking collectives are the "
             "MPI library's");
  }
  return granted;
}

bool takes(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return false;
  int inter = 0;
  return PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter == 0;
}

int post_then(MPI_Comm comm, report::Kind kind, Job job, Describe describe, const Start& start) {
  Task task;
  task.posted = report::now();
  task.kind = kind;
  task.job = std::move(job);
  task.describe = std::move(describe);
  try {
    if (report::enabled()) {
      // The communicator's record is made in the program's thread, in the order of its calls
      // (the report names communicators by that order on every rank).
      const std::lock_guard<std::mutex> lock(report::detail::mutex());
      task.recorded = report::detail::begin(comm, task.info, task.record);
    }
    Worker& worker = worker_of(comm);
    task.finish = start();
    completion::pin();  // until the job has run (MPI_Type_free, MPI_Op_free may come first)
    worker.push(std::move(task));
    return MPI_SUCCESS;
  } catch (const TransportError& e) {
    return raise_error(comm, e.what(), report::name_of(kind), class_of(e.code()));
  } catch (const std::bad_alloc& e) {
    return raise_error(comm, e.what(), report::name_of(kind), MPI_ERR_NO_MEM);
  } catch (const std::exception& e) {
    return raise_error(comm, e.what(), report::name_of(kind), MPI_ERR_INTERN);
  }
}

int post(MPI_Comm comm, report::Kind kind, Job job, Describe describe, MPI_Request* request) {
  return post_then(comm, kind, std::move(job), std::move(describe), [request]() -> Finish {
    auto done = std::make_unique<Completion>();
    const int rc = PMPI_Grequest_start(&query, &release, &cancel, done.get(), request);
    if (rc != MPI_SUCCESS) throw TransportError(rc, "MPI_Grequest_start failed", "nonblocking collective");
    Completion* extra = done.release();  // the request's now: release() deletes it
    const MPI_Request handle = *request;
    extra->handle = handle;
    extra->token = completion::track(handle);
    return [extra, handle, token = extra->token](int code, const std::string& outcome) {
      {
        const std::lock_guard<std::mutex> lock(extra->mutex);
        extra->code = code;
        extra->outcome = outcome;
      }
      MPI_Request r = handle;
      PMPI_Grequest_complete(r);  // the request (and `extra`) are the waiting thread's now
      completion::done(token);
    };
  });
}

void quiesce() {
  Workers& w = workers();
  const std::lock_guard<std::mutex> lock(w.mutex);
  for (const auto& worker : w.all) worker->drain();
}

void finalize_all() {
  Workers& w = workers();
  std::list<std::unique_ptr<Worker>> all;
  int keyval = MPI_KEYVAL_INVALID;
  {
    const std::lock_guard<std::mutex> lock(w.mutex);
    all.swap(w.all);
    keyval = w.keyval;
    w.keyval = MPI_KEYVAL_INVALID;
  }
  if (keyval == MPI_KEYVAL_INVALID) return;
  // Communicators the program did not free still hold the attribute: deleting it stops their
  // workers (MPI would call the delete callback later, on a worker that no longer exists).
  for (const auto& worker : all) {
    if (!worker->stopping()) PMPI_Comm_delete_attr(worker->user(), keyval);
    worker->stop();
  }
  for (const auto& worker : all) worker->join();
  all.clear();
  PMPI_Comm_free_keyval(&keyval);
}

}  // namespace ragged::pmpi::nonblocking
