// Fault injection shared by the sim and mpirun fault tests: one collective
// call by name with a rank missing, and what became of it on this rank.
#pragma once

#include <exception>
#include <numeric>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"

namespace ragged::test {

enum class Outcome { completed, timed_out, other_error };

inline const char* name_of(Outcome o) {
  switch (o) {
    case Outcome::completed:
      return "completed";
    case Outcome::timed_out:
      return "TimeoutError";
    case Outcome::other_error:
      return "another error";
  }
  return "?";
}

/// Whether a present rank must fail when `absent` never calls: it needs data only the absent
/// rank has (every rank of an all-to-all collective; the root of a gather or reduce; everybody
/// when the root is absent from a broadcast or scatter; the ranks above it in a scan or exscan). The others may finish.
inline bool must_time_out(Collective c, int rank, int root, int absent) {
  switch (c) {
    case Collective::bcast:
    case Collective::scatter:
    case Collective::scatterv:
      return absent == root;
    case Collective::gather:
    case Collective::gatherv:
    case Collective::reduce:
      return rank == root;
    case Collective::scan:  // the ranks above the absent one need its operand
      return rank > absent;
    case Collective::exscan:
      return rank > absent;
    default:
      return true;
  }
}

/// One call of `collective` by algorithm `name` on int32 blocks of `count` elements, with
/// `options` (its timeout and hints); `what` gets the error's text.
inline Outcome call_collective(Comm& comm, Collective collective, const std::string& name, int root,
                               CollectiveOptions options, std::string& what, std::size_t count = 4) {
  options.algorithm = name;
  const int p = comm.size();
  const std::size_t all = count * static_cast<std::size_t>(p);
  std::vector<int> in(all, comm.rank() + 1);
  std::vector<int> out(all, 0);
  std::vector<int> counts(static_cast<std::size_t>(p), static_cast<int>(count));
  std::vector<int> displs(static_cast<std::size_t>(p));
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  const int n = static_cast<int>(count);
  try {
    switch (collective) {
      case Collective::allgather:
        allgather(comm, in.data(), out.data(), count, DataType::int32, options);
        break;
      case Collective::allreduce:
        allreduce(comm, in.data(), out.data(), count, DataType::int32, ReduceOp::sum(), options);
        break;
      case Collective::bcast:
        bcast(comm, in.data(), count, DataType::int32, root, options);
        break;
      case Collective::reduce:
        reduce(comm, in.data(), out.data(), count, DataType::int32, ReduceOp::sum(), root, options);
        break;
      case Collective::gather:
        gather(comm, in.data(), out.data(), count, DataType::int32, root, options);
        break;
      case Collective::scatter:
        scatter(comm, in.data(), out.data(), count, DataType::int32, root, options);
        break;
      case Collective::gatherv:
        gatherv(comm, in.data(), n, out.data(), counts, displs, DataType::int32, root, options);
        break;
      case Collective::scatterv:
        scatterv(comm, in.data(), counts, displs, out.data(), n, DataType::int32, root, options);
        break;
      case Collective::alltoall:
        alltoall(comm, in.data(), out.data(), count, DataType::int32, options);
        break;
      case Collective::alltoallv:
        alltoallv(comm, in.data(), counts, displs, out.data(), counts, displs, DataType::int32, options);
        break;
      case Collective::scan:
        scan(comm, in.data(), out.data(), count, DataType::int32, ReduceOp::sum(), options);
        break;
      case Collective::exscan:
        exscan(comm, in.data(), out.data(), count, DataType::int32, ReduceOp::sum(), options);
        break;
      case Collective::reduce_scatter_block:
        reduce_scatter_block(comm, in.data(), out.data(), count, DataType::int32, ReduceOp::sum(), options);
        break;
      case Collective::allgatherv:
        allgatherv(comm, in.data(), n, out.data(), counts, displs, DataType::int32, options);
        break;
      case Collective::reduce_scatter:
        reduce_scatter(comm, in.data(), out.data(), counts, DataType::int32, ReduceOp::sum(), options);
        break;
      case Collective::alltoallw: {  // displacements in bytes
        const std::vector<DataType> types(static_cast<std::size_t>(p), DataType::int32);
        std::vector<int> byte_displs(displs);
        for (int& d : byte_displs) d *= 4;
        alltoallw(comm, in.data(), counts, byte_displs, types, out.data(), counts, byte_displs, types, options);
        break;
      }
    }
  } catch (const TimeoutError& e) {
    what = e.what();
    return Outcome::timed_out;
  } catch (const std::exception& e) {
    what = e.what();
    return Outcome::other_error;
  }
  return Outcome::completed;
}

}  // namespace ragged::test
