// SubComm: a Comm over a subset of a parent's ranks (internal/sub_comm.hpp).
#include "internal/sub_comm.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "ragged/error.hpp"

namespace ragged::internal {

namespace {

/// A parent request whose status names the source by its rank in the SubComm.
class SubRequest final : public RequestImpl {
 public:
  SubRequest(Request inner, const SubComm& comm) : inner_(std::move(inner)), comm_(&comm) {}
  bool test() override { return inner_.test(); }
  bool wait_for(Timeout timeout) override {
    try {
      inner_.wait(timeout);
    } catch (const TimeoutError&) {
      return false;
    }
    return true;
  }
  [[nodiscard]] Status status() const override {
    Status s = inner_.status();
    if (s.source >= 0) s.source = comm_->from_parent(s.source);
    return s;
  }
  /// The parent's ranks: for a SubComm of the program's communicator, the program's.
  [[nodiscard]] std::string describe() const override {
    const std::string what = inner_.describe();
    return what.empty() ? what : what + " (ranks of the parent communicator)";
  }
  Request& inner() { return inner_; }

 private:
  Request inner_;
  const SubComm* comm_;
};

}  // namespace

SubComm::SubComm(Comm& parent, std::vector<int> members, std::shared_ptr<const NodeLayout> layout)
    : parent_(parent), members_(std::move(members)), layout_(std::move(layout)) {
  for (std::size_t i = 0; i < members_.size(); ++i) {
    check_rank(parent_, members_[i], "members");
    if (!index_.emplace(members_[i], static_cast<int>(i)).second) {
      throw InvalidArgument("members", "rank " + std::to_string(members_[i]) + " appears twice");
    }
  }
  rank_ = from_parent(parent_.rank());
  if (rank_ < 0) throw InvalidArgument("members", "must include this rank");
  if (layout_) layout_->check(size(), "layout");
}

int SubComm::from_parent(int r) const {
  const auto it = index_.find(r);
  return it == index_.end() ? -1 : it->second;
}

Request SubComm::isend(int dest, int tag, const void* data, std::size_t bytes) {
  check_rank(*this, dest, "dest");
  return Request(std::make_unique<SubRequest>(parent_.isend(to_parent(dest), tag, data, bytes), *this));
}

Request SubComm::irecv(int source, int tag, void* data, std::size_t capacity) {
  if (source != any_source) check_rank(*this, source, "source");
  // any_source here is any member: a parent-wide any_source would take a non-member's message.
  if (source == any_source && size() != parent_.size()) {
    throw UnsupportedError("SubComm::irecv: any_source on a sub-communicator");
  }
  const int from = source == any_source ? any_source : to_parent(source);
  return Request(std::make_unique<SubRequest>(parent_.irecv(from, tag, data, capacity), *this));
}

std::size_t SubComm::wait_any(std::span<Request> requests, Timeout timeout) {
  // Lend the parent requests to the parent's wait_any and take them back, even on an exception.
  std::vector<Request> inner(requests.size());
  std::vector<SubRequest*> owners(requests.size(), nullptr);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    auto* sub = dynamic_cast<SubRequest*>(requests[i].impl());
    if (sub == nullptr) {
      if (requests[i].active()) return poll_wait_any(requests, timeout, 1e-6);  // not ours
      continue;
    }
    owners[i] = sub;
    inner[i] = std::move(sub->inner());
  }
  struct Restore {
    std::vector<Request>& inner;
    std::vector<SubRequest*>& owners;
    ~Restore() {
      for (std::size_t i = 0; i < owners.size(); ++i) {
        if (owners[i] != nullptr) owners[i]->inner() = std::move(inner[i]);
      }
    }
  };
  std::size_t found = npos;
  {
    Restore restore{inner, owners};
    found = parent_.wait_any(inner, timeout);
  }
  if (found != npos) mark_complete(requests[found]);
  return found;
}

std::unique_ptr<Window> SubComm::create_window(std::size_t /*bytes*/, int /*notifications*/) {
  throw UnsupportedError("SubComm::create_window: windows are collective over the parent communicator");
}

namespace {

/// The SubComms of one parent, by (members, their nodes in the parent's layout), each with the
/// tick of its last use. At most `limit` are kept: arrival-aware parts choose their members by the
/// call's arrivals, so random arrivals would otherwise add one per call. The least recently used
/// goes first; a call holds at most a few, all used during it, so it never loses one it holds.
struct SubComms {
  static constexpr std::size_t limit = 32;
  struct Entry {
    std::unique_ptr<SubComm> comm;
    std::uint64_t used = 0;
  };
  std::map<std::pair<std::vector<int>, std::vector<int>>, Entry> by_members;
  std::uint64_t tick = 0;
};

}  // namespace

SubComm& sub_comm(Comm& parent, const std::vector<int>& members, const NodeLayout& of) {
  std::vector<int> nodes;
  nodes.reserve(members.size());
  for (const int r : members) nodes.push_back(of.node.at(static_cast<std::size_t>(r)));
  SubComms& cache = parent.cached<SubComms>();
  auto key = std::make_pair(members, nodes);
  const auto it = cache.by_members.find(key);
  if (it != cache.by_members.end()) {
    it->second.used = ++cache.tick;
    return *it->second.comm;
  }
  if (cache.by_members.size() >= SubComms::limit) {
    auto oldest = cache.by_members.begin();
    for (auto e = cache.by_members.begin(); e != cache.by_members.end(); ++e) {
      if (e->second.used < oldest->second.used) oldest = e;
    }
    cache.by_members.erase(oldest);
  }
  auto layout = std::make_shared<const NodeLayout>(NodeLayout::from_list(nodes));
  auto comm = std::make_unique<SubComm>(parent, members, std::move(layout));
  SubComm& out = *comm;
  cache.by_members.emplace(std::move(key), SubComms::Entry{std::move(comm), ++cache.tick});
  return out;
}

}  // namespace ragged::internal
