// libragged_pmpi.so: the MPI collectives an unmodified program calls (docs/pmpi.md).
//
//   MPI_Xxx(args)
//     RAGGED_XXX unset (and no RAGGED_TUNING_FILE), or =native  -> PMPI_Xxx(args)
//     otherwise: the communicator's state (made at its first such call), then per call
//       intercommunicator, a zero-byte message, a reduction ragged cannot split, selection
//       choosing "native", an argument dispatch rejects              -> PMPI_Xxx(args)
//       else: datatypes as raw bytes (packed when not dense), ragged's dispatch entry point
//     RAGGED_REPORT set: the call is timed and recorded around all this (report.hpp)
//     `auto` allgathers and allreduces: the call's arrival snapshot first, and every return
//     seen by the arrival runtime (site_prediction.hpp)
//
// Every decision to give a call to the MPI library rests on what all ranks of the call share
// (the environment, the communicator, counts and datatypes of reductions, the size of one block,
// which the type signatures fix), so no rank runs ragged while another runs the MPI library.
// Each rank's own datatypes only decide whether it packs: that stays local.
#include "collectives.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "ragged/selection.hpp"

using ragged::Collective;
using ragged::DataType;
namespace pmpi = ragged::pmpi;
using pmpi::Blocks;
using pmpi::Call;
using pmpi::Route;
using pmpi::TypeInfo;
using namespace ragged::pmpi::routing;

namespace {

/// The block of a gather or scatter, checked the same way on both: `local` is the side every
/// rank has (gather: what it sends; scatter: what it receives), `at_root` the side only the root
/// has; `in_place` (the root's local side) leaves only the root's. Returns false, after noting
/// why, when the MPI library must run the call, or when selection does not choose ragged.
bool rooted_block(Call& call, int root, bool in_place, int local_count, MPI_Datatype local_type, TypeInfo& local,
                  int root_count, MPI_Datatype root_type, TypeInfo& root_side, std::size_t& block) {
  if (!valid_root(call, root)) return call.fallback("root");
  const bool is_root = call.rank() == root;
  if (in_place && !is_root) return call.fallback("MPI_IN_PLACE at a non-root");
  std::size_t mine = 0;
  if (!in_place && !bytes_of(local_count, local_type, local, mine)) return call.fallback("datatype or count");
  if (is_root) {
    if (!bytes_of(root_count, root_type, root_side, block)) return call.fallback("datatype or count");
    if (!in_place && mine != block) return call.fallback("send and receive sizes differ");
  } else {
    block = mine;
  }
  if (block == 0) return call.fallback("zero bytes");
  return call.selects_ragged(block);
}

/// The checks every reduction shares (allreduce, reduce, scan, exscan, reduce_scatter_block): a
/// positive count, an operator and a datatype ragged can reduce, and selection choosing ragged for
/// `blocks` vectors of `count` (reduce_scatter_block reduces size() of them; `largest`: reduce_scatter's
/// largest block, in elements). Returns false, after noting why, when the MPI library must run the
/// call; else `reduction` and `n` (the elements of one).
bool reducible_call(Call& call, int count, MPI_Datatype datatype, MPI_Op op, pmpi::Reduction& reduction, std::size_t& n,
                    std::size_t blocks = 1, std::size_t largest = 0) {
  if (count <= 0) return call.fallback(count == 0 ? "zero count" : "negative count");
  if (op == MPI_OP_NULL) return call.fallback("MPI_OP_NULL");
  const char* why = nullptr;
  if (!pmpi::reduction_of(datatype, op, reduction, why)) return call.fallback(why);
  n = static_cast<std::size_t>(count);
  const std::size_t unit = ragged::size_of(reduction.unit);
  return call.selects_ragged(blocks * n * unit, reduction.op.commutative, largest * unit, unit);
}

}  // namespace

// The routing of each collective (collectives.hpp); the MPI_ entry points at the end add the
// report's recording, and collectives_nonblocking.cpp runs them on a communicator's worker.
namespace ragged::pmpi::routing {

int route_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  const auto native = [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); };
  return routed(
      Collective::allgather, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        TypeInfo rt;
        TypeInfo st;
        std::size_t block = 0;
        if (!equal_blocks(call, in_place, sendcount, sendtype, st, recvcount, recvtype, rt, block)) return false;
        const auto p = static_cast<std::size_t>(call.size());
        const auto r = static_cast<MPI_Aint>(call.rank());
        std::byte* recv = rt.dense ? bytes(recvbuf) : call.scratch(0, p * block).data();
        const void* send = ragged::in_place;
        if (in_place) {
          if (!rt.dense) {
            pmpi::pack(pmpi::offset(recvbuf, r * recvcount * rt.extent), static_cast<std::size_t>(recvcount), rt,
                       recv + static_cast<std::size_t>(r) * block, call.handle());
          }
        } else if (st.dense) {
          send = sendbuf;
        } else {
          send = staged_send(call, sendbuf, static_cast<std::size_t>(sendcount), st);
        }
        call.ran(ragged::allgather(call.comm(), send, recv, block, DataType::byte, call.options()));
        if (!rt.dense) pmpi::unpack(recv, p * static_cast<std::size_t>(recvcount), rt, recvbuf, call.handle());
        return true;
      },
      native);
}

int route_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const auto native = [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); };
  return routed(
      Collective::allreduce, comm,
      [&](Call& call) {
        pmpi::Reduction reduction;
        std::size_t n = 0;
        if (!reducible_call(call, count, datatype, op, reduction, n)) return false;
        call.ran(ragged::allreduce(call.comm(), in_place_or(sendbuf), recvbuf, n, reduction.unit, reduction.op,
                                   call.options()));
        return true;
      },
      native);
}

/// MPI_Scan (`exclusive` false) and MPI_Exscan (true): as an allreduce, operand for operand.
int route_prefix(bool exclusive, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm) {
  const auto native = [&] {
    return exclusive ? PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm)
                     : PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
  };
  return routed(
      exclusive ? Collective::exscan : Collective::scan, comm,
      [&](Call& call) {
        pmpi::Reduction reduction;
        std::size_t n = 0;
        if (!reducible_call(call, count, datatype, op, reduction, n)) return false;
        const auto run = exclusive ? &ragged::exscan : &ragged::scan;
        call.ran(run(call.comm(), in_place_or(sendbuf), recvbuf, n, reduction.unit, reduction.op, call.options()));
        return true;
      },
      native);
}

int route_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm) {
  const auto native = [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); };
  return routed(
      Collective::reduce_scatter_block, comm,
      [&](Call& call) {
        pmpi::Reduction reduction;
        std::size_t n = 0;
        if (!reducible_call(call, recvcount, datatype, op, reduction, n, static_cast<std::size_t>(call.size()))) {
          return false;
        }
        call.ran(ragged::reduce_scatter_block(call.comm(), in_place_or(sendbuf), recvbuf, n, reduction.unit,
                                              reduction.op, call.options()));
        return true;
      },
      native);
}

/// MPI_Reduce_scatter: reduce_scatter_block's checks on the whole vector, the counts' sum; a
/// zero total goes to the MPI library.
int route_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
  const auto native = [&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm); };
  return routed(
      Collective::reduce_scatter, comm,
      [&](Call& call) {
        if (recvcounts == nullptr) return call.fallback("null counts");
        const std::span<const int> counts(recvcounts, static_cast<std::size_t>(call.size()));
        long long total = 0;
        int largest = 0;
        for (int c : counts) {
          if (c < 0) return call.fallback("negative count");
          total += c;
          largest = std::max(largest, c);
        }
        if (total > INT_MAX) return call.fallback("more than INT_MAX elements");
        pmpi::Reduction reduction;
        std::size_t n = 0;
        if (!reducible_call(call, static_cast<int>(total), datatype, op, reduction, n, 1,
                            static_cast<std::size_t>(largest))) {
          return false;
        }
        call.ran(ragged::reduce_scatter(call.comm(), in_place_or(sendbuf), recvbuf, counts, reduction.unit,
                                        reduction.op, call.options()));
        return true;
      },
      native);
}

int route_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm) {
  const auto native = [&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); };
  return routed(
      Collective::reduce, comm,
      [&](Call& call) {
        if (!valid_root(call, root)) return call.fallback("root");
        pmpi::Reduction reduction;
        std::size_t n = 0;
        if (!reducible_call(call, count, datatype, op, reduction, n)) return false;
        call.ran(ragged::reduce(call.comm(), in_place_or(sendbuf), recvbuf, n, reduction.unit, reduction.op, root,
                                call.options()));
        return true;
      },
      native);
}

int route_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const auto native = [&] { return PMPI_Bcast(buffer, count, datatype, root, comm); };
  return routed(
      Collective::bcast, comm,
      [&](Call& call) {
        if (!valid_root(call, root)) return call.fallback("root");
        TypeInfo type;
        std::size_t n = 0;
        if (!bytes_of(count, datatype, type, n)) return call.fallback("datatype or count");
        if (n == 0) return call.fallback("zero bytes");
        if (!call.selects_ragged(n)) return false;
        if (type.dense) {
          call.ran(ragged::bcast(call.comm(), buffer, n, DataType::byte, root, call.options()));
          return true;
        }
        std::byte* staged = call.scratch(0, n).data();
        const bool at_root = call.rank() == root;
        if (at_root) pmpi::pack(buffer, static_cast<std::size_t>(count), type, staged, call.handle());
        call.ran(ragged::bcast(call.comm(), staged, n, DataType::byte, root, call.options()));
        if (!at_root) pmpi::unpack(staged, static_cast<std::size_t>(count), type, buffer, call.handle());
        return true;
      },
      native);
}

int route_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  return routed(
      Collective::gather, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        TypeInfo st;
        TypeInfo rt;
        std::size_t block = 0;
        if (!rooted_block(call, root, in_place, sendcount, sendtype, st, recvcount, recvtype, rt, block)) return false;
        const bool at_root = call.rank() == root;
        const void* send = sendbuf;
        if (!in_place && !st.dense) {
          send = staged_send(call, sendbuf, static_cast<std::size_t>(sendcount), st);
        }
        if (!at_root) {
          call.ran(ragged::gather(call.comm(), send, recvbuf, block, DataType::byte, root, call.options()));
          return true;
        }
        const auto p = static_cast<std::size_t>(call.size());
        std::byte* recv = rt.dense ? bytes(recvbuf) : call.scratch(0, p * block).data();
        if (in_place) {
          send = ragged::in_place;
          if (!rt.dense) {
            pmpi::pack(pmpi::offset(recvbuf, static_cast<MPI_Aint>(root) * recvcount * rt.extent),
                       static_cast<std::size_t>(recvcount), rt, recv + static_cast<std::size_t>(root) * block,
                       call.handle());
          }
        }
        call.ran(ragged::gather(call.comm(), send, recv, block, DataType::byte, root, call.options()));
        if (!rt.dense) pmpi::unpack(recv, p * static_cast<std::size_t>(recvcount), rt, recvbuf, call.handle());
        return true;
      },
      native);
}

int route_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  return routed(
      Collective::scatter, comm,
      [&](Call& call) {
        const bool in_place = recvbuf == MPI_IN_PLACE;
        TypeInfo st;
        TypeInfo rt;
        std::size_t block = 0;
        if (!rooted_block(call, root, in_place, recvcount, recvtype, rt, sendcount, sendtype, st, block)) return false;
        const bool at_root = call.rank() == root;
        const auto p = static_cast<std::size_t>(call.size());
        const void* send = sendbuf;
        if (at_root && !st.dense) {
          send = staged_send(call, sendbuf, p * static_cast<std::size_t>(sendcount), st);
        }
        void* recv = in_place ? const_cast<void*>(ragged::in_place) : recvbuf;
        if (!in_place && !rt.dense) recv = call.scratch(0, block).data();
        call.ran(ragged::scatter(call.comm(), send, recv, block, DataType::byte, root, call.options()));
        if (!in_place && !rt.dense) {
          pmpi::unpack(static_cast<const std::byte*>(recv), static_cast<std::size_t>(recvcount), rt, recvbuf,
                       call.handle());
        }
        return true;
      },
      native);
}
int route_barrier(MPI_Comm comm) {
  const std::string* set = ragged::environment().find("RAGGED_BARRIER");  // read once per process
  const char* name = set != nullptr && !pmpi::settings_differ() ? set->c_str() : nullptr;
  if (pmpi::report::enabled()) [[unlikely]] {
    using pmpi::report::Mode;
    const bool unset = name == nullptr || *name == '\0';
    pmpi::report::note_route(unset                              ? Mode::unset
                             : std::strcmp(name, "native") == 0 ? Mode::native
                             : std::strcmp(name, "auto") == 0   ? Mode::automatic
                                                                : Mode::named,
                             name);
  }
  if (name == nullptr || *name == '\0' || std::strcmp(name, "native") == 0) return native_outcome(PMPI_Barrier(comm));
  if (std::strcmp(name, "auto") != 0 && std::strcmp(name, "dissemination") != 0) {
    pmpi::say_once(std::string("RAGGED_BARRIER=") + name,
                   std::string("ragged pmpi: no barrier algorithm named '") + name +
                       "' (known: native, dissemination, auto); MPI_Barrier runs natively");
    pmpi::note_last("native (unknown algorithm)");
    return PMPI_Barrier(comm);
  }
  if (comm == MPI_COMM_NULL) {
    pmpi::note_last("native (MPI_COMM_NULL)");
    return PMPI_Barrier(comm);
  }
  try {
    pmpi::ensure_initialized();
    pmpi::CommAttribute& state = pmpi::state_of(comm);
    if (state.inter) {
      pmpi::note_last("native (intercommunicator)");
      return PMPI_Barrier(comm);
    }
    ragged::barrier(*state.comm);
    pmpi::note_last("dissemination");
    return MPI_SUCCESS;
  } catch (const ragged::TransportError& e) {
    return pmpi::raise_error(comm, e.what(), "MPI_Barrier", pmpi::class_of(e.code()));
  } catch (const std::bad_alloc& e) {
    return pmpi::raise_error(comm, e.what(), "MPI_Barrier", MPI_ERR_NO_MEM);
  } catch (const std::exception& e) {
    return pmpi::raise_error(comm, e.what(), "MPI_Barrier", MPI_ERR_INTERN);
  } catch (...) {
    return pmpi::raise_error(comm, "unknown exception", "MPI_Barrier", MPI_ERR_INTERN);
  }
}

}  // namespace ragged::pmpi::routing

extern "C" {

RAGGED_PMPI_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return entry(
      Kind::allgather, comm,
      [&] { return route_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      describe_allgather(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

RAGGED_PMPI_EXPORT int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm) {
  return entry(
      Kind::allreduce, comm, [&] { return route_allreduce(sendbuf, recvbuf, count, datatype, op, comm); },
      describe_vector(count, datatype));
}

RAGGED_PMPI_EXPORT int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  int root, MPI_Comm comm) {
  return entry(
      Kind::reduce, comm, [&] { return route_reduce(sendbuf, recvbuf, count, datatype, op, root, comm); },
      describe_reduce(count, datatype, root));
}

RAGGED_PMPI_EXPORT int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return entry(
      Kind::bcast, comm, [&] { return route_bcast(buffer, count, datatype, root, comm); },
      describe_bcast(count, datatype, root));
}

RAGGED_PMPI_EXPORT int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return entry(
      Kind::gather, comm,
      [&] { return route_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      describe_gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root));
}

RAGGED_PMPI_EXPORT int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return entry(
      Kind::scatter, comm,
      [&] { return route_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      describe_scatter(sendcount, sendtype, recvcount, recvtype, root));
}

RAGGED_PMPI_EXPORT int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm) {
  return entry(
      Kind::scan, comm, [&] { return route_prefix(false, sendbuf, recvbuf, count, datatype, op, comm); },
      describe_vector(count, datatype));
}

RAGGED_PMPI_EXPORT int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm) {
  return entry(
      Kind::exscan, comm, [&] { return route_prefix(true, sendbuf, recvbuf, count, datatype, op, comm); },
      describe_vector(count, datatype));
}

RAGGED_PMPI_EXPORT int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return entry(
      Kind::reduce_scatter_block, comm,
      [&] { return route_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); },
      describe_reduce_scatter_block(recvcount, datatype));
}

RAGGED_PMPI_EXPORT int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return entry(
      Kind::reduce_scatter, comm,
      [&] { return route_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm); },
      describe_reduce_scatter(recvcounts, datatype));
}

RAGGED_PMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  return entry(
      Kind::barrier, comm, [&] { return route_barrier(comm); }, describe_barrier());
}

}  // extern "C"
