// The conformance suite of the Comm/Runtime/Window seam. Every case is rank
// code that uses only the seam (and ragged::barrier), checks with RAGGED_CHECK,
// and runs unchanged on the sim backend (simulated seconds) and on the mpi
// backend (real seconds, real threads): timeouts are generous and no check
// depends on how fast a real machine is.
#include "conformance/cases.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "support/check.hpp"

namespace ragged::conformance {

namespace {

/// A byte that depends on the sender, the message and the position.
std::byte pattern_byte(int rank, int message, std::size_t index) {
  const std::size_t v = index * 131u + (index >> 8) * 7u + static_cast<std::size_t>(rank) * 29u +
                        static_cast<std::size_t>(message) * 53u + 1u;
  return static_cast<std::byte>(v & 0xffu);
}

std::vector<std::byte> pattern_bytes(int rank, int message, std::size_t n) {
  std::vector<std::byte> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = pattern_byte(rank, message, i);
  return out;
}

bool is_pattern(const std::vector<std::byte>& data, std::size_t n, int rank, int message) {
  if (data.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (data[i] != pattern_byte(rank, message, i)) return false;
  }
  return true;
}

template <class T>
void send_value(Comm& comm, int dest, int tag, const T& value) {
  comm.send(dest, tag, &value, sizeof value);
}

template <class T>
T recv_value(Comm& comm, int source, int tag) {
  T value{};
  const Status st = comm.recv(source, tag, &value, sizeof value);
  RAGGED_CHECK_EQ(st.bytes, sizeof value);
  return value;
}

/// Runs `body` and checks that it throws E.
template <class E, class F>
bool throws(F&& body) {
  try {
    body();
  } catch (const E&) {
    return true;
  }
  return false;
}

/// A daemon whose failed checks reach its rank: an exception escaping a std::thread (mpi
/// backend) would terminate the process, so it is kept and rethrown by join_checked().
struct CheckedDaemon {
  std::exception_ptr error;
  std::unique_ptr<Daemon> daemon;

  CheckedDaemon(Runtime& rt, const std::string& name, std::function<void()> fn) {
    daemon = rt.spawn_daemon(name, [this, fn = std::move(fn)] {
      try {
        fn();
      } catch (...) {
        error = std::current_exception();
      }
    });
  }
  CheckedDaemon(const CheckedDaemon&) = delete;
  CheckedDaemon& operator=(const CheckedDaemon&) = delete;
  ~CheckedDaemon() = default;  // the daemon member is destroyed (joined) before `error`

  void join_checked() {
    daemon->join();
    if (error) std::rethrow_exception(error);
  }
};

template <class F>
std::string invalid_argument_name(F&& body) {
  try {
    body();
  } catch (const InvalidArgument& e) {
    return e.argument();
  }
  return "<no InvalidArgument>";
}

// ------------------------------------------------------------------ point-to-point

// Every rank sends a rank-specific message to its right neighbour and receives from its left one.
void ring_exchange(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const int right = (r + 1) % p;
  const int left = (r - 1 + p) % p;
  const std::size_t n = 1000 + static_cast<std::size_t>(r) * 10;
  const std::size_t left_n = 1000 + static_cast<std::size_t>(left) * 10;
  std::vector<std::byte> out = pattern_bytes(r, 0, n);
  std::vector<std::byte> in(2000);
  Request reqs[2] = {comm.irecv(left, 3, in.data(), in.size()), comm.isend(right, 3, out.data(), out.size())};
  comm.wait_all(reqs);
  RAGGED_CHECK_EQ(reqs[0].status().source, left);
  RAGGED_CHECK_EQ(reqs[0].status().tag, 3);
  RAGGED_CHECK_EQ(reqs[0].status().bytes, left_n);
  RAGGED_CHECK(is_pattern(in, left_n, left, 0));
}

// Messages with the same (source, tag) arrive in the order they were sent, whether the
// receives were posted before the sends (posted queue) or after (unexpected queue).
void same_tag_in_order(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  constexpr int early = 6;  // receives posted before the sends start
  constexpr int late = 6;   // receives posted after they were all sent
  constexpr int total = early + late;
  if (r == 0) {
    (void)recv_value<int>(comm, p - 1, 90);  // the receiver's early receives are posted
    std::vector<std::int64_t> values(total);
    std::vector<Request> reqs;
    for (int i = 0; i < total; ++i) {
      values[static_cast<std::size_t>(i)] = 1000 + i;
      reqs.push_back(comm.isend(p - 1, 7, &values[static_cast<std::size_t>(i)], sizeof(std::int64_t)));
    }
    comm.wait_all(reqs);
  }
  if (r == p - 1) {
    std::vector<std::int64_t> got(total, -1);
    std::vector<Request> reqs;
    reqs.reserve(total);
    for (int i = 0; i < early; ++i) {
      reqs.push_back(comm.irecv(0, 7, &got[static_cast<std::size_t>(i)], sizeof(std::int64_t)));
    }
    send_value(comm, 0, 90, 1);
    comm.runtime().sleep_for(0.05);  // let the late ones arrive unexpected
    for (int i = early; i < total; ++i) {
      reqs.push_back(comm.irecv(0, 7, &got[static_cast<std::size_t>(i)], sizeof(std::int64_t)));
    }
    comm.wait_all(reqs);
    for (int i = 0; i < total; ++i) RAGGED_CHECK_EQ(got[static_cast<std::size_t>(i)], 1000 + i);
  }
}

// Receives pick messages by tag regardless of the order they were sent in.
void tags_select_messages(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const int dest = p - 1;
  const std::int32_t a = 11;
  const std::int32_t b = 22;
  const std::int32_t c = 33;
  Request reqs[3];
  if (r == 0) {
    reqs[0] = comm.isend(dest, 1, &a, 4);
    reqs[1] = comm.isend(dest, 2, &b, 4);
    reqs[2] = comm.isend(dest, 3, &c, 4);
  }
  if (r == dest) {
    RAGGED_CHECK_EQ(recv_value<std::int32_t>(comm, 0, 3), 33);
    RAGGED_CHECK_EQ(recv_value<std::int32_t>(comm, 0, 1), 11);
    RAGGED_CHECK_EQ(recv_value<std::int32_t>(comm, 0, 2), 22);
  }
  comm.wait_all(reqs);
}

// A receive from any_source reports who sent, with which tag, and how many bytes.
void any_source_status(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  if (r != 0) {
    std::vector<std::byte> out = pattern_bytes(r, 1, static_cast<std::size_t>(r) * 8 + 5);
    comm.send(0, 5, out.data(), out.size());
    return;
  }
  std::vector<int> seen(static_cast<std::size_t>(p), 0);
  for (int i = 1; i < p; ++i) {
    std::vector<std::byte> in(static_cast<std::size_t>(p) * 8 + 16);
    const Status st = comm.recv(any_source, 5, in.data(), in.size());
    RAGGED_CHECK(st.source >= 1 && st.source < p);
    RAGGED_CHECK_EQ(st.tag, 5);
    RAGGED_CHECK_EQ(st.bytes, static_cast<std::size_t>(st.source) * 8 + 5);
    RAGGED_CHECK(is_pattern(in, st.bytes, st.source, 1));
    ++seen[static_cast<std::size_t>(st.source)];
  }
  for (int s = 1; s < p; ++s) RAGGED_CHECK_EQ(seen[static_cast<std::size_t>(s)], 1);
}

// wait_any returns each completed request once, then npos; empty requests are skipped.
void wait_any_each_once(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  if (r != 0) {
    comm.runtime().sleep_for(0.002 * (p - r));  // later ranks first
    const std::int64_t v = 100 + r;
    comm.send(0, 8, &v, sizeof v);
    return;
  }
  std::vector<std::int64_t> got(static_cast<std::size_t>(p), -1);
  std::vector<Request> reqs(static_cast<std::size_t>(p) + 1);  // reqs[0] and reqs[p] stay empty
  for (int s = 1; s < p; ++s) {
    reqs[static_cast<std::size_t>(s)] = comm.irecv(s, 8, &got[static_cast<std::size_t>(s)], sizeof(std::int64_t));
  }
  std::vector<int> returned(static_cast<std::size_t>(p) + 1, 0);
  for (int k = 1; k < p; ++k) {
    const std::size_t i = comm.wait_any(reqs);
    RAGGED_CHECK(i >= 1 && i < static_cast<std::size_t>(p));
    ++returned[i];
    RAGGED_CHECK_EQ(got[i], 100 + static_cast<std::int64_t>(i));
    RAGGED_CHECK_EQ(reqs[i].status().source, static_cast<int>(i));
    RAGGED_CHECK(reqs[i].test());
  }
  RAGGED_CHECK_EQ(comm.wait_any(reqs), Comm::npos);
  for (int s = 1; s < p; ++s) RAGGED_CHECK_EQ(returned[static_cast<std::size_t>(s)], 1);
  std::vector<Request> none;
  RAGGED_CHECK_EQ(comm.wait_any(none), Comm::npos);
}

// Zero-byte messages: null buffers, zero capacity, and a zero-byte message into a larger buffer.
void zero_byte_messages(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const int right = (r + 1) % p;
  const int left = (r - 1 + p) % p;
  Status st = comm.sendrecv(right, 4, nullptr, 0, left, 4, nullptr, 0);
  RAGGED_CHECK_EQ(st.source, left);
  RAGGED_CHECK_EQ(st.tag, 4);
  RAGGED_CHECK_EQ(st.bytes, std::size_t{0});
  std::byte untouched[4] = {std::byte{0x5a}, std::byte{0x5a}, std::byte{0x5a}, std::byte{0x5a}};
  st = comm.sendrecv(right, 6, nullptr, 0, left, 6, untouched, sizeof untouched);
  RAGGED_CHECK_EQ(st.bytes, std::size_t{0});
  for (std::byte b : untouched) RAGGED_CHECK(b == std::byte{0x5a});
}

// A message of 64 MiB + 3 bytes arrives intact.
void large_message(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const std::size_t n = (std::size_t{64} << 20) + 3;
  const int src = 0;
  const int dst = p - 1;
  Request send_req;
  std::vector<std::byte> out;
  if (r == src) {
    out = pattern_bytes(src, 2, n);
    send_req = comm.isend(dst, 12, out.data(), out.size());
  }
  if (r == dst) {
    std::vector<std::byte> in(n + 16);
    const Status st = comm.recv(src, 12, in.data(), in.size());
    RAGGED_CHECK_EQ(st.bytes, n);
    RAGGED_CHECK(is_pattern(in, n, src, 2));
  }
  send_req.wait();
}

// A message longer than the receive buffer fails the receive with TransportError; the sender
// completes, and the next message on the same pair arrives normally.
void truncation_is_an_error(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const int src = 0;
  const int dst = p - 1;
  std::vector<std::byte> big = pattern_bytes(src, 3, 100);
  std::vector<std::byte> small = pattern_bytes(src, 4, 10);
  Request s1;
  Request s2;
  if (r == src) {
    s1 = comm.isend(dst, 14, big.data(), big.size());
    s2 = comm.isend(dst, 15, small.data(), small.size());
  }
  if (r == dst) {
    std::vector<std::byte> in(40);
    Request rr = comm.irecv(src, 14, in.data(), in.size());
    RAGGED_CHECK(throws<TransportError>([&] { rr.wait(); }));
    std::vector<std::byte> in2(40);
    const Status st = comm.recv(src, 15, in2.data(), in2.size());
    RAGGED_CHECK_EQ(st.bytes, std::size_t{10});
    RAGGED_CHECK(is_pattern(in2, 10, src, 4));
  }
  s1.wait();
  s2.wait();
}

// Messages to oneself, with the receive posted before and after the send.
void self_messages(Comm& comm) {
  const int r = comm.rank();
  const std::int64_t a = 7000 + r;
  std::int64_t got = 0;
  Request recv_first = comm.irecv(r, 21, &got, sizeof got);
  Request send_after = comm.isend(r, 21, &a, sizeof a);
  recv_first.wait();
  send_after.wait();
  RAGGED_CHECK_EQ(got, a);
  RAGGED_CHECK_EQ(recv_first.status().source, r);
  const std::int64_t b = 8000 + r;
  Request send_first = comm.isend(r, 22, &b, sizeof b);
  got = 0;
  const Status st = comm.recv(any_source, 22, &got, sizeof got);
  send_first.wait();
  RAGGED_CHECK_EQ(got, b);
  RAGGED_CHECK_EQ(st.source, r);
}

// All pairs (self included) exchange messages; receives are posted in the opposite order of sends.
void all_pairs(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const auto n = static_cast<std::size_t>(p);
  std::vector<std::vector<std::byte>> out(n);
  std::vector<std::vector<std::byte>> in(n, std::vector<std::byte>(64));
  std::vector<Request> reqs;
  for (int k = 0; k < p; ++k) {
    const int peer = (p - 1 - k + r) % p;
    reqs.push_back(comm.irecv(peer, 30 + peer % 3, in[static_cast<std::size_t>(peer)].data(), 64));
  }
  for (int k = 0; k < p; ++k) {
    const int peer = (r + k) % p;
    out[static_cast<std::size_t>(peer)] = pattern_bytes(r, peer, 8 + static_cast<std::size_t>(peer));
    reqs.push_back(comm.isend(peer, 30 + r % 3, out[static_cast<std::size_t>(peer)].data(),
                              out[static_cast<std::size_t>(peer)].size()));
  }
  comm.wait_all(reqs);
  for (int s = 0; s < p; ++s)
    RAGGED_CHECK(is_pattern(in[static_cast<std::size_t>(s)], 8 + static_cast<std::size_t>(r), s, r));
}

// sendrecv exchanges with both neighbours at once, without deadlock.
void sendrecv_both_ways(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const int right = (r + 1) % p;
  const int left = (r - 1 + p) % p;
  std::vector<std::byte> out = pattern_bytes(r, 9, 300000);
  std::vector<std::byte> in(300000);
  Status st = comm.sendrecv(right, 40, out.data(), out.size(), left, 40, in.data(), in.size());
  RAGGED_CHECK_EQ(st.source, left);
  RAGGED_CHECK(is_pattern(in, in.size(), left, 9));
  st = comm.sendrecv(left, 41, out.data(), out.size(), right, 41, in.data(), in.size());
  RAGGED_CHECK_EQ(st.source, right);
  RAGGED_CHECK(is_pattern(in, in.size(), right, 9));
}

// Request semantics: empty requests are complete, requests move, test() completes a request,
// and destroying an unmatched receive cancels it (a later message is not lost in it).
void request_semantics(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  Request empty;
  RAGGED_CHECK(!empty.active());
  RAGGED_CHECK(empty.test());
  empty.wait();

  const int src = 0;
  const int dst = p - 1;
  if (r == dst) {
    std::int64_t lost = -1;
    { Request cancelled = comm.irecv(src, 50, &lost, sizeof lost); }  // destroyed unmatched
    send_value(comm, src, 51, 1);                                     // now the sender may send
    std::int64_t got = -1;
    Request moved = comm.irecv(src, 50, &got, sizeof got);
    Request target = std::move(moved);
    RAGGED_CHECK(!moved.active());  // NOLINT(bugprone-use-after-move): moved-from requests are empty
    RAGGED_CHECK(target.active());
    while (!target.test()) comm.runtime().sleep_for(0.001);
    RAGGED_CHECK_EQ(got, 4242);
    RAGGED_CHECK_EQ(lost, -1);
    RAGGED_CHECK_EQ(target.status().source, src);
    RAGGED_CHECK_EQ(target.status().bytes, sizeof got);
  }
  if (r == src) {
    (void)recv_value<int>(comm, dst, 51);
    send_value(comm, dst, 50, std::int64_t{4242});
  }
}

// A receive that times out raises TimeoutError; the rank goes on, and the message sent later
// reaches the next receive. A request that timed out can still be waited for.
void timeout_then_message(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const int src = 0;
  const int dst = p - 1;
  if (r == dst) {
    std::int64_t got = -1;
    const double t0 = comm.runtime().now();
    RAGGED_CHECK(throws<TimeoutError>([&] { comm.recv(src, 60, &got, sizeof got, 0.05); }));
    RAGGED_CHECK(comm.runtime().now() - t0 >= 0.05 - 1e-9);
    RAGGED_CHECK_EQ(got, -1);
    Request pending = comm.irecv(src, 61, &got, sizeof got);
    RAGGED_CHECK(throws<TimeoutError>([&] { pending.wait(0.02); }));
    std::vector<Request> one;
    one.push_back(comm.irecv(src, 62, nullptr, 0));
    RAGGED_CHECK(throws<TimeoutError>([&] { (void)comm.wait_any(one, 0.02); }));
    send_value(comm, src, 63, 1);  // go
    std::int64_t got60 = -1;
    comm.recv(src, 60, &got60, sizeof got60);
    RAGGED_CHECK_EQ(got60, 6060);
    pending.wait();
    RAGGED_CHECK_EQ(got, 6161);
    RAGGED_CHECK_EQ(comm.wait_any(one), std::size_t{0});
  }
  if (r == src) {
    (void)recv_value<int>(comm, dst, 63);
    const std::int64_t a = 6060;
    const std::int64_t b = 6161;
    Request reqs[3] = {comm.isend(dst, 60, &a, sizeof a), comm.isend(dst, 61, &b, sizeof b),
                       comm.isend(dst, 62, nullptr, 0)};
    comm.wait_all(reqs);
  }
}

// check_rank names the argument; sends and receives to ranks outside the communicator throw.
void rank_errors(Comm& comm) {
  const int p = comm.size();
  RAGGED_CHECK_EQ(invalid_argument_name([&] { check_rank(comm, p, "dest"); }), std::string("dest"));
  RAGGED_CHECK_EQ(invalid_argument_name([&] { check_rank(comm, -1, "root"); }), std::string("root"));
  for (int q = 0; q < p; ++q) check_rank(comm, q, "rank");
  const int v = 1;
  int w = 0;
  RAGGED_CHECK(throws<Error>([&] { (void)comm.isend(p, 0, &v, sizeof v); }));
  RAGGED_CHECK(throws<Error>([&] { (void)comm.isend(-3, 0, &v, sizeof v); }));
  RAGGED_CHECK(throws<Error>([&] { (void)comm.irecv(p, 0, &w, sizeof w); }));
  RAGGED_CHECK(throws<Error>([&] { (void)comm.isend(0, -1, &v, sizeof v); }));
  RAGGED_CHECK(comm.backend() == "sim" || comm.backend() == "mpi");
  RAGGED_CHECK(comm.runtime().backend() == comm.backend());
  RAGGED_CHECK(comm.rank() >= 0 && comm.rank() < p);
}

// barrier() lets no rank out before the last one came in.
void barrier_waits_for_the_last(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  constexpr double step = 0.05;
  barrier(comm);
  const double t0 = comm.runtime().now();
  comm.runtime().sleep_for(step * r);
  barrier(comm);
  const double waited = comm.runtime().now() - t0;
  // The last rank arrived after (p-1)*step; leaving the first barrier may be skewed a little.
  RAGGED_CHECK(waited >= step * (p - 1) - step / 2);
  barrier(comm, 30.0);
}

// ------------------------------------------------------------------ runtime

// now() is monotonic and sleep_for advances it; compute and charge return.
void runtime_clock(Comm& comm) {
  Runtime& rt = comm.runtime();
  const double t0 = rt.now();
  rt.sleep_for(0.01);
  const double t1 = rt.now();
  RAGGED_CHECK(t1 - t0 >= 0.01 - 1e-9);
  rt.compute(1e6);
  rt.charge(1e6);
  rt.sleep_for(0);
  RAGGED_CHECK(rt.now() >= t1);
}

// The papers' background thread: a daemon does blocking receives of the neighbours' messages
// while its rank sleeps and computes; the rank then joins it.
void daemon_receives_while_rank_sleeps(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  constexpr int count = 5;
  constexpr int tag = 70;
  std::vector<std::int64_t> received;
  CheckedDaemon agent(comm.runtime(), "agent", [&] {
    for (int i = 0; i < count; ++i) {
      std::int64_t v = -1;
      const Status st = comm.recv(any_source, tag, &v, sizeof v);
      RAGGED_CHECK_EQ(st.source, (r - 1 + p) % p);
      received.push_back(v);
    }
  });
  const int right = (r + 1) % p;
  std::vector<std::int64_t> values(count);
  std::vector<Request> sends;
  for (int i = 0; i < count; ++i) {
    values[static_cast<std::size_t>(i)] = r * 100 + i;
    sends.push_back(comm.isend(right, tag, &values[static_cast<std::size_t>(i)], sizeof(std::int64_t)));
  }
  comm.runtime().sleep_for(0.02);
  comm.runtime().compute(1e6);
  comm.wait_all(sends);
  agent.join_checked();
  const int left = (r - 1 + p) % p;
  RAGGED_CHECK_EQ(received.size(), static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) RAGGED_CHECK_EQ(received[static_cast<std::size_t>(i)], left * 100 + i);
}

// A rank and its daemon hand values over through a runtime mutex and condition variable.
void mutex_and_condition_variable(Comm& comm) {
  Runtime& rt = comm.runtime();
  auto mutex = rt.make_mutex();
  auto cv = rt.make_condition_variable();
  std::deque<int> queue;
  bool done = false;
  int acked = 0;
  constexpr int count = 20;
  CheckedDaemon producer(rt, "producer", [&] {
    for (int i = 0; i < count; ++i) {
      rt.sleep_for(0.001);
      std::unique_lock<Mutex> lock(*mutex);
      queue.push_back(i);
      cv->notify_all();
    }
    std::unique_lock<Mutex> lock(*mutex);
    done = true;
    cv->notify_all();
    while (acked < count) cv->wait(lock);
  });
  std::vector<int> got;
  {
    std::unique_lock<Mutex> lock(*mutex);
    for (;;) {
      while (queue.empty() && !done) cv->wait(lock);
      if (queue.empty()) break;
      got.push_back(queue.front());
      queue.pop_front();
      ++acked;
      cv->notify_one();
    }
  }
  producer.join_checked();
  RAGGED_CHECK_EQ(got.size(), static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) RAGGED_CHECK_EQ(got[static_cast<std::size_t>(i)], i);
  std::unique_lock<Mutex> lock(*mutex);
  const double t0 = rt.now();
  RAGGED_CHECK(!cv->wait_for(lock, 0.01));  // nobody notifies
  RAGGED_CHECK(rt.now() - t0 >= 0.01 - 1e-9);
  RAGGED_CHECK(lock.owns_lock());
}

// A semaphore counts releases from a daemon; try_acquire_for times out when there are none.
void semaphore_counts(Comm& comm) {
  Runtime& rt = comm.runtime();
  auto two = rt.make_semaphore(2);
  two->acquire();
  two->acquire();
  RAGGED_CHECK(!two->try_acquire_for(0.005));
  two->release();
  RAGGED_CHECK(two->try_acquire_for(0.005));

  auto sem = rt.make_semaphore(0);
  CheckedDaemon releaser(rt, "releaser", [&] {
    for (int i = 0; i < 3; ++i) {
      rt.sleep_for(0.002);
      sem->release();
    }
  });
  for (int i = 0; i < 3; ++i) sem->acquire();
  releaser.join_checked();
  RAGGED_CHECK(!sem->try_acquire_for(0.005));
}

// ------------------------------------------------------------------ windows

// Every rank writes into every rank's window with a notification per origin; each rank sees
// every notification once, with the data before it, and notify_reset returns the value.
void window_all_to_all(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const auto n = static_cast<std::size_t>(p);
  auto win = comm.create_window(n * 8, p + 1);
  RAGGED_CHECK_EQ(win->bytes(), n * 8);
  RAGGED_CHECK_EQ(win->notifications(), p + 1);
  RAGGED_CHECK_EQ(win->local().size(), n * 8);
  for (int t = 0; t < p; ++t) {
    std::int64_t v = 1000 * r + t;
    win->put_notify(t, static_cast<std::size_t>(r) * 8, &v, sizeof v, r, static_cast<std::uint64_t>(r) + 1);
    v = -1;  // the source may be reused at once
  }
  win->flush();
  std::vector<int> seen(n, 0);
  for (int k = 0; k < p; ++k) {
    const int id = win->notify_wait_some(0, p, 30.0);
    RAGGED_CHECK(id >= 0 && id < p);
    RAGGED_CHECK_EQ(win->notify_reset(id), static_cast<std::uint64_t>(id) + 1);
    ++seen[static_cast<std::size_t>(id)];
    std::int64_t v = 0;
    std::memcpy(&v, win->local().data() + static_cast<std::size_t>(id) * 8, sizeof v);
    RAGGED_CHECK_EQ(v, 1000 * id + r);
  }
  for (int s = 0; s < p; ++s) RAGGED_CHECK_EQ(seen[static_cast<std::size_t>(s)], 1);
  RAGGED_CHECK_EQ(win->notify_reset(p), std::uint64_t{0});
  barrier(comm);  // no rank frees its window while another still writes into it
}

// notify_wait_some returns the lowest set notification of its range and only looks at its
// range; it times out when none is set.
void window_lowest_notification(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  const int origin = 0;
  const int target = p - 1;
  auto win = comm.create_window(64, 8);
  if (r == origin) {
    const std::int32_t data[3] = {31, 32, 33};
    win->put_notify(target, 12, &data[2], 4, 5, 55);
    win->put_notify(target, 4, &data[0], 4, 2, 22);
    win->put_notify(target, 8, &data[1], 4, 7, 77);
    win->flush();
    send_value(comm, target, 80, 1);
  }
  if (r == target) {
    (void)recv_value<int>(comm, origin, 80);
    RAGGED_CHECK_EQ(win->notify_wait_some(3, 5), 5);  // 2 is outside 3..7
    RAGGED_CHECK_EQ(win->notify_wait_some(0, 8), 2);
    RAGGED_CHECK_EQ(win->notify_reset(2), std::uint64_t{22});
    RAGGED_CHECK_EQ(win->notify_wait_some(0, 8), 5);
    RAGGED_CHECK_EQ(win->notify_reset(5), std::uint64_t{55});
    RAGGED_CHECK_EQ(win->notify_wait_some(6, 2), 7);
    RAGGED_CHECK_EQ(win->notify_reset(7), std::uint64_t{77});
    RAGGED_CHECK_EQ(win->notify_reset(7), std::uint64_t{0});
    std::int32_t got[3] = {};
    std::memcpy(got, win->local().data() + 4, sizeof got);
    RAGGED_CHECK_EQ(got[0], 31);
    RAGGED_CHECK_EQ(got[1], 32);
    RAGGED_CHECK_EQ(got[2], 33);
    RAGGED_CHECK(throws<TimeoutError>([&] { (void)win->notify_wait_some(0, 8, 0.02); }));
  }
  barrier(comm);
}

// A notification waited for before the put was even issued wakes its waiter.
void window_wait_before_put(Comm& comm) {
  const int p = comm.size();
  const int r = comm.rank();
  auto win = comm.create_window(sizeof(std::int64_t), 1);
  const int left = (r - 1 + p) % p;
  const int right = (r + 1) % p;
  if (r % 2 == 0) comm.runtime().sleep_for(0.01);
  const std::int64_t v = 500 + r;
  win->put_notify(right, 0, &v, sizeof v, 0, 9);
  RAGGED_CHECK_EQ(win->notify_wait_some(0, 1), 0);
  RAGGED_CHECK_EQ(win->notify_reset(0), std::uint64_t{9});
  std::int64_t got = 0;
  std::memcpy(&got, win->local().data(), sizeof got);
  RAGGED_CHECK_EQ(got, 500 + left);
  win->flush();
  barrier(comm);
}

// Bad window arguments are InvalidArgument.
void window_argument_errors(Comm& comm) {
  const int p = comm.size();
  auto win = comm.create_window(16, 2);
  const std::int64_t v = 1;
  RAGGED_CHECK(throws<InvalidArgument>([&] { win->put_notify(p, 0, &v, sizeof v, 0, 1); }));
  RAGGED_CHECK(throws<InvalidArgument>([&] { win->put_notify(0, 12, &v, sizeof v, 0, 1); }));
  RAGGED_CHECK(throws<InvalidArgument>([&] { win->put_notify(0, 0, &v, sizeof v, 2, 1); }));
  RAGGED_CHECK(throws<InvalidArgument>([&] { win->put_notify(0, 0, &v, sizeof v, 0, 0); }));
  RAGGED_CHECK(throws<InvalidArgument>([&] { (void)win->notify_reset(2); }));
  RAGGED_CHECK(throws<InvalidArgument>([&] { (void)win->notify_wait_some(1, 2); }));
  barrier(comm);
}

Case make(std::string name, int min_procs, void (*body)(Comm&)) {
  return Case{std::move(name), min_procs, [min_procs, body](Comm& comm) {
                if (comm.size() < min_procs) return;
                body(comm);
              }};
}

}  // namespace

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      make("ring_exchange", 1, ring_exchange),
      make("same_tag_in_order", 2, same_tag_in_order),
      make("tags_select_messages", 1, tags_select_messages),
      make("any_source_status", 1, any_source_status),
      make("wait_any_each_once", 1, wait_any_each_once),
      make("zero_byte_messages", 1, zero_byte_messages),
      make("large_message", 1, large_message),
      make("truncation_is_an_error", 1, truncation_is_an_error),
      make("self_messages", 1, self_messages),
      make("all_pairs", 1, all_pairs),
      make("sendrecv_both_ways", 1, sendrecv_both_ways),
      make("request_semantics", 2, request_semantics),
      make("timeout_then_message", 2, timeout_then_message),
      make("rank_errors", 1, rank_errors),
      make("barrier_waits_for_the_last", 1, barrier_waits_for_the_last),
      make("runtime_clock", 1, runtime_clock),
      make("daemon_receives_while_rank_sleeps", 1, daemon_receives_while_rank_sleeps),
      make("mutex_and_condition_variable", 1, mutex_and_condition_variable),
      make("semaphore_counts", 1, semaphore_counts),
      make("window_all_to_all", 1, window_all_to_all),
      make("window_lowest_notification", 2, window_lowest_notification),
      make("window_wait_before_put", 1, window_wait_before_put),
      make("window_argument_errors", 1, window_argument_errors),
  };
  return all;
}

}  // namespace ragged::conformance
