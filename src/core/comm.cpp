#include "ragged/comm.hpp"

#include <string>

#include "dispatch/state.hpp"
#include "ragged/error.hpp"

namespace ragged {

std::string describe_pending(std::span<Request> requests) {
  std::string out;
  int shown = 0;
  int more = 0;
  for (Request& r : requests) {
    if (!r.active() || r.done()) continue;
    const std::string what = r.describe();
    if (what.empty()) continue;
    if (shown < 8) {
      out += (shown == 0 ? "" : ", ") + what;
      ++shown;
    } else {
      ++more;
    }
  }
  if (more > 0) out += " and " + std::to_string(more) + " more";
  return out;
}

namespace {
std::string with_pending(std::span<Request> requests) {
  const std::string pending = describe_pending(requests);
  return pending.empty() ? pending : " of " + pending;
}
}  // namespace

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    impl_ = std::move(other.impl_);
    completed_ = other.completed_;
    done_ = other.done_;
    other.done_ = false;
  }
  return *this;
}

Request::~Request() = default;

bool Request::test() {
  if (!impl_) return true;
  if (done_) return true;
  if (impl_->test()) {
    completed_ = impl_->status();
    done_ = true;
  }
  return done_;
}

void Request::wait(Timeout timeout) {
  if (!impl_ || done_) return;
  if (!impl_->wait_for(timeout)) {
    const std::string what = describe();
    throw TimeoutError("Request::wait: no completion within " + std::to_string(timeout.value_or(0)) + " s" +
                       (what.empty() ? "" : " of " + what));
  }
  completed_ = impl_->status();
  done_ = true;
}

Status Request::status() const { return completed_; }

void Comm::mark_complete(Request& request) {
  if (request.impl_ && !request.done_) {
    request.completed_ = request.impl_->status();
    request.done_ = true;
  }
}

std::size_t Comm::poll_wait_any(std::span<Request> requests, Timeout timeout, double poll_interval_s) {
  const double start = runtime().now();
  for (;;) {
    bool any_active = false;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      Request& r = requests[i];
      if (!r.active() || r.done_) continue;
      any_active = true;
      if (r.test()) return i;
    }
    if (!any_active) return npos;
    if (timeout && runtime().now() - start >= *timeout) {
      throw TimeoutError("Comm::wait_any: no completion within " + std::to_string(*timeout) + " s" +
                         with_pending(requests));
    }
    runtime().sleep_for(poll_interval_s);
  }
}

std::size_t Comm::wait_any(std::span<Request> requests, Timeout timeout) {
  return poll_wait_any(requests, timeout, 1e-6);
}

void Comm::wait_all(std::span<Request> requests, Timeout timeout) {
  if (!timeout) {
    for (Request& r : requests) r.wait();
    return;
  }
  const double deadline = runtime().now() + *timeout;
  for (Request& r : requests) {
    const double left = deadline - runtime().now();
    r.wait(left > 0 ? left : 0.0);
  }
}

void Comm::send(int dest, int tag, const void* data, std::size_t bytes, Timeout timeout) {
  Request r = isend(dest, tag, data, bytes);
  r.wait(timeout);
}

Status Comm::recv(int source, int tag, void* data, std::size_t capacity, Timeout timeout) {
  Request r = irecv(source, tag, data, capacity);
  r.wait(timeout);
  return r.status();
}

Status Comm::sendrecv(int dest, int send_tag, const void* send_data, std::size_t send_bytes, int source, int recv_tag,
                      void* recv_data, std::size_t recv_capacity, Timeout timeout) {
  Request reqs[2] = {irecv(source, recv_tag, recv_data, recv_capacity), isend(dest, send_tag, send_data, send_bytes)};
  wait_all(reqs, timeout);
  return reqs[0].status();
}

void check_rank(const Comm& comm, int rank, const char* argument) {
  if (rank < 0 || rank >= comm.size()) {
    throw InvalidArgument(argument,
                          "rank " + std::to_string(rank) + " is outside 0.." + std::to_string(comm.size() - 1));
  }
}

}  // namespace ragged
