// The mpirun tier: every algorithm of every collective that the Registry offers on the mpi
// backend (all but "native"), on the same inputs as the MPI library's own collective,
// compared bytewise with it. Run under mpirun with 1..4 ranks (mpi.npN.baselines).
//
// Sweep: counts {0, 1, P-1, P+1, 1000, 100003}; every root; int32, int64, float and double;
// sum, prod (on values 1 and 2, so products stay exact), min and max; a user-defined
// commutative MPI_Op (bitwise or) and a non-commutative one (left projection) through
// ragged::mpi::from_mpi; in place wherever the collective has an in-place form (as in MPI:
// sendbuf = in_place, except for scatter and scatterv whose root passes recvbuf = in_place). Values are
// small integers, exact in every type and in any order of reduction. Receive buffers start
// as garbage followed by a guard zone, so writes outside what MPI writes are caught too;
// send buffers must come back unchanged. Buffers that MPI leaves insignificant (the
// receive buffer of a non-root, the send buffer of a non-root scatter) are passed as null.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "harness.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"
#include "ragged/selection.hpp"
#include "support/matrix_op.hpp"
#include "support/patterns.hpp"

namespace ragged::mpitest {
int run_backend_checks(Comm& comm, Tally& tally);
}

namespace {

using namespace ragged;
using mpitest::Tally;

constexpr std::size_t guard_bytes = 64;
constexpr auto garbage = std::byte{0xA5};
/// Algorithms get a timeout so that one stuck waiting on another rank fails instead of hanging.
constexpr double algorithm_timeout_s = 60.0;

// ------------------------------------------------------------------ operators

void bor_int32(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  const auto* a = static_cast<const std::int32_t*>(in);
  auto* b = static_cast<std::int32_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i] | b[i];
}

// x op y = x: associative, not commutative; the reduction over ranks 0..P-1 yields rank 0's value.
void left_int32(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  std::memcpy(inout, in, static_cast<std::size_t>(*len) * sizeof(std::int32_t));
}

// 2x2 integer matrix product (tests/support/matrix_op.hpp) as an MPI_Op: non-commutative.
void matrix_int32(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  test::matrix_product().custom(in, inout, static_cast<std::size_t>(*len), DataType::int32);
}

enum class Values { distinct, pattern, ones_and_twos };

struct OpCase {
  std::string name;
  ReduceOp op;
  std::vector<DataType> types;
  Values values;
};

std::vector<OpCase> op_cases(MPI_Op bor, MPI_Op left) {
  const std::vector<DataType> all(std::begin(test::all_types), std::end(test::all_types));
  return {
      {"sum", ReduceOp::sum(), all, Values::pattern},
      {"prod", ReduceOp::prod(), all, Values::ones_and_twos},
      {"min", ReduceOp::min(), all, Values::pattern},
      {"max", ReduceOp::max(), all, Values::pattern},
      {"mpi_bor", mpi::from_mpi(bor), {DataType::int32}, Values::pattern},
      {"mpi_left", mpi::from_mpi(left), {DataType::int32}, Values::pattern},
  };
}

std::int64_t value(Values kind, int rank, std::size_t i) {
  switch (kind) {
    case Values::pattern:
      return test::pattern(rank, i);
    case Values::ones_and_twos:
      return test::pattern(rank, i) % 2 + 1;
    case Values::distinct:
      break;
  }
  // Distinct for every (rank, index) this test uses, and exact in float (< 2^24).
  return static_cast<std::int64_t>((static_cast<std::size_t>(rank) * 400009 + i) % 16777000) + 1;
}

// ------------------------------------------------------------------ configurations

bool rooted(Collective c) {
  return c == Collective::bcast || c == Collective::reduce || c == Collective::gather || c == Collective::scatter ||
         c == Collective::gatherv || c == Collective::scatterv;
}
bool reducing(Collective c) {
  return c == Collective::allreduce || c == Collective::reduce || c == Collective::scan || c == Collective::exscan ||
         c == Collective::reduce_scatter_block || c == Collective::reduce_scatter;
}
bool has_in_place(Collective c) { return c != Collective::bcast; }

struct Config {
  Collective collective;
  std::size_t count;
  int root;
  DataType type;
  const OpCase* op;  // reductions only
  bool in_place;
};

std::string describe(const Config& k) {
  std::string s = std::string(name_of(k.collective)) + " count=" + std::to_string(k.count);
  if (rooted(k.collective)) s += " root=" + std::to_string(k.root);
  s += std::string(" type=") + name_of(k.type);
  if (k.op != nullptr) s += " op=" + k.op->name;
  if (k.in_place) s += " in_place";
  return s;
}

constexpr std::size_t big_count = 100003;

std::vector<std::size_t> counts_for(int procs) {
  const auto p = static_cast<std::size_t>(procs);
  std::vector<std::size_t> c{0, 1, p - 1, p + 1, 1000, big_count};
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

/// The sweep of one collective. Every combination runs on the small counts; on big_count each
/// (root, in place, operator) runs on one datatype, rotating through them, to bound the run time.
std::vector<Config> configs(Collective c, int procs, const std::vector<OpCase>& ops) {
  std::vector<Config> out;
  const std::vector<DataType> all(std::begin(test::all_types), std::end(test::all_types));
  for (std::size_t count : counts_for(procs)) {
    std::size_t combination = 0;
    const auto add = [&](const Config& k, std::size_t types) {
      const bool sampled = count < big_count || types == 1 || combination % types == 0;
      if (sampled) out.push_back(k);
      ++combination;
    };
    for (int root = 0; root < (rooted(c) ? procs : 1); ++root) {
      for (bool in_place : {false, true}) {
        if (in_place && !has_in_place(c)) continue;
        if (reducing(c)) {
          for (const OpCase& op : ops) {
            for (DataType t : op.types) add({c, count, root, t, &op, in_place}, op.types.size());
            if (op.types.size() > 1) ++combination;  // the next operator starts on the next type
          }
        } else {
          for (DataType t : all) add({c, count, root, t, nullptr, in_place}, all.size());
          ++combination;
        }
      }
    }
  }
  return out;
}

// ------------------------------------------------------------------ buffers

/// Counts and displacements (in elements) of a v-collective, and the extent they cover.
struct Layout {
  std::vector<int> counts;
  std::vector<int> displs;
  std::size_t extent = 0;
};

/// Blocks in reverse rank order (`reverse`) or in rank order, `gap` unused elements after each.
Layout make_layout(std::vector<int> counts, int gap, bool reverse) {
  Layout l;
  l.displs.assign(counts.size(), 0);
  int pos = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const std::size_t i = reverse ? counts.size() - 1 - k : k;
    l.displs[i] = pos;
    pos += counts[i] + gap;
  }
  l.counts = std::move(counts);
  l.extent = static_cast<std::size_t>(pos);
  return l;
}

/// gatherv/scatterv: rank i's block has `count + i` elements, except every third rank's, which is empty.
Layout v_layout(int procs, std::size_t count) {
  std::vector<int> counts(static_cast<std::size_t>(procs));
  for (int i = 0; i < procs; ++i) counts[static_cast<std::size_t>(i)] = i % 3 == 1 ? 0 : static_cast<int>(count) + i;
  return make_layout(std::move(counts), 2, true);
}

/// alltoallv: elements rank a sends to rank b (symmetric, as in-place alltoallv requires).
int amount(int a, int b, std::size_t count) {
  return static_cast<int>(count * static_cast<std::size_t>((a + b) % 3 + 1) / 3);
}

Layout a2a_layout(int rank, int procs, std::size_t count, bool receive) {
  std::vector<int> counts(static_cast<std::size_t>(procs));
  for (int j = 0; j < procs; ++j) counts[static_cast<std::size_t>(j)] = amount(rank, j, count);
  return receive ? make_layout(std::move(counts), 3, true) : make_layout(std::move(counts), 1, false);
}

struct Buffers {
  std::vector<std::byte> send;
  std::vector<std::byte> recv;
  bool send_null = false;
  bool recv_null = false;
  Layout send_layout;          // scatterv (root), alltoallv
  Layout recv_layout;          // gatherv (root), alltoallv
  int sendcount = 0;           // gatherv
  int recvcount = 0;           // scatterv
  bool send_in_place = false;  // this rank passes ragged::in_place as sendbuf
  bool recv_in_place = false;  // ... as recvbuf (the root of scatter and scatterv, as in MPI)

  const void* sendbuf() const {
    if (send_in_place) return ragged::in_place;
    return send_null ? nullptr : send.data();
  }
  void* recvbuf() {
    if (recv_in_place) return const_cast<void*>(ragged::in_place);
    return recv_null ? nullptr : recv.data();
  }
};

std::vector<std::byte> data(DataType type, Values kind, int rank, std::size_t n) {
  return test::make_buffer(type, n, [&](std::size_t i) { return value(kind, rank, i); });
}

std::vector<std::byte> scratch(DataType type, std::size_t n) {
  return std::vector<std::byte>(n * size_of(type) + guard_bytes, garbage);
}

/// Copies `block` into `buf` at element `at`.
void place(std::vector<std::byte>& buf, DataType type, std::size_t at, const std::vector<std::byte>& block) {
  std::copy(block.begin(), block.end(), buf.begin() + static_cast<std::ptrdiff_t>(at * size_of(type)));
}

Buffers prepare(const Config& k, int rank, int procs) {
  Buffers b;
  const std::size_t n = k.count;
  const auto p = static_cast<std::size_t>(procs);
  const auto r = static_cast<std::size_t>(rank);
  const bool root = rank == k.root;
  const Values kind = k.op != nullptr ? k.op->values : Values::distinct;
  const DataType t = k.type;
  const bool scattering = k.collective == Collective::scatter || k.collective == Collective::scatterv;
  // In place is the root's alone in rooted collectives; scatter and scatterv pass it as recvbuf.
  const bool in_place_here = k.in_place && (root || !rooted(k.collective));
  b.send_in_place = in_place_here && !scattering;
  b.recv_in_place = in_place_here && scattering;
  switch (k.collective) {
    case Collective::allgather:
      b.send = data(t, kind, rank, n);
      b.recv = scratch(t, p * n);
      if (k.in_place) place(b.recv, t, r * n, b.send);
      break;
    case Collective::allreduce:
      b.send = data(t, kind, rank, n);
      b.recv = scratch(t, n);
      if (k.in_place) place(b.recv, t, 0, b.send);
      break;
    case Collective::bcast:
      b.recv = scratch(t, n);
      if (root) place(b.recv, t, 0, data(t, kind, rank, n));
      break;
    case Collective::reduce:
      b.send = data(t, kind, rank, n);
      b.recv_null = !root;
      if (root) b.recv = scratch(t, n);
      if (root && k.in_place) place(b.recv, t, 0, b.send);
      break;
    case Collective::gather:
      b.send = data(t, kind, rank, n);
      b.recv_null = !root;
      if (root) b.recv = scratch(t, p * n);
      if (root && k.in_place) place(b.recv, t, r * n, b.send);
      break;
    case Collective::scatter:
      b.send_null = !root;
      if (root) b.send = data(t, kind, rank, p * n);
      b.recv = scratch(t, n);  // unused (and compared unchanged) at an in-place root
      break;
    case Collective::gatherv: {
      const Layout l = v_layout(procs, n);
      b.sendcount = l.counts[r];
      b.send = data(t, kind, rank, static_cast<std::size_t>(b.sendcount));
      b.recv_null = !root;
      if (root) {
        b.recv_layout = l;
        b.recv = scratch(t, l.extent);
        if (k.in_place) place(b.recv, t, static_cast<std::size_t>(l.displs[r]), b.send);
      }
      break;
    }
    case Collective::scatterv: {
      const Layout l = v_layout(procs, n);
      b.recvcount = l.counts[r];
      b.send_null = !root;
      if (root) {
        b.send_layout = l;
        b.send = data(t, kind, rank, l.extent);
      }
      b.recv = scratch(t, static_cast<std::size_t>(b.recvcount));
      break;
    }
    case Collective::scan:
    case Collective::exscan:  // rank 0's recvbuf must come back as it went in, as natively
      b.send = data(t, kind, rank, n);
      b.recv = scratch(t, n);
      if (k.in_place) place(b.recv, t, 0, b.send);
      break;
    case Collective::reduce_scatter_block:  // in place: the P blocks in recvbuf, the result in its first
      b.send = data(t, kind, rank, p * n);
      b.recv = scratch(t, k.in_place ? p * n : n);
      if (k.in_place) place(b.recv, t, 0, b.send);
      break;
    case Collective::reduce_scatter: {  // uneven blocks, an empty one every third rank
      const Layout l = v_layout(procs, n);
      std::size_t total = 0;
      for (int c : l.counts) total += static_cast<std::size_t>(c);
      b.recv_layout = l;
      b.send = data(t, kind, rank, total);
      b.recv = scratch(t, k.in_place ? total : static_cast<std::size_t>(l.counts[r]));
      if (k.in_place) place(b.recv, t, 0, b.send);
      break;
    }
    case Collective::allgatherv: {  // every rank receives every block, at the layout's displacements
      const Layout l = v_layout(procs, n);
      b.sendcount = l.counts[r];
      b.send = data(t, kind, rank, static_cast<std::size_t>(b.sendcount));
      b.recv_layout = l;
      b.recv = scratch(t, l.extent);
      if (k.in_place) place(b.recv, t, static_cast<std::size_t>(l.displs[r]), b.send);
      break;
    }
    case Collective::alltoall:
      b.send = data(t, kind, rank, p * n);
      b.recv = scratch(t, p * n);
      if (k.in_place) place(b.recv, t, 0, b.send);
      break;
    case Collective::alltoallv:
    case Collective::alltoallw:  // alltoallv's layouts, every block of type t (displacements in bytes at the call)
      b.recv_layout = a2a_layout(rank, procs, n, true);
      b.send_layout = a2a_layout(rank, procs, n, false);
      b.recv = scratch(t, b.recv_layout.extent);
      if (k.in_place) {
        b.send = data(t, kind, rank, b.recv_layout.extent);
        place(b.recv, t, 0, b.send);
      } else {
        b.send = data(t, kind, rank, b.send_layout.extent);
      }
      break;
  }
  return b;
}

/// Runs `alg` through dispatch (forced by name: restrictions enforced with their fallback).
void invoke(const Algorithm& alg, Comm& comm, const Config& k, Buffers& b, const CollectiveOptions& options) {
  const std::size_t n = k.count;
  const DataType t = k.type;
  const void* s = b.sendbuf();
  void* r = b.recvbuf();
  CollectiveOptions o = options;
  o.algorithm = alg.name;
  switch (k.collective) {
    case Collective::allgather:
      (void)allgather(comm, s, r, n, t, o);
      return;
    case Collective::allreduce:
      (void)allreduce(comm, s, r, n, t, k.op->op, o);
      return;
    case Collective::bcast:
      (void)bcast(comm, r, n, t, k.root, o);
      return;
    case Collective::reduce:
      (void)reduce(comm, s, r, n, t, k.op->op, k.root, o);
      return;
    case Collective::gather:
      (void)gather(comm, s, r, n, t, k.root, o);
      return;
    case Collective::scatter:
      (void)scatter(comm, s, r, n, t, k.root, o);
      return;
    case Collective::gatherv:
      (void)gatherv(comm, s, b.sendcount, r, b.recv_layout.counts, b.recv_layout.displs, t, k.root, o);
      return;
    case Collective::scatterv:
      (void)scatterv(comm, s, b.send_layout.counts, b.send_layout.displs, r, b.recvcount, t, k.root, o);
      return;
    case Collective::alltoall:
      (void)alltoall(comm, s, r, n, t, o);
      return;
    case Collective::alltoallv:
      (void)alltoallv(comm, s, b.send_layout.counts, b.send_layout.displs, r, b.recv_layout.counts,
                      b.recv_layout.displs, t, o);
      return;
    case Collective::scan:
      (void)scan(comm, s, r, n, t, k.op->op, o);
      return;
    case Collective::exscan:
      (void)exscan(comm, s, r, n, t, k.op->op, o);
      return;
    case Collective::reduce_scatter_block:
      (void)reduce_scatter_block(comm, s, r, n, t, k.op->op, o);
      return;
    case Collective::allgatherv:
      (void)allgatherv(comm, s, b.sendcount, r, b.recv_layout.counts, b.recv_layout.displs, t, o);
      return;
    case Collective::reduce_scatter:
      (void)reduce_scatter(comm, s, r, b.recv_layout.counts, t, k.op->op, o);
      return;
    case Collective::alltoallw: {
      const std::vector<DataType> types(b.recv_layout.counts.size(), t);
      const auto in_bytes = [&](std::vector<int> displs) {
        for (int& d : displs) d *= static_cast<int>(size_of(t));
        return displs;
      };
      (void)alltoallw(comm, s, b.send_layout.counts, in_bytes(b.send_layout.displs), types, r, b.recv_layout.counts,
                      in_bytes(b.recv_layout.displs), types, o);
      return;
    }
  }
}

/// Where `got` and `want` first differ, or npos.
std::size_t first_difference(const std::vector<std::byte>& got, const std::vector<std::byte>& want) {
  if (got.size() != want.size()) return 0;
  const auto it = std::mismatch(got.begin(), got.end(), want.begin());
  return it.first == got.end() ? std::string::npos : static_cast<std::size_t>(it.first - got.begin());
}

// ------------------------------------------------------------------ the sweep

enum Flags : int { failed = 1, threw = 2 };

/// Runs every configuration of one algorithm (stopping at its first exception) and prints a line.
void sweep(const Algorithm& alg, const Algorithm& native, const std::vector<OpCase>& ops, Tally& tally) {
  const int rank = mpitest::world_rank();
  const int procs = mpitest::world_size();
  const std::string label = std::string(name_of(alg.collective)) + "/" + alg.name;
  // A fresh communicator per algorithm: whatever a failed algorithm left in flight cannot
  // match the next one's receives.
  const auto comm = mpi::make_comm(MPI_COMM_WORLD);
  CollectiveOptions with_timeout;
  with_timeout.timeout = algorithm_timeout_s;
  const CollectiveOptions plain;
  Tally mine;
  int reported = 0;
  const double started = MPI_Wtime();
  for (const Config& k : configs(alg.collective, procs, ops)) {
    // A commutative-only algorithm with a non-commutative operator runs its fallback (dispatch):
    // its result must match native's all the same.
    const std::string what = label + ": " + describe(k);
    int flags = 0;
    std::string why;
    Buffers want = prepare(k, rank, procs);
    try {
      invoke(native, *comm, k, want, plain);
    } catch (const std::exception& e) {
      flags |= failed | threw;
      why = std::string("native threw: ") + e.what();
    }
    Buffers got = prepare(k, rank, procs);
    if (flags == 0) {
      try {
        invoke(alg, *comm, k, got, with_timeout);
      } catch (const std::exception& e) {
        flags |= failed | threw;
        why = std::string("threw: ") + e.what();
      }
    }
    if (flags == 0) {
      const std::size_t at = first_difference(got.recv, want.recv);
      const Buffers fresh = prepare(k, rank, procs);
      if (at != std::string::npos) {
        flags |= failed;
        why = "receive buffer differs from native MPI at byte " + std::to_string(at) + " of " +
              std::to_string(got.recv.size()) + (at + guard_bytes >= got.recv.size() ? " (guard zone)" : "");
      } else if (first_difference(got.send, fresh.send) != std::string::npos) {
        flags |= failed;
        why = "the send buffer was modified";
      }
    }
    if ((flags & failed) != 0 && reported < 3) {
      mpitest::say("FAILED " + what + ": " + why);  // NOLINT(performance-inefficient-string-concatenation)
      ++reported;
    }
    const int all = mpitest::agree_flags(flags, what);
    if (all == 0) {
      ++mine.passed;
    } else {
      ++mine.failed;
    }
    if ((all & threw) != 0) {
      if (rank == 0) mpitest::say(label + ": stopping this algorithm after an exception");
      break;
    }
  }
  if (rank == 0) {
    std::printf("%-28s %ld passed, %ld failed, %ld skipped (%.1f s)\n", label.c_str(), mine.passed, mine.failed,
                mine.skipped, MPI_Wtime() - started);
    std::fflush(stdout);
  }
  tally.passed += mine.passed;
  tally.failed += mine.failed;
  tally.skipped += mine.skipped;
}

/// Every allreduce and reduce algorithm, native included, forced by RAGGED_ALLREDUCE /
/// RAGGED_REDUCE (not by name in the call), with a non-commutative MPI_Op: the exact rank-order
/// product of 2x2 integer matrices, at every root.
void check_matrix_product(MPI_Op matrix, Tally& tally) {
  const int rank = mpitest::world_rank();
  const int procs = mpitest::world_size();
  const auto comm = mpi::make_comm(MPI_COMM_WORLD);
  const ReduceOp op = mpi::from_mpi(matrix);
  const Registry& registry = Registry::instance();
  for (const Collective c : {Collective::allreduce, Collective::reduce}) {
    const std::string variable = c == Collective::allreduce ? "RAGGED_ALLREDUCE" : "RAGGED_REDUCE";
    for (const Algorithm* alg : registry.list(c, "mpi")) {
      ::setenv(variable.c_str(), alg->name.c_str(), 1);
      reread_environment();  // selection reads the environment once per process
      long passed = 0;
      long failed = 0;
      std::string ran;
      for (const std::size_t matrices : {std::size_t{1}, std::size_t{7}, std::size_t{5000}}) {
        const std::vector<std::int32_t> want = test::rank_order_product(procs, matrices);
        const std::vector<std::int32_t> mine = test::matrices_of(rank, matrices);
        for (int root = 0; root < (c == Collective::reduce ? procs : 1); ++root) {
          std::vector<std::int32_t> got(mine.size(), -1);
          bool ok = true;
          try {
            const Algorithm& a = c == Collective::allreduce
                                     ? allreduce(*comm, mine.data(), got.data(), got.size(), DataType::int32, op)
                                     : reduce(*comm, mine.data(), got.data(), got.size(), DataType::int32, op, root);
            ran = a.name;
            ok = !a.restrictions.commutative_only && (c == Collective::reduce && rank != root ? true : got == want);
          } catch (const std::exception& e) {
            mpitest::say(std::string(name_of(c)) + "/" + alg->name + " threw: " + e.what());
            ok = false;
          }
          if (mpitest::all_agree(ok, "matrix product")) {
            ++passed;
          } else {
            ++failed;
          }
        }
      }
      ::unsetenv(variable.c_str());
      reread_environment();
      if (rank == 0) {
        std::printf("%-28s %ld passed, %ld failed (2x2 matrix product forced by %s, ran %s)\n",
                    (std::string(name_of(c)) + "/" + alg->name).c_str(), passed, failed, variable.c_str(), ran.c_str());
        std::fflush(stdout);
      }
      tally.passed += passed;
      tally.failed += failed;
    }
  }
}

}  // namespace

int run(Tally& tally) {
  const int rank = mpitest::world_rank();
  {
    const auto comm = mpi::make_comm(MPI_COMM_WORLD);
    mpitest::run_backend_checks(*comm, tally);
  }

  MPI_Op bor = MPI_OP_NULL;
  MPI_Op left = MPI_OP_NULL;
  MPI_Op_create(&bor_int32, 1, &bor);
  MPI_Op_create(&left_int32, 0, &left);
  {
    const std::vector<OpCase> ops = op_cases(bor, left);
    const Registry& registry = Registry::instance();
    for (Collective c : all_collectives) {
      const Algorithm& native = registry.find(c, "native");
      for (const Algorithm* alg : registry.list(c, "mpi")) {
        if (alg->name == "native") continue;
        if (alg->restrictions.needs_two_clusters || alg->restrictions.needs_clusters) {
          if (rank == 0) {
            mpitest::say(std::string(name_of(c)) + "/" + alg->name + ": skipped (needs a cluster layout)");
          }
          continue;
        }
        sweep(*alg, native, ops, tally);
      }
    }
  }
  MPI_Op_free(&bor);
  MPI_Op_free(&left);
  MPI_Op matrix = MPI_OP_NULL;
  MPI_Op_create(&matrix_int32, 0, &matrix);
  check_matrix_product(matrix, tally);
  MPI_Op_free(&matrix);

  if (rank == 0) {
    std::printf("%ld passed, %ld failed (%ld skipped)\n", tally.passed, tally.failed, tally.skipped);
    std::fflush(stdout);
  }
  return tally.failed == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  Tally tally;
  return mpitest::main_of(&argc, &argv, [&] { return run(tally); }, {.return_completion_errors = true});
}
