// Helpers shared by the gatherv and scatterv algorithm files (Träff 2018):
// the placement of a run of blocks in the root's buffer, ordered sends, and the
// collection of errors that can only be reported once the communication has
// finished (so that no other rank hangs); and Träff's algorithms with explicit
// TraffOptions. Dispatch has checked the arguments (counts, displacements, root,
// buffers), resolved in_place and copied the root's own block before these run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "internal/common.hpp"
#include "ragged/comm.hpp"
#include "ragged/context.hpp"
#include "ragged/error.hpp"
#include "ragged/irregular.hpp"

namespace ragged::internal::irregular {

/// Sum of counts over `ranks`.
inline std::int64_t total(std::span<const int> counts, std::span<const int> ranks) {
  std::int64_t s = 0;
  for (int r : ranks) s += counts[static_cast<std::size_t>(r)];
  return s;
}

/// If the non-empty blocks of `ranks` (in this order) lie back to back in the root's
/// buffer, the displacement of the first of them (0 when all are empty); otherwise none.
inline std::optional<std::int64_t> contiguous(std::span<const int> counts, std::span<const int> displs,
                                              std::span<const int> ranks) {
  std::optional<std::int64_t> start;
  std::int64_t next = 0;
  for (int r : ranks) {
    const auto i = static_cast<std::size_t>(r);
    if (counts[i] == 0) continue;
    if (!start) {
      start = displs[i];
    } else if (displs[i] != next) {
      return std::nullopt;
    }
    next = static_cast<std::int64_t>(displs[i]) + counts[i];
  }
  return start.value_or(0);
}

/// Copies the blocks of `ranks`, packed in this order in `packed`, to their places in `buffer`.
inline void unpack(std::byte* buffer, const std::byte* packed, std::span<const int> counts, std::span<const int> displs,
                   std::span<const int> ranks, std::size_t element) {
  std::size_t at = 0;
  for (int r : ranks) {
    const auto i = static_cast<std::size_t>(r);
    const std::size_t n = static_cast<std::size_t>(counts[i]) * element;
    copy_bytes(buffer + static_cast<std::size_t>(displs[i]) * element, packed + at, n);
    at += n;
  }
}

/// Packs the blocks of `ranks` from their places in `buffer` into `packed`, in this order.
inline void pack(std::byte* packed, const std::byte* buffer, std::span<const int> counts, std::span<const int> displs,
                 std::span<const int> ranks, std::size_t element) {
  std::size_t at = 0;
  for (int r : ranks) {
    const auto i = static_cast<std::size_t>(r);
    const std::size_t n = static_cast<std::size_t>(counts[i]) * element;
    copy_bytes(packed + at, buffer + static_cast<std::size_t>(displs[i]) * element, n);
    at += n;
  }
}

/// The ranks first..last, in order.
inline std::vector<int> run(int first, int last) {
  std::vector<int> out;
  for (int r = first; r <= last; ++r) out.push_back(r);
  return out;
}

/// Sends to several children in a given order (largest subtree first). A send of at
/// most `eager_bytes` starts at once, as an MPI eager send costs its sender only the
/// start-up; a larger one starts when the previous large one has completed, so the
/// first (largest) subtree gets the sender's whole bandwidth, as in the 1-ported model
/// of Träff 2018, instead of sharing it with its smaller siblings.
class OrderedSends {
 public:
  static constexpr std::size_t eager_bytes = 16 * 1024;
  void start(Comm& comm, int dest, int tag, const void* data, std::size_t bytes, Timeout timeout) {
    if (bytes > eager_bytes) {
      large_.wait(timeout);
      large_ = comm.isend(dest, tag, data, bytes);
    } else {
      small_.push_back(comm.isend(dest, tag, data, bytes));
    }
  }
  void finish(Comm& comm, Timeout timeout) {
    comm.wait_all(small_, timeout);
    large_.wait(timeout);
  }

 private:
  std::vector<Request> small_;
  Request large_;
};

/// The first argument error found during a call, thrown once the call's communication is done.
class Deferred {
 public:
  void note(const char* argument, std::string why) {
    if (argument_.empty()) {
      argument_ = argument;
      why_ = std::move(why);
    }
  }
  [[nodiscard]] bool any() const { return !argument_.empty(); }
  void raise() const {
    if (any()) throw InvalidArgument(argument_, why_);
  }

 private:
  std::string argument_;
  std::string why_;
};

/// Waits for a receive and notes under `argument` if it brought other than `expected` bytes.
inline void wait_checked(Request& request, std::size_t expected, Timeout timeout, Deferred& errors,
                         const char* argument, int source) {
  request.wait(timeout);
  const std::size_t got = request.status().bytes;
  if (got != expected) {
    errors.note(argument, "rank " + std::to_string(source) + " sent " + std::to_string(got) + " bytes where " +
                              std::to_string(expected) + " were expected (counts disagree)");
  }
}

}  // namespace ragged::internal::irregular

namespace ragged {

/// Träff's gatherv with explicit options (gatherv "traff", "traff_copy" and "traff_degrade"
/// are this with fixed ones). The arguments as an algorithm gets them from dispatch: checked,
/// sendbuf never in_place, the root's own block already at recvbuf + displs[root] when the
/// root's sendcount agrees with recvcounts[root] (otherwise the algorithm reports "sendcount").
void gatherv_traff_with(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf,
                        std::span<const int> recvcounts, std::span<const int> displs, DataType type, int root,
                        const TraffOptions& traff);
/// Träff's scatterv with explicit options; arguments as gatherv_traff_with's (recvbuf never
/// in_place, the root's own block already in recvbuf when the counts agree).
void scatterv_traff_with(Context& ctx, const void* sendbuf, std::span<const int> sendcounts,
                         std::span<const int> displs, void* recvbuf, int recvcount, DataType type, int root,
                         const TraffOptions& traff);

}  // namespace ragged
