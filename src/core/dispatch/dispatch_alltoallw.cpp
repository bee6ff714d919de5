// Dispatch's entry point of alltoallw (docs/algorithms/alltoallw.md): the same steps as
// dispatch.cpp's alltoallv: validate (one count, displacement and type per rank; displacements in
// bytes, as MPI_Alltoallw), select once (the sizes are the ranks' own, as alltoallv's), resolve
// in_place, copy the own block, stop early for P = 1, run the algorithm on the collective's own
// tag block.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "dispatch/call.hpp"
#include "internal/common.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"

namespace ragged {
namespace {

void check_types(const Comm& comm, std::span<const DataType> types, const char* argument) {
  if (types.size() != static_cast<std::size_t>(comm.size())) {
    throw InvalidArgument(
        argument, "has " + std::to_string(types.size()) + " entries for " + std::to_string(comm.size()) + " ranks");
  }
}

/// The bytes past the last block of one side: max over ranks of displacement + count * size.
std::size_t extent_bytes(std::span<const int> counts, std::span<const int> displs, std::span<const DataType> types,
                         const char* argument) {
  std::size_t end = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (displs[i] < 0) {
      throw InvalidArgument(argument,
                            "entry " + std::to_string(i) + " is negative (" + std::to_string(displs[i]) + ")");
    }
    if (counts[i] == 0) continue;
    end = std::max(end, static_cast<std::size_t>(displs[i]) + static_cast<std::size_t>(counts[i]) * size_of(types[i]));
  }
  return end;
}

}  // namespace

const Algorithm& alltoallw(Comm& comm, const void* sendbuf, std::span<const int> sendcounts,
                           std::span<const int> sdispls, std::span<const DataType> sendtypes, void* recvbuf,
                           std::span<const int> recvcounts, std::span<const int> rdispls,
                           std::span<const DataType> recvtypes, const CollectiveOptions& options) {
  using internal::bytes;
  using internal::check_vector;
  check_vector(comm, recvcounts, "recvcounts");
  if (rdispls.size() != recvcounts.size()) check_vector(comm, rdispls, "rdispls");
  check_types(comm, recvtypes, "recvtypes");
  internal::reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  const std::size_t recv_extent = extent_bytes(recvcounts, rdispls, recvtypes, "rdispls");
  internal::check_buffer(recvbuf, recv_extent, "recvbuf");
  std::vector<std::byte> copy;
  if (internal::is_in_place(sendbuf)) {  // MPI: the receive side describes what is sent
    copy.assign(bytes(recvbuf), bytes(recvbuf) + recv_extent);
    sendbuf = copy.data();
    sendcounts = recvcounts;
    sdispls = rdispls;
    sendtypes = recvtypes;
  } else {
    check_vector(comm, sendcounts, "sendcounts");
    if (sdispls.size() != sendcounts.size()) check_vector(comm, sdispls, "sdispls");
    check_types(comm, sendtypes, "sendtypes");
    internal::check_buffer(sendbuf, extent_bytes(sendcounts, sdispls, sendtypes, "sdispls"), "sendbuf");
  }
  const Algorithm& algorithm = internal::choose_for_call(comm, Collective::alltoallw, 0, true, options);
  const auto r = static_cast<std::size_t>(comm.rank());
  const std::size_t own = static_cast<std::size_t>(sendcounts[r]) * size_of(sendtypes[r]);
  if (own != static_cast<std::size_t>(recvcounts[r]) * size_of(recvtypes[r])) {
    // MPI: what a rank sends itself is what it receives from itself
    throw InvalidArgument("sendcounts",
                          "rank " + std::to_string(r) + " sends itself " + std::to_string(own) + " bytes but expects " +
                              std::to_string(static_cast<std::size_t>(recvcounts[r]) * size_of(recvtypes[r])));
  }
  internal::copy_bytes(bytes(recvbuf) + rdispls[r], bytes(sendbuf) + sdispls[r], own);
  if (comm.size() == 1) return internal::ends_early(algorithm, options);
  internal::run_call<Collective::alltoallw>(comm, algorithm, options, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                            recvcounts, rdispls, recvtypes);
  return algorithm;
}

}  // namespace ragged
