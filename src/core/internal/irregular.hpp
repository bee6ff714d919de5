// Helpers shared by the gatherv and scatterv algorithm files (Träff 2018):
// the placement of a run of blocks in the root's buffer, ordered sends, and the
// collection of errors that can only be reported once the communication has
// finished (so that no other rank hangs); and Träff's algorithms with explicit
// TraffOptions. Dispatch has checked the arguments (counts, displacements, root,
// buffers), resolved in_place and copied the root's own block before these run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"
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

/// Calls f(place, at, n) for the blocks of `ranks` in this order: the block of n bytes at byte
/// `place` of the root's buffer is at byte `at` of their packed run.
template <class F>
void for_each_packed(std::span<const int> counts, std::span<const int> displs, std::span<const int> ranks,
                     std::size_t element, F&& f) {
  std::size_t at = 0;
  for (int r : ranks) {
    const auto i = static_cast<std::size_t>(r);
    const std::size_t n = static_cast<std::size_t>(counts[i]) * element;
    f(static_cast<std::size_t>(displs[i]) * element, at, n);
    at += n;
  }
}

/// Copies the blocks of `ranks`, packed in this order in `packed`, to their places in `buffer`.
inline void unpack(std::byte* buffer, const std::byte* packed, std::span<const int> counts, std::span<const int> displs,
                   std::span<const int> ranks, std::size_t element) {
  for_each_packed(counts, displs, ranks, element, [&](std::size_t place, std::size_t at, std::size_t n) {
    copy_bytes(buffer + place, packed + at, n);
  });
}

/// Packs the blocks of `ranks` from their places in `buffer` into `packed`, in this order.
inline void pack(std::byte* packed, const std::byte* buffer, std::span<const int> counts, std::span<const int> displs,
                 std::span<const int> ranks, std::size_t element) {
  for_each_packed(counts, displs, ranks, element, [&](std::size_t place, std::size_t at, std::size_t n) {
    copy_bytes(packed + at, buffer + place, n);
  });
}

/// The ranks other than `root` whose count is not zero, in order: those a linear gatherv or
/// scatterv root exchanges a message with.
inline std::vector<int> nonempty_others(std::span<const int> counts, int root) {
  std::vector<int> out;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (static_cast<int>(i) != root && counts[i] != 0) out.push_back(static_cast<int>(i));
  }
  return out;
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

/// At a gatherv's root: dispatch put the root's own block at its place in `out` only when
/// `sendcount` agrees with recvcounts[root]; otherwise this notes "sendcount" and copies what fits.
inline void place_root_block(std::byte* out, const void* sendbuf, int sendcount, std::span<const int> recvcounts,
                             std::span<const int> displs, int root, std::size_t element, Deferred& errors) {
  const auto r = static_cast<std::size_t>(root);
  if (sendcount == recvcounts[r]) return;
  errors.note("sendcount", "the root sends " + std::to_string(sendcount) + " elements, recvcounts[root] is " +
                               std::to_string(recvcounts[r]));
  copy_bytes(out + static_cast<std::size_t>(displs[r]) * element, sendbuf,
             static_cast<std::size_t>(std::min(sendcount, recvcounts[r])) * element);
}

/// At a scatterv's root: dispatch put the root's own block in `recvbuf` only when `recvcount`
/// agrees with sendcounts[root]; otherwise this notes "recvcount" and copies what fits.
inline void take_root_block(void* recvbuf, const std::byte* in, int recvcount, std::span<const int> sendcounts,
                            std::span<const int> displs, int root, std::size_t element, Deferred& errors) {
  const auto r = static_cast<std::size_t>(root);
  if (recvcount == sendcounts[r]) return;
  errors.note("recvcount", "the root receives " + std::to_string(recvcount) + " elements, sendcounts[root] is " +
                               std::to_string(sendcounts[r]));
  copy_bytes(recvbuf, in + static_cast<std::size_t>(displs[r]) * element,
             static_cast<std::size_t>(std::min(recvcount, sendcounts[r])) * element);
}

/// The element counts of the subtrees below one rank of the binomial gatherv and scatterv,
/// where only the root knows the counts.
struct SubtreeSizes {
  std::vector<std::int64_t> child;  ///< per child of the node, in its order
  std::int64_t total = 0;           ///< the rank's own count plus its children's
};

/// Receives from each child of `node` how many elements its subtree holds (an int64 on `tag`),
/// then tells the parent the total of this rank's subtree (`own` elements plus the children's).
inline SubtreeSizes exchange_subtree_sizes(Comm& comm, const plans::binomial::Node& node, int own, int tag,
                                           Timeout timeout) {
  SubtreeSizes sizes;
  sizes.child.assign(node.children.size(), 0);
  {
    std::vector<Request> headers;
    for (std::size_t k = 0; k < node.children.size(); ++k) {
      headers.push_back(comm.irecv(node.children[k].rank, tag, &sizes.child[k], sizeof(std::int64_t)));
    }
    comm.wait_all(headers, timeout);
  }
  sizes.total = own;
  for (std::int64_t s : sizes.child) sizes.total += s;
  if (node.parent >= 0) comm.send(node.parent, tag, &sizes.total, sizeof sizes.total, timeout);
  return sizes;
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
