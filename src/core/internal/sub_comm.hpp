// A Comm over a subset of a parent Comm's ranks (as MPI_Comm_split, without a collective call):
// the hierarchical collectives run their intra-node and inter-node phases on these
// (docs/algorithms/hierarchical.md). Messages go through the parent with the tags the caller
// gives; ranks translate both ways, Status::source included. Kept per parent Comm (sub_comm()),
// so repeated calls reuse one SubComm and its cached state (dispatch's, the layout's).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ragged/comm.hpp"
#include "ragged/layout.hpp"

namespace ragged::internal {

class SubComm final : public Comm {
 public:
  /// The ranks `members` of `parent` (distinct, each a rank of parent, this rank among them) in
  /// that order: member i is rank i here. `layout` is theirs (Comm::layout()), for members.size()
  /// ranks. The parent must outlive this.
  SubComm(Comm& parent, std::vector<int> members, std::shared_ptr<const NodeLayout> layout);

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return static_cast<int>(members_.size()); }
  [[nodiscard]] Runtime& runtime() override { return parent_.runtime(); }
  [[nodiscard]] std::string backend() const override { return parent_.backend(); }
  Request isend(int dest, int tag, const void* data, std::size_t bytes) override;
  Request irecv(int source, int tag, void* data, std::size_t capacity) override;
  /// Waits through the parent's wait_any (the backend's own blocking wait, not a polling loop).
  std::size_t wait_any(std::span<Request> requests, Timeout timeout = {}) override;
  /// Throws UnsupportedError: a window is collective over the parent's ranks.
  std::unique_ptr<Window> create_window(std::size_t bytes, int notifications) override;
  [[nodiscard]] bool has_windows() const override { return false; }
  [[nodiscard]] std::size_t max_message_bytes() const override { return parent_.max_message_bytes(); }
  [[nodiscard]] std::shared_ptr<const NodeLayout> layout() const override { return layout_; }
  [[nodiscard]] std::shared_ptr<const NetworkModel> network() const override { return parent_.network(); }

  [[nodiscard]] Comm& parent() const { return parent_; }
  /// The parent's rank of rank `r` here.
  [[nodiscard]] int to_parent(int r) const { return members_[static_cast<std::size_t>(r)]; }
  /// The rank here of the parent's rank `r`, or -1 when it is not a member.
  [[nodiscard]] int from_parent(int r) const;

 private:
  Comm& parent_;
  std::vector<int> members_;
  std::map<int, int> index_;  ///< parent rank -> rank here
  int rank_ = -1;
  std::shared_ptr<const NodeLayout> layout_;
};

/// The SubComm of `parent` over `members` (parent ranks, in the order they take there), its layout
/// the parent's layout `of` restricted to them; made at the first call on this rank and cached on
/// the parent (Comm::cached), so every later call with the same members and nodes reuses it.
/// This rank must be one of `members`.
[[nodiscard]] SubComm& sub_comm(Comm& parent, const std::vector<int>& members, const NodeLayout& of);

}  // namespace ragged::internal
