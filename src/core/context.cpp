#include "ragged/context.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>

#include "dispatch/state.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/selection.hpp"
#include "ragged/topology.hpp"

namespace ragged {

TagBlock::TagBlock(int first, int size) : first_(first), size_(size) {
  if (first < 0 || size < 0 || first > max_tag - size + 1) {
    throw InvalidArgument("tags", "block [" + std::to_string(first) + ", " + std::to_string(first + size) +
                                      ") is outside 0.." + std::to_string(max_tag));
  }
}

int TagBlock::operator[](int i) const {
  if (i < 0 || i >= size_) {
    throw InvalidArgument(
        "tag", "index " + std::to_string(i) + " is outside this call's block of " + std::to_string(size_) + " tags");
  }
  return first_ + i;
}

TagBlock TagBlock::sub(int offset, int size) const {
  if (offset < 0 || size < 0 || offset > size_ - size) {
    throw InvalidArgument("tags", "sub-block [" + std::to_string(offset) + ", " + std::to_string(offset + size) +
                                      ") does not fit a block of " + std::to_string(size_) + " tags");
  }
  return TagBlock(first_ + offset, size);
}

std::span<std::byte> Workspace::get(std::size_t bytes, int slot) {
  if (slot < 0 || slot >= slots) {
    throw InvalidArgument("slot", "must be 0.." + std::to_string(slots - 1) + ", got " + std::to_string(slot));
  }
  Block& block = blocks_[static_cast<std::size_t>(slot)];
  if (bytes > block.bytes) {
    block = Block{};  // the old block goes first: never both at once
    block.data = std::make_unique_for_overwrite<std::byte[]>(bytes);
    block.bytes = bytes;
  }
  return {block.data.get(), bytes};
}

void Workspace::release() noexcept {
  for (Block& block : blocks_) block = Block{};
}

Workspace& workspace_of(Comm& comm) { return internal::dispatch_state(comm).workspace; }

void Hints::set_erased(std::type_index type, std::shared_ptr<const void> value) {
  for (auto it = values_.begin(); it != values_.end(); ++it) {
    if (it->first == type) {
      if (value) {
        it->second = std::move(value);
      } else {
        values_.erase(it);
      }
      return;
    }
  }
  if (value) values_.emplace_back(type, std::move(value));
}

std::shared_ptr<const void> Hints::get_erased(std::type_index type) const {
  for (const auto& [t, v] : values_) {
    if (t == type) return v;
  }
  return nullptr;
}

Context::Context(Comm& comm, TagBlock tags, Timeout timeout, Workspace& workspace, const Hints& hints,
                 const Algorithm* algorithm)
    : comm_(&comm),
      tags_(tags),
      deadline_(timeout ? Timeout(comm.runtime().now() + *timeout) : Timeout{}),
      workspace_(&workspace),
      hints_(&hints),
      algorithm_(algorithm) {}

Timeout Context::timeout() const {
  if (!deadline_) return {};
  return std::max(0.0, *deadline_ - comm_->runtime().now());
}

const ArrivalSnapshot* Context::arrival() const { return hints_->get<ArrivalSnapshot>(); }
const ClusterLayout* Context::clusters() const { return hints_->get<ClusterLayout>(); }

namespace {

/// The communicator's layout without a hint, kept on the Comm: RAGGED_LAYOUT (parsed once per
/// setting), else the backend's, else one rank per node.
struct LayoutCache {
  std::string setting;  ///< the RAGGED_LAYOUT it was built from ("" for none)
  std::shared_ptr<const NodeLayout> layout;
};

}  // namespace

std::shared_ptr<const NodeLayout> layout_of(Comm& comm, const Hints& hints) {
  if (auto hint = hints.shared<NodeLayout>()) {
    hint->check(comm.size(), "NodeLayout hint");
    return hint;
  }
  LayoutCache& cache = comm.cached<LayoutCache>();
  const std::string* setting = environment().find("RAGGED_LAYOUT");
  const std::string wanted = setting != nullptr ? *setting : std::string();
  if (cache.layout == nullptr || cache.setting != wanted || cache.layout->size() != comm.size()) {
    if (!wanted.empty()) {
      cache.layout = std::make_shared<const NodeLayout>(NodeLayout::parse(wanted, comm.size()));
    } else if (auto own = comm.layout()) {
      own->check(comm.size(), "Comm::layout()");
      cache.layout = std::move(own);
    } else {
      cache.layout = std::make_shared<const NodeLayout>(NodeLayout::one_per_node(comm.size()));
    }
    cache.setting = wanted;
  }
  return cache.layout;
}

namespace {

/// RAGGED_NETWORK (NetworkModel::parse), parsed once per setting.
struct NetworkSetting {
  std::string text;
  NetworkModel model;
};

const NetworkModel* network_setting() {
  static thread_local NetworkSetting cache;
  const std::string* text = environment().find("RAGGED_NETWORK");
  if (text == nullptr || text->empty()) return nullptr;
  if (cache.text != *text) cache = NetworkSetting{*text, NetworkModel::parse(*text)};
  return &cache.model;
}

}  // namespace

std::shared_ptr<const NetworkModel> network_of(const Comm& comm, const Hints& hints) {
  if (auto hint = hints.shared<NetworkModel>()) return hint;
  std::shared_ptr<const NetworkModel> own = comm.network();
  const NetworkModel* given = network_setting();
  if (given == nullptr) return own;
  // What RAGGED_NETWORK gives replaces the backend's; what it leaves out stays.
  auto with = own ? std::make_shared<NetworkModel>(*own) : std::make_shared<NetworkModel>();
  if (given->intra.known()) with->intra = given->intra;
  if (given->inter.known()) with->inter = given->inter;
  if (given->gap_known) {
    with->gap = given->gap;
    with->gap_known = true;
  }
  if (given->reduce_element > 0) with->reduce_element = given->reduce_element;
  if (given->node_bandwidth > 0) with->node_bandwidth = given->node_bandwidth;
  if (given->exchange_factor < 1) {
    with->exchange_factor = given->exchange_factor;
    with->eager_limit = given->eager_limit;
  }
  return with;
}

std::shared_ptr<const NodeLayout> Context::layout() const { return layout_of(*comm_, *hints_); }

Context Context::sub(int offset, int size) const {
  Context sub = *this;  // the same deadline
  sub.tags_ = tags_.sub(offset, size);
  return sub;
}

Context Context::with_hints(const Hints& hints) const {
  Context other = *this;  // the same deadline and tags
  other.hints_ = &hints;
  return other;
}

}  // namespace ragged
