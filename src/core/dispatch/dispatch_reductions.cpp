// Dispatch's entry points of the reductions that came after the first ten collectives: scan,
// exscan (docs/algorithms/scan.md), reduce_scatter_block (docs/algorithms/reduce-scatter-block.md)
// and reduce_scatter (docs/algorithms/reduce-scatter.md).
// The same steps as dispatch.cpp's: validate, select once, resolve in_place, stop early for P = 1
// or count 0, run the algorithm on the collective's own tag block.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "dispatch/call.hpp"
#include "internal/common.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"

namespace ragged {

using internal::bytes;
using internal::check_buffer;
using internal::copy_bytes;
using internal::is_in_place;
using internal::reject_in_place;

const Algorithm& scan(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                      const ReduceOp& op, const CollectiveOptions& options) {
  const std::size_t n = count * size_of(type);
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, n, "sendbuf");
  reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  check_buffer(recvbuf, n, "recvbuf");
  internal::check_reducible(op, type);  // on every rank, before any rank waits for another
  const Algorithm& algorithm =
      internal::choose_for_call(comm, Collective::scan, n, op.commutative, options, 0, size_of(type));
  // Algorithms run in place: the own operand in recvbuf, the prefix written over it.
  if (!is_in_place(sendbuf)) copy_bytes(recvbuf, sendbuf, n);
  if (comm.size() == 1 || count == 0) return internal::ends_early(algorithm, options);
  internal::run_call<Collective::scan>(comm, algorithm, options, static_cast<const void*>(recvbuf), recvbuf, count,
                                       type, std::cref(op));
  return algorithm;
}

const Algorithm& exscan(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                        const ReduceOp& op, const CollectiveOptions& options) {
  const std::size_t n = count * size_of(type);
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, n, "sendbuf");
  reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  check_buffer(recvbuf, n, "recvbuf");
  internal::check_reducible(op, type);
  const Algorithm& algorithm =
      internal::choose_for_call(comm, Collective::exscan, n, op.commutative, options, 0, size_of(type));
  if (comm.size() == 1 || count == 0) return internal::ends_early(algorithm, options);
  // The own operand stays where the caller put it (recvbuf in place): rank 0's recvbuf is never written.
  internal::run_call<Collective::exscan>(comm, algorithm, options,
                                         is_in_place(sendbuf) ? static_cast<const void*>(recvbuf) : sendbuf, recvbuf,
                                         count, type, std::cref(op));
  return algorithm;
}

const Algorithm& reduce_scatter_block(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                                      const ReduceOp& op, const CollectiveOptions& options) {
  const std::size_t n = count * size_of(type);
  const std::size_t all = static_cast<std::size_t>(comm.size()) * n;
  reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  check_buffer(recvbuf, is_in_place(sendbuf) ? all : n, "recvbuf");
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, all, "sendbuf");
  internal::check_reducible(op, type);
  const Algorithm& algorithm =
      internal::choose_for_call(comm, Collective::reduce_scatter_block, all, op.commutative, options, 0, size_of(type));
  std::vector<std::byte> copy;
  if (is_in_place(sendbuf)) {  // the operands are in recvbuf, whose first block takes the result
    copy.assign(bytes(recvbuf), bytes(recvbuf) + all);
    sendbuf = copy.data();
  }
  if (comm.size() == 1) {
    copy_bytes(recvbuf, sendbuf, n);
    return internal::ends_early(algorithm, options);
  }
  if (count == 0) return internal::ends_early(algorithm, options);
  internal::run_call<Collective::reduce_scatter_block>(comm, algorithm, options, sendbuf, recvbuf, count, type,
                                                       std::cref(op));
  return algorithm;
}

const Algorithm& reduce_scatter(Comm& comm, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                                DataType type, const ReduceOp& op, const CollectiveOptions& options) {
  const std::size_t es = size_of(type);
  internal::check_vector(comm, recvcounts, "recvcounts");
  std::size_t total = 0;
  int largest = 0;
  for (int c : recvcounts) {
    total += static_cast<std::size_t>(c);
    largest = std::max(largest, c);
  }
  const auto mine = static_cast<std::size_t>(recvcounts[static_cast<std::size_t>(comm.rank())]);
  reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  check_buffer(recvbuf, (is_in_place(sendbuf) ? total : mine) * es, "recvbuf");
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, total * es, "sendbuf");
  internal::check_reducible(op, type);
  const Algorithm& algorithm = internal::choose_for_call(comm, Collective::reduce_scatter, total * es, op.commutative,
                                                         options, static_cast<std::size_t>(largest) * es, es);
  std::vector<std::byte> copy;
  if (is_in_place(sendbuf)) {  // the operand is in recvbuf, whose first block takes the result
    copy.assign(bytes(recvbuf), bytes(recvbuf) + total * es);
    sendbuf = copy.data();
  }
  if (comm.size() == 1) {
    copy_bytes(recvbuf, sendbuf, mine * es);
    return internal::ends_early(algorithm, options);
  }
  if (total == 0) return internal::ends_early(algorithm, options);
  internal::run_call<Collective::reduce_scatter>(comm, algorithm, options, sendbuf, recvbuf, recvcounts, type,
                                                 std::cref(op));
  return algorithm;
}

}  // namespace ragged
