#include "ragged/counting_comm.hpp"

#include "ragged/error.hpp"

namespace ragged {

CountingComm::CountingComm(Comm& inner, std::shared_ptr<const ClusterLayout> layout)
    : inner_(inner), layout_(std::move(layout)) {
  if (!layout_) throw InvalidArgument("layout", "CountingComm needs a cluster layout");
  layout_->check(inner_.size(), "layout");
}

Request CountingComm::isend(int dest, int tag, const void* data, std::size_t bytes) {
  Request r = inner_.isend(dest, tag, data, bytes);  // validates dest first
  const auto& c = layout_->cluster;
  Counts& counts = c[static_cast<std::size_t>(rank())] == c[static_cast<std::size_t>(dest)] ? local_ : backbone_;
  ++counts.messages;
  counts.bytes += bytes;
  return r;
}

Request CountingComm::irecv(int source, int tag, void* data, std::size_t capacity) {
  return inner_.irecv(source, tag, data, capacity);
}

std::size_t CountingComm::wait_any(std::span<Request> requests, Timeout timeout) {
  return inner_.wait_any(requests, timeout);
}

std::unique_ptr<Window> CountingComm::create_window(std::size_t bytes, int notifications) {
  return inner_.create_window(bytes, notifications);
}

}  // namespace ragged
