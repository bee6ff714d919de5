// Dispatch's entry point of allgatherv (docs/algorithms/allgatherv.md): the same steps as
// dispatch.cpp's: validate, select once (on all the blocks' bytes and the largest block's, which
// every rank knows), resolve in_place, copy the own block, stop early for P = 1 or no data, run
// the algorithm on the collective's own tag block.
#include <algorithm>
#include <cstddef>
#include <string>

#include "dispatch/call.hpp"
#include "internal/common.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"

namespace ragged {

const Algorithm& allgatherv(Comm& comm, const void* sendbuf, int sendcount, void* recvbuf,
                            std::span<const int> recvcounts, std::span<const int> displs, DataType type,
                            const CollectiveOptions& options) {
  using internal::is_in_place;
  const std::size_t es = size_of(type);
  internal::check_vector(comm, recvcounts, "recvcounts");
  internal::check_vector(comm, displs, "displs");
  internal::reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  internal::check_buffer(recvbuf, internal::extent(recvcounts, displs) * es, "recvbuf");
  const auto r = static_cast<std::size_t>(comm.rank());
  if (!is_in_place(sendbuf)) {
    internal::check_count(sendcount, "sendcount");
    if (sendcount != recvcounts[r]) {  // MPI: the type signatures of what is sent and received match
      throw InvalidArgument("sendcount", "rank " + std::to_string(r) + " sends " + std::to_string(sendcount) +
                                             " elements but recvcounts[" + std::to_string(r) + "] is " +
                                             std::to_string(recvcounts[r]));
    }
    internal::check_buffer(sendbuf, static_cast<std::size_t>(sendcount) * es, "sendbuf");
  }
  std::size_t total = 0;
  int largest = 0;
  for (int c : recvcounts) {
    total += static_cast<std::size_t>(c);
    largest = std::max(largest, c);
  }
  const Algorithm& algorithm = internal::choose_for_call(comm, Collective::allgatherv, total * es, true, options,
                                                         static_cast<std::size_t>(largest) * es);
  std::byte* own = internal::bytes(recvbuf) + static_cast<std::size_t>(displs[r]) * es;
  if (!is_in_place(sendbuf)) internal::copy_bytes(own, sendbuf, static_cast<std::size_t>(recvcounts[r]) * es);
  if (comm.size() == 1 || total == 0) return internal::ends_early(algorithm, options);
  internal::run_call<Collective::allgatherv>(comm, algorithm, options, static_cast<const void*>(own), recvbuf,
                                             recvcounts, displs, type);
  return algorithm;
}

}  // namespace ragged
