// Point-to-point on the simulator: MPI matching done in plain C++ (World::post),
// bytes copied when a send meets its receive, and the simulated transfer in an
// actor that completes both requests when SimGrid says the bytes arrived.
#include <simgrid/s4u.hpp>
#include <string>
#include <typeinfo>
#include <vector>

#include "backend.hpp"
#include "ragged/error.hpp"

namespace ragged::sim::detail {

namespace {

/// Simulated cost of a test() that finds its request incomplete: lets polling loops advance the clock.
constexpr double unsuccessful_test_cost = 1e-6;

/// Open MPI's MPI_ERR_TRUNCATE, the error a too-long message gives there.
constexpr int err_truncate = 15;

class SimRequest final : public RequestImpl {
 public:
  SimRequest(World& world, MessagePtr message) : world_(world), message_(std::move(message)) {}
  SimRequest(const SimRequest&) = delete;
  SimRequest& operator=(const SimRequest&) = delete;
  // An unmatched request is cancelled. A matched one needs no wait: its bytes were copied when it
  // matched, and the transfer keeps the message alive until it lands.
  ~SimRequest() override { world_.cancel(message_); }

  bool test() override {
    if (!message_->complete && !world_.killing()) {
      world_.throw_if_aborting();
      sg4::this_actor::sleep_for(unsuccessful_test_cost);
    }
    if (!message_->complete) return false;
    check_truncation();
    return true;
  }

  bool wait_for(Timeout timeout) override {
    const Message* m = message_.get();
    if (!world_.wait_until(
            {&message_->waiters}, World::deadline_for(timeout), [m] { return m->complete; },
            WaitInfo{"Request::wait", m})) {
      return false;
    }
    check_truncation();
    return true;
  }

  [[nodiscard]] Status status() const override {
    reported_ = true;
    return message_->status;
  }
  [[nodiscard]] std::string describe() const override {
    const bool receive = message_->kind == Message::Kind::recv;
    const std::string peer = message_->peer == any_source ? "any rank" : "rank " + std::to_string(message_->peer);
    return (receive ? "a receive from " : "a send to ") + peer + ", tag " + std::to_string(message_->tag);
  }

  /// True once Request took the status, i.e. the Request counts as complete.
  [[nodiscard]] bool reported() const { return reported_; }
  [[nodiscard]] Message& message() const { return *message_; }

  void check_truncation() const {
    const Message& m = *message_;
    if (!m.truncated) return;
    throw TransportError(err_truncate, "MPI_ERR_TRUNCATE: message truncated",
                         "receive from rank " + std::to_string(m.status.source) + " with tag " +
                             std::to_string(m.status.tag) + ": a message of " + std::to_string(m.sent_bytes) +
                             " bytes does not fit in " + std::to_string(m.bytes) + " bytes");
  }

 private:
  World& world_;
  MessagePtr message_;
  mutable bool reported_ = false;
};

void check_tag(int tag) {
  if (tag < 0 || tag > max_tag) {
    throw InvalidArgument("tag", "tag " + std::to_string(tag) + " is outside 0.." + std::to_string(max_tag));
  }
}

}  // namespace

Request SimComm::isend(int dest, int tag, const void* data, std::size_t bytes) {
  world_.throw_if_aborting();
  check_rank(*this, dest, "dest");
  check_tag(tag);
  if (bytes != 0 && data == nullptr)
    throw InvalidArgument("data", "null buffer for " + std::to_string(bytes) + " bytes");
  return post_send(dest, tag, data, bytes);
}

Request SimComm::irecv(int source, int tag, void* data, std::size_t capacity) {
  world_.throw_if_aborting();
  if (source != any_source) check_rank(*this, source, "source");
  check_tag(tag);
  if (capacity != 0 && data == nullptr) {
    throw InvalidArgument("data", "null buffer for " + std::to_string(capacity) + " bytes");
  }
  return post_recv(source, tag, data, capacity);
}

Request SimComm::post_send(int dest, int tag, const void* data, std::size_t bytes) {
  auto m = std::make_shared<Message>();
  m->kind = Message::Kind::send;
  m->owner = rank_;
  m->peer = dest;
  m->tag = tag;
  m->send_data = data;
  m->bytes = bytes;
  m->start_at = world_.book_send(rank_);
  world_.post(m);
  return Request(std::make_unique<SimRequest>(world_, std::move(m)));
}

Request SimComm::post_recv(int source, int tag, void* data, std::size_t capacity) {
  auto m = std::make_shared<Message>();
  m->kind = Message::Kind::recv;
  m->owner = rank_;
  m->peer = source;
  m->tag = tag;
  m->recv_data = data;
  m->bytes = capacity;
  world_.post(m);
  return Request(std::make_unique<SimRequest>(world_, std::move(m)));
}

std::size_t SimComm::wait_any(std::span<Request> requests, Timeout timeout) {
  // One pass that returns the first completed request at once, with no allocation: an
  // algorithm that posts hundreds of receives and takes them one by one (push) calls this once
  // per message, and the pass is O(requests) each time. SimRequest is final, so comparing the
  // type is exact and cheaper than a dynamic_cast.
  std::size_t waiting = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    RequestImpl* impl = requests[i].impl();
    if (impl == nullptr) continue;
    if (typeid(*impl) != typeid(SimRequest)) return poll_wait_any(requests, timeout, unsuccessful_test_cost);
    auto* sim = static_cast<SimRequest*>(impl);
    if (sim->reported()) continue;  // completed earlier
    if (sim->message().complete) {
      mark_complete(requests[i]);
      sim->check_truncation();
      return i;
    }
    ++waiting;
  }
  if (waiting == 0) return npos;
  std::vector<std::size_t> pending;
  std::vector<WaitQueue*> queues;
  std::vector<const Message*> messages;
  pending.reserve(waiting);
  queues.reserve(waiting);
  messages.reserve(waiting);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    RequestImpl* impl = requests[i].impl();
    if (impl == nullptr) continue;
    auto* sim = static_cast<SimRequest*>(impl);
    if (sim->reported()) continue;
    pending.push_back(i);
    queues.push_back(&sim->message().waiters);
    messages.push_back(&sim->message());
  }
  std::size_t found = npos;
  const auto ready = [&] {
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if (messages[k]->complete) {
        found = pending[k];
        return true;
      }
    }
    return false;
  };
  if (!world_.wait_until(queues, World::deadline_for(timeout), ready,
                         WaitInfo{"Comm::wait_any", nullptr, pending.size()})) {
    throw TimeoutError("Comm::wait_any: no completion within " + std::to_string(timeout.value_or(0)) + " s");
  }
  auto* sim = static_cast<SimRequest*>(requests[found].impl());
  mark_complete(requests[found]);
  sim->check_truncation();
  return found;
}

void SimComm::internal_barrier() {
  const int p = size();
  for (int dist = 1; dist < p; dist *= 2) {
    Request r = post_recv((rank_ - dist + p) % p, internal_tag, nullptr, 0);
    Request s = post_send((rank_ + dist) % p, internal_tag, nullptr, 0);
    r.wait();
    s.wait();
  }
}

}  // namespace ragged::sim::detail
