// ragged: the per-call context that dispatch hands an algorithm. Everything a
// collective call needs besides its buffers: the Comm, a block of tags it may
// split for sub-calls (so algorithms compose: LNBC calls the real broadcast),
// the timeout, a workspace of buffers kept from call to call, and hints of the
// algorithm families (the arrival snapshot, the cluster layout, ...) keyed by
// type, so that a new family needs no new field anywhere.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <typeindex>
#include <utility>
#include <vector>

#include "ragged/comm.hpp"
#include "ragged/datatype.hpp"

namespace ragged {

class ArrivalSnapshot;
struct ClusterLayout;
struct NodeLayout;
struct NetworkModel;
struct Algorithm;

/// A contiguous range of tags [first, first + size) owned by one collective call. Sub-calls
/// get disjoint sub-blocks (sub()), so their messages never match the caller's.
class TagBlock {
 public:
  TagBlock(int first, int size);
  [[nodiscard]] int first() const { return first_; }
  [[nodiscard]] int size() const { return size_; }
  /// Tag i of the block; throws InvalidArgument("tag") outside it.
  [[nodiscard]] int operator[](int i) const;
  /// Tags [first + offset, first + offset + size) as a block of their own.
  [[nodiscard]] TagBlock sub(int offset, int size) const;
  /// Half `which` (0 or 1) of the block: what an algorithm that composes two parts gives each, so
  /// that composition nests (a part that composes again halves its own half).
  [[nodiscard]] TagBlock half(int which) const { return sub(which * (size_ / 2), size_ / 2); }

 private:
  int first_;
  int size_;
};

/// Buffers a collective may hold for the duration of one call, kept from call to call per
/// communicator so that their pages stay mapped (glibc maps every block of 128 KiB or more
/// afresh, paying a page fault per 4 KiB page, which costs more than copying the data).
/// One collective at a time uses it, from the rank's foreground (MPI's rule for the
/// collectives of one communicator); daemons must not.
class Workspace {
 public:
  /// Independent slots, for parts whose sizes become known at different times (alltoallv lg:
  /// its outboxes before the block sizes arrive, its inboxes after).
  static constexpr int slots = 2;
  /// `bytes` bytes (unspecified contents) of slot `slot`, valid until the next get() of the
  /// same slot or release().
  [[nodiscard]] std::span<std::byte> get(std::size_t bytes, int slot = 0);
  /// Frees every slot (the next get() allocates afresh).
  void release() noexcept;

 private:
  struct Block {
    std::unique_ptr<std::byte[]> data;
    std::size_t bytes = 0;
  };
  std::array<Block, slots> blocks_;
};

/// The workspace that dispatch lends the collectives of `comm` (kept in Comm::dispatch_state()).
[[nodiscard]] Workspace& workspace_of(Comm& comm);

/// Family-specific hints, one value per type: `hints.set(snapshot)`, `hints.get<ArrivalSnapshot>()`.
class Hints {
 public:
  template <class T>
  void set(std::shared_ptr<const T> value) {
    set_erased(std::type_index(typeid(T)), std::shared_ptr<const void>(std::move(value)));
  }
  template <class T>
  void set(std::shared_ptr<T> value) {
    set<T>(std::shared_ptr<const T>(std::move(value)));
  }
  /// The hint of type T, or null.
  template <class T>
  [[nodiscard]] const T* get() const {
    return static_cast<const T*>(get_erased(std::type_index(typeid(T))).get());
  }
  /// The hint of type T, shared, or null.
  template <class T>
  [[nodiscard]] std::shared_ptr<const T> shared() const {
    return std::static_pointer_cast<const T>(get_erased(std::type_index(typeid(T))));
  }
  template <class T>
  void erase() {
    set_erased(std::type_index(typeid(T)), nullptr);
  }

 private:
  void set_erased(std::type_index type, std::shared_ptr<const void> value);
  [[nodiscard]] std::shared_ptr<const void> get_erased(std::type_index type) const;
  std::vector<std::pair<std::type_index, std::shared_ptr<const void>>> values_;
};

/// Which ranks of `comm` share a node, as dispatch sees it for a call with `hints`: a NodeLayout
/// hint, else RAGGED_LAYOUT (the environment as the process first saw it), else the Comm's
/// (Comm::layout()), else one rank per node. Never null; the same on every rank. Kept on the
/// Comm (Comm::cached), so only a hint or a new RAGGED_LAYOUT builds it again.
[[nodiscard]] std::shared_ptr<const NodeLayout> layout_of(Comm& comm, const Hints& hints);
/// What is known of the links of `comm` for a call with `hints`: a NetworkModel hint, else the
/// backend's (Comm::network()); null when nothing is known.
[[nodiscard]] std::shared_ptr<const NetworkModel> network_of(const Comm& comm, const Hints& hints);

/// A buffer seen as consecutive blocks of `block()` bytes (the recvbuf of an allgather, the
/// sendbuf of a scatter): at(i) is the first byte of block i, bytes(n) the size of n blocks.
/// `Byte` is std::byte or const std::byte.
template <class Byte>
class BlockView {
 public:
  BlockView(Byte* data, std::size_t block) : data_(data), block_(block) {}
  [[nodiscard]] Byte* data() const { return data_; }
  [[nodiscard]] std::size_t block() const { return block_; }
  /// Bytes of `n` blocks (n >= 0).
  [[nodiscard]] std::size_t bytes(int n) const { return static_cast<std::size_t>(n) * block_; }
  /// The first byte of block `i` (i >= 0).
  [[nodiscard]] Byte* at(int i) const { return data_ + bytes(i); }

 private:
  Byte* data_;
  std::size_t block_;
};

/// What an algorithm gets besides its buffers. Built by dispatch, once per call; an algorithm
/// that composes others builds a sub-context with sub() and calls them through it.
class Context {
 public:
  Context(Comm& comm, TagBlock tags, Timeout timeout, Workspace& workspace, const Hints& hints,
          const Algorithm* algorithm = nullptr);

  [[nodiscard]] Comm& comm() const { return *comm_; }
  [[nodiscard]] Runtime& runtime() const { return comm_->runtime(); }
  [[nodiscard]] int rank() const { return comm_->rank(); }
  [[nodiscard]] int size() const { return comm_->size(); }
  /// P, the number of ranks (size() under the name the algorithms give it).
  [[nodiscard]] int procs() const { return comm_->size(); }
  [[nodiscard]] const TagBlock& tags() const { return tags_; }
  /// Tag i of this call's block.
  [[nodiscard]] int tag(int i = 0) const { return tags_[i]; }
  /// The time left until the call's deadline (set when dispatch built the context: the call's
  /// timeout from its start), for the next blocking wait; unset when the call has no timeout.
  /// Every wait of a call uses it, so the call as a whole raises TimeoutError within its timeout.
  [[nodiscard]] Timeout timeout() const;
  [[nodiscard]] Workspace& workspace() const { return *workspace_; }
  [[nodiscard]] const Hints& hints() const { return *hints_; }
  /// The running algorithm's entry of the list (null for a bare context in a test).
  [[nodiscard]] const Algorithm* algorithm() const { return algorithm_; }

  /// Bytes of `count` elements of `type` (one block of a call on equal blocks).
  [[nodiscard]] static std::size_t bytes(std::size_t count, DataType type) { return count * size_of(type); }
  /// `buffer` as blocks of `block` bytes each.
  [[nodiscard]] static BlockView<std::byte> blocks(void* buffer, std::size_t block) {
    return {static_cast<std::byte*>(buffer), block};
  }
  [[nodiscard]] static BlockView<const std::byte> blocks(const void* buffer, std::size_t block) {
    return {static_cast<const std::byte*>(buffer), block};
  }

  /// Hints of the two families that exist today.
  [[nodiscard]] const ArrivalSnapshot* arrival() const;
  [[nodiscard]] const ClusterLayout* clusters() const;
  /// Which ranks of the call share a node: a NodeLayout hint, else RAGGED_LAYOUT, else the Comm's
  /// (Comm::layout()), else one rank per node. Never null; the same on every rank.
  [[nodiscard]] std::shared_ptr<const NodeLayout> layout() const;

  /// A context for a sub-call: tags [offset, offset + size) of this block. The sub-call shares
  /// the workspace: it may overwrite the caller's workspace slots, so a caller that composes
  /// keeps its own data out of the workspace across the sub-call.
  [[nodiscard]] Context sub(int offset, int size) const;
  /// sub() on half `which` (0 or 1) of this call's tags (TagBlock::half()).
  [[nodiscard]] Context half(int which) const {
    const int h = tags_.size() / 2;
    return sub(which * h, h);
  }
  /// This context with other hints (which must outlive it): a composing algorithm passes its
  /// sub-call a hint of its own (allgather lnbc: the broadcast's source fills while it runs).
  [[nodiscard]] Context with_hints(const Hints& hints) const;

 private:
  Comm* comm_;
  TagBlock tags_;
  Timeout deadline_;  ///< on the runtime's clock
  Workspace* workspace_;
  const Hints* hints_;
  const Algorithm* algorithm_;
};

}  // namespace ragged
