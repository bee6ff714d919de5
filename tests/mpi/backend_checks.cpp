// Checks of what is particular to the mpi backend, beyond the backend-neutral conformance
// suite: the duplicated communicator, MPI errors surfacing as TransportError, argument
// checks naming the argument, the message-size limit, request timeouts that leave the
// request usable, cancellation of abandoned receives, MPI_Waitany/Testany, the RMA window,
// operator and datatype conversions, the thread runtime, and nested Sessions.
#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"
#include "support/check.hpp"

namespace ragged::mpitest {

namespace {

constexpr int tag = 77;

template <class E, class F>
void expect_throw(F&& f, const char* what) {
  try {
    f();
  } catch (const E&) {
    return;
  }
  throw test::CheckFailed(std::string("expected an exception: ") + what);
}

template <class F>
void expect_invalid(F&& f, const std::string& argument) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    if (e.argument() != argument) {
      throw test::CheckFailed("InvalidArgument names '" + e.argument() + "', expected '" + argument + "'");
    }
    return;
  }
  throw test::CheckFailed("expected InvalidArgument('" + argument + "')");
}

int next(const Comm& c) { return (c.rank() + 1) % c.size(); }
int prev(const Comm& c) { return (c.rank() + c.size() - 1) % c.size(); }

void check_duplicate(Comm& comm) {
  RAGGED_CHECK_EQ(comm.backend(), std::string("mpi"));
  RAGGED_CHECK_EQ(comm.runtime().backend(), std::string("mpi"));
  RAGGED_CHECK_EQ(comm.rank(), world_rank());
  RAGGED_CHECK_EQ(comm.size(), world_size());
  MPI_Comm dup = mpi::native_handle(comm);
  int relation = MPI_UNEQUAL;
  MPI_Comm_compare(dup, MPI_COMM_WORLD, &relation);
  RAGGED_CHECK_EQ(relation, MPI_CONGRUENT);  // same group, another context
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(dup, &handler);
  RAGGED_CHECK(handler == MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&handler);

  // A message on MPI_COMM_WORLD with the same tag never reaches the ragged Comm.
  const std::int32_t world_value = -1;
  const std::int32_t ragged_value = 1000 + comm.rank();
  std::int32_t got = 0;
  Request r = comm.irecv(prev(comm), tag, &got, sizeof got);
  MPI_Request world_send = MPI_REQUEST_NULL;
  MPI_Isend(&world_value, 1, MPI_INT32_T, next(comm), tag, MPI_COMM_WORLD, &world_send);
  comm.send(next(comm), tag, &ragged_value, sizeof ragged_value);
  r.wait(30.0);
  RAGGED_CHECK_EQ(got, 1000 + prev(comm));
  std::int32_t world_got = 0;
  MPI_Recv(&world_got, 1, MPI_INT32_T, prev(comm), tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&world_send, MPI_STATUS_IGNORE);
  RAGGED_CHECK_EQ(world_got, -1);
}

void check_arguments(Comm& comm) {
  std::int32_t x = 0;
  expect_invalid([&] { (void)comm.isend(comm.size(), tag, &x, sizeof x); }, "dest");
  expect_invalid([&] { (void)comm.isend(-1, tag, &x, sizeof x); }, "dest");
  expect_invalid([&] { (void)comm.isend(0, -1, &x, sizeof x); }, "tag");
  expect_invalid([&] { (void)comm.isend(0, max_tag + 1, &x, sizeof x); }, "tag");
  expect_invalid([&] { (void)comm.isend(0, tag, nullptr, 4); }, "data");
  expect_invalid([&] { (void)comm.irecv(comm.size(), tag, &x, sizeof x); }, "source");
  expect_invalid([&] { (void)comm.irecv(-2, tag, &x, sizeof x); }, "source");
  expect_invalid([&] { (void)comm.irecv(0, max_tag + 1, &x, sizeof x); }, "tag");
  expect_invalid([&] { (void)comm.irecv(0, tag, nullptr, 4); }, "data");
  // Messages over INT_MAX bytes are rejected before MPI sees them (nothing is read).
  expect_invalid([&] { (void)comm.isend(0, tag, &x, static_cast<std::size_t>(INT_MAX) + 1); }, "bytes");
  // The highest tag works, and zero-byte messages need no buffer.
  comm.sendrecv(next(comm), max_tag, nullptr, 0, prev(comm), max_tag, nullptr, 0, 30.0);
  // A Comm of another backend has no MPI communicator.
  struct Foreign final : Comm {
    [[nodiscard]] int rank() const override { return 0; }
    [[nodiscard]] int size() const override { return 1; }
    [[nodiscard]] Runtime& runtime() override { throw std::logic_error("unused"); }
    [[nodiscard]] std::string backend() const override { return "other"; }
    Request isend(int, int, const void*, std::size_t) override { return {}; }
    Request irecv(int, int, void*, std::size_t) override { return {}; }
    std::unique_ptr<Window> create_window(std::size_t, int) override { return nullptr; }
  } foreign;
  expect_invalid([&] { (void)mpi::native_handle(foreign); }, "comm");
}

// Open MPI 4.1.4 (ob1) reports truncation reliably only for eager-sized messages between
// processes, or to self when the message is already waiting when the receive is posted; a
// self message that finds its receive posted is truncated silently, and a rendezvous-sized
// message overruns the receive buffer (docs/backends/mpi.md). So: a small message, sent
// before the receive is posted.
void check_truncation(Comm& comm) {
  const std::vector<std::byte> payload(16, std::byte{7});
  std::vector<std::byte> small(8);
  Request s = comm.isend(next(comm), tag, payload.data(), payload.size());
  barrier(comm, 30.0);
  Request r = comm.irecv(prev(comm), tag, small.data(), small.size());
  s.wait(30.0);
  try {
    r.wait(30.0);
    throw test::CheckFailed("a receive of 16 bytes into 8 did not fail");
  } catch (const TransportError& e) {
    int error_class = MPI_SUCCESS;
    MPI_Error_class(e.code(), &error_class);
    RAGGED_CHECK_EQ(error_class, MPI_ERR_TRUNCATE);
    RAGGED_CHECK(!e.text().empty());
    RAGGED_CHECK(std::string(e.what()).find("MPI_Test") != std::string::npos);  // the call, named
  }
  // The failure sticks to the request.
  expect_throw<TransportError>([&] { r.wait(); }, "second wait on a truncated receive");
  expect_throw<TransportError>([&] { (void)r.test(); }, "test on a truncated receive");

  // The same through MPI_Waitany, and then through wait_any's skip of a failed request.
  Request s2 = comm.isend(next(comm), tag, payload.data(), payload.size());
  barrier(comm, 30.0);
  Request both[2] = {comm.irecv(prev(comm), tag, small.data(), small.size()), Request{}};
  s2.wait(30.0);
  expect_throw<TransportError>([&] { (void)comm.wait_any(both); }, "wait_any on a truncated receive");
  expect_throw<TransportError>([&] { (void)comm.wait_any(both); }, "wait_any again");
  expect_throw<TransportError>([&] { both[0].wait(); }, "wait after wait_any reported truncation");
}

void check_status_and_timeouts(Comm& comm) {
  std::int64_t got = 0;
  Request r = comm.irecv(any_source, tag + 1, &got, sizeof got);
  // Nothing was sent yet: the wait times out and leaves the request usable.
  const double t0 = comm.runtime().now();
  expect_throw<TimeoutError>([&] { r.wait(0.05); }, "wait(0.05) with no message");
  RAGGED_CHECK(comm.runtime().now() - t0 >= 0.05);
  RAGGED_CHECK(r.active());
  RAGGED_CHECK(!r.test());
  barrier(comm, 30.0);  // every rank has timed out before anything is sent
  const std::int64_t v = 5000 + comm.rank();
  comm.send(next(comm), tag + 1, &v, sizeof v, 30.0);
  r.wait(30.0);
  RAGGED_CHECK_EQ(got, 5000 + prev(comm));
  RAGGED_CHECK_EQ(r.status().source, prev(comm));
  RAGGED_CHECK_EQ(r.status().tag, tag + 1);
  RAGGED_CHECK_EQ(r.status().bytes, sizeof v);

  // A shorter message than the capacity reports its own length.
  std::vector<std::byte> big(64);
  Request s = comm.irecv(prev(comm), tag + 2, big.data(), big.size());
  comm.send(next(comm), tag + 2, &v, 3, 30.0);
  s.wait(30.0);
  RAGGED_CHECK_EQ(s.status().bytes, std::size_t{3});
}

void check_cancel(Comm& comm) {
  // An abandoned receive is cancelled: it does not swallow a later message.
  std::int32_t lost = 0;
  { Request r = comm.irecv(prev(comm), tag + 3, &lost, sizeof lost); }
  barrier(comm, 30.0);
  const std::int32_t v = 42 + comm.rank();
  std::int32_t got = 0;
  comm.sendrecv(next(comm), tag + 3, &v, sizeof v, prev(comm), tag + 3, &got, sizeof got, 30.0);
  RAGGED_CHECK_EQ(got, 42 + prev(comm));
  RAGGED_CHECK_EQ(lost, 0);
}

void check_wait_any(Comm& comm) {
  std::int32_t a = 0;
  std::int32_t b = 0;
  std::int32_t c = 0;
  Request requests[4];
  requests[0] = comm.irecv(prev(comm), tag + 10, &a, sizeof a);
  requests[2] = comm.irecv(prev(comm), tag + 12, &b, sizeof b);
  requests[3] = comm.irecv(prev(comm), tag + 13, &c, sizeof c);
  // requests[1] is empty and never chosen.
  expect_throw<TimeoutError>([&] { (void)comm.wait_any(requests, 0.02); }, "wait_any with nothing sent");
  barrier(comm, 30.0);
  const std::int32_t v = 7 + comm.rank();
  comm.send(next(comm), tag + 12, &v, sizeof v, 30.0);
  RAGGED_CHECK_EQ(comm.wait_any(requests), std::size_t{2});
  RAGGED_CHECK(requests[2].test());
  RAGGED_CHECK_EQ(b, 7 + prev(comm));
  RAGGED_CHECK_EQ(requests[2].status().tag, tag + 12);
  comm.send(next(comm), tag + 13, &v, sizeof v, 30.0);
  RAGGED_CHECK_EQ(comm.wait_any(requests, 30.0), std::size_t{3});  // the polling path
  barrier(comm, 30.0);  // else tag + 10 could arrive first and be the one returned
  comm.send(next(comm), tag + 10, &v, sizeof v, 30.0);
  RAGGED_CHECK_EQ(comm.wait_any(requests), std::size_t{0});
  RAGGED_CHECK_EQ(comm.wait_any(requests), Comm::npos);
  RAGGED_CHECK_EQ(comm.wait_any(requests, 0.01), Comm::npos);
  RAGGED_CHECK_EQ(a + c, 2 * (7 + prev(comm)));
}

void check_window(Comm& comm) {
  const int p = comm.size();
  const std::size_t block = 1000;
  auto win = comm.create_window(block * static_cast<std::size_t>(p), 3);
  RAGGED_CHECK_EQ(win->bytes(), block * static_cast<std::size_t>(p));
  RAGGED_CHECK_EQ(win->notifications(), 3);
  RAGGED_CHECK_EQ(win->local().size(), win->bytes());
  expect_throw<TimeoutError>([&] { (void)win->notify_wait_some(0, 3, 0.02); }, "notify_wait_some with no put");

  // Every rank writes a block to every rank (itself included) and notifies slot 1 or 2.
  std::vector<std::byte> mine(block);
  for (std::size_t i = 0; i < block; ++i)
    mine[i] = static_cast<std::byte>((comm.rank() * 31 + static_cast<int>(i)) & 0xff);
  barrier(comm, 30.0);
  for (int k = 0; k < p; ++k) {
    const int target = (comm.rank() + k) % p;
    win->put_notify(target, block * static_cast<std::size_t>(comm.rank()), mine.data(), block, 1 + comm.rank() % 2, 1);
  }
  win->flush();
  // put_notify returns once complete at the target: after the barrier every block and
  // notification is in place (slot 1 from even origins, slot 2 from odd ones).
  barrier(comm, 30.0);
  const int id = win->notify_wait_some(1, 2, 30.0);
  RAGGED_CHECK(id == 1 || id == 2);
  RAGGED_CHECK_EQ(id, 1);  // rank 0 notified slot 1 of every rank
  RAGGED_CHECK_EQ(win->notify_wait_some(0, 3, 30.0), 1);
  for (int origin = 0; origin < p; ++origin) {
    for (std::size_t i = 0; i < block; i += 97) {
      const auto expected = static_cast<std::byte>((origin * 31 + static_cast<int>(i)) & 0xff);
      RAGGED_CHECK(win->local()[block * static_cast<std::size_t>(origin) + i] == expected);
    }
  }
  RAGGED_CHECK_EQ(win->notify_reset(1), std::uint64_t{1});
  RAGGED_CHECK_EQ(win->notify_reset(1), std::uint64_t{0});
  RAGGED_CHECK_EQ(win->notify_reset(0), std::uint64_t{0});
  barrier(comm, 30.0);

  // Ordering: the value carried by a notification is visible with the data written before it.
  for (int round = 1; round <= 20; ++round) {
    std::vector<std::byte> data(block, static_cast<std::byte>(round));
    win->put_notify(next(comm), 0, data.data(), block, 0, static_cast<std::uint64_t>(round));
    RAGGED_CHECK_EQ(win->notify_wait_some(0, 1, 30.0), 0);
    const std::uint64_t v = win->notify_reset(0);
    RAGGED_CHECK_EQ(v, static_cast<std::uint64_t>(round));
    for (std::size_t i = 0; i < block; i += 37) RAGGED_CHECK(win->local()[i] == static_cast<std::byte>(round));
    barrier(comm, 30.0);  // the next round overwrites
  }

  std::byte x{};
  expect_invalid([&] { win->put_notify(p, 0, &x, 1, 0, 1); }, "target");
  expect_invalid([&] { win->put_notify(-1, 0, &x, 1, 0, 1); }, "target");
  expect_invalid([&] { win->put_notify(0, win->bytes() + 1, &x, 0, 0, 1); }, "offset");
  expect_invalid([&] { win->put_notify(0, win->bytes(), &x, 1, 0, 1); }, "size");
  expect_invalid([&] { win->put_notify(0, 0, nullptr, 1, 0, 1); }, "data");
  expect_invalid([&] { win->put_notify(0, 0, &x, 1, 3, 1); }, "id");
  expect_invalid([&] { win->put_notify(0, 0, &x, 1, -1, 1); }, "id");
  expect_invalid([&] { win->put_notify(0, 0, &x, 1, 0, 0); }, "value");
  expect_invalid([&] { (void)win->notify_wait_some(-1, 1, 0.0); }, "first");
  expect_invalid([&] { (void)win->notify_wait_some(2, 2, 0.0); }, "count");
  expect_invalid([&] { (void)win->notify_wait_some(0, 0, 0.0); }, "count");
  expect_invalid([&] { (void)win->notify_reset(3); }, "id");
  barrier(comm, 30.0);
  win.reset();  // collective
  auto empty = comm.create_window(0, 0);
  RAGGED_CHECK(empty->local().empty());
  expect_invalid([&] { (void)comm.create_window(8, -1); }, "notifications");
}

void check_conversions(Comm& /*comm*/) {
  RAGGED_CHECK(mpi::to_mpi(DataType::byte) == MPI_BYTE);
  RAGGED_CHECK(mpi::to_mpi(DataType::int32) == MPI_INT32_T);
  RAGGED_CHECK(mpi::to_mpi(DataType::int64) == MPI_INT64_T);
  RAGGED_CHECK(mpi::to_mpi(DataType::float32) == MPI_FLOAT);
  RAGGED_CHECK(mpi::to_mpi(DataType::float64) == MPI_DOUBLE);
  RAGGED_CHECK(mpi::to_mpi(ReduceOp::sum()) == MPI_SUM);
  RAGGED_CHECK(mpi::to_mpi(ReduceOp::prod()) == MPI_PROD);
  RAGGED_CHECK(mpi::to_mpi(ReduceOp::min()) == MPI_MIN);
  RAGGED_CHECK(mpi::to_mpi(ReduceOp::max()) == MPI_MAX);
  const ReduceOp plain = ReduceOp::make_custom(
      "plain", [](const void*, void*, std::size_t, DataType) {}, true);
  expect_invalid([&] { (void)mpi::to_mpi(plain); }, "op");
  expect_invalid([] { (void)mpi::from_mpi(MPI_OP_NULL); }, "op");

  const ReduceOp band = mpi::from_mpi(MPI_BAND);
  RAGGED_CHECK(band.kind == OpKind::custom);
  RAGGED_CHECK(band.commutative);
  RAGGED_CHECK_EQ(band.label, std::string("MPI_BAND"));
  RAGGED_CHECK(mpi::to_mpi(band) == MPI_BAND);
  // Applied through MPI_Reduce_local, with `in` as the left operand.
  const std::int64_t in[3] = {0b1100, 0b1010, -1};
  std::int64_t inout[3] = {0b1010, 0b0110, 5};
  reduce_local(band, DataType::int64, in, inout, 3);
  RAGGED_CHECK_EQ(inout[0], 0b1000);
  RAGGED_CHECK_EQ(inout[1], 0b0010);
  RAGGED_CHECK_EQ(inout[2], 5);

  MPI_Op user = MPI_OP_NULL;
  MPI_Op_create(
      [](void* a, void* b, int* len, MPI_Datatype*) {
        // b = a - b: not commutative; checks the operand order.
        auto* x = static_cast<double*>(a);
        auto* y = static_cast<double*>(b);
        for (int i = 0; i < *len; ++i) y[i] = x[i] - y[i];
      },
      0, &user);
  const ReduceOp minus = mpi::from_mpi(user);
  RAGGED_CHECK(!minus.commutative);
  RAGGED_CHECK(minus.native_handle != 0);
  RAGGED_CHECK(mpi::to_mpi(minus) == user);
  const double din[2] = {10, 1};
  double dinout[2] = {3, 4};
  reduce_local(minus, DataType::float64, din, dinout, 2);
  RAGGED_CHECK_EQ(dinout[0], 7.0);
  RAGGED_CHECK_EQ(dinout[1], -3.0);
  MPI_Op_free(&user);
}

void check_runtime(Comm& comm) {
  Runtime& rt = comm.runtime();
  const double t0 = rt.now();
  rt.compute(5e6);  // 5 ms at the documented 1 Gflop/s
  const double t1 = rt.now();
  RAGGED_CHECK(t1 - t0 >= 0.005);
  rt.charge(1e12);  // nothing on mpi
  RAGGED_CHECK(rt.now() - t1 < 1.0);
  rt.sleep_for(0.01);
  RAGGED_CHECK(rt.now() - t1 >= 0.01);

  auto sem = rt.make_semaphore(0);
  RAGGED_CHECK(!sem->try_acquire_for(0.01));
  auto mutex = rt.make_mutex();
  auto cv = rt.make_condition_variable();
  bool ready = false;
  auto daemon = rt.spawn_daemon("checker", [&] {
    {
      std::lock_guard<Mutex> lock(*mutex);
      ready = true;
    }
    cv->notify_all();
    sem->release();
  });
  {
    std::unique_lock<Mutex> lock(*mutex);
    while (!ready) cv->wait(lock);
  }
  sem->acquire();
  daemon->join();
  {
    std::unique_lock<Mutex> lock(*mutex);
    RAGGED_CHECK(!cv->wait_for(lock, 0.01));
  }
  // An exception in a daemon comes back from join().
  auto failing = rt.spawn_daemon("failing", [] { throw std::runtime_error("from the daemon"); });
  expect_throw<std::runtime_error>([&] { failing->join(); }, "join of a daemon that threw");

  // The daemon communicates while the main thread does (MPI_THREAD_MULTIPLE).
  std::int32_t got = 0;
  auto receiver = rt.spawn_daemon("receiver", [&] { comm.recv(prev(comm), tag + 20, &got, sizeof got, 30.0); });
  const std::int32_t v = 900 + comm.rank();
  comm.send(next(comm), tag + 20, &v, sizeof v, 30.0);
  receiver->join();
  RAGGED_CHECK_EQ(got, 900 + prev(comm));
}

void check_nested_session(Comm& comm) {
  // MPI is already initialized: a second Session checks the level and finalizes nothing.
  { mpi::Session inner(nullptr, nullptr); }
  mpi::require_thread_multiple();
  int finalized = 1;
  MPI_Finalized(&finalized);
  RAGGED_CHECK_EQ(finalized, 0);
  barrier(comm, 30.0);
  // The natives are registered for every collective.
  for (Collective c : all_collectives) {
    RAGGED_CHECK(Registry::instance().contains(c, "native"));
    RAGGED_CHECK_EQ(Registry::instance().find(c, "native").restrictions.backend, std::string("mpi"));
  }
}

}  // namespace

int run_backend_checks(Comm& comm, Tally& tally) {
  const std::pair<const char*, void (*)(Comm&)> checks[] = {
      {"duplicate communicator", &check_duplicate},
      {"argument checks", &check_arguments},
      {"truncation", &check_truncation},
      {"status and timeouts", &check_status_and_timeouts},
      {"cancel on destruction", &check_cancel},
      {"wait_any", &check_wait_any},
      {"window", &check_window},
      {"conversions", &check_conversions},
      {"runtime", &check_runtime},
      {"nested session", &check_nested_session},
  };
  int failures = 0;
  for (const auto& [name, fn] : checks) {
    bool ok = true;
    try {
      fn(comm);
    } catch (const std::exception& e) {
      ok = false;
      say(std::string("FAILED backend check '") + name + "': " + e.what());
    }
    const bool all = all_agree(ok, std::string("backend check '") + name + "'");
    if (all) {
      ++tally.passed;
    } else {
      ++tally.failed;
      ++failures;
    }
    if (world_rank() == 0) {
      std::printf("backend check %-24s %s\n", name, all ? "ok" : "FAILED");
      std::fflush(stdout);
    }
  }
  return failures;
}

}  // namespace ragged::mpitest
