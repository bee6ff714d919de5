// One-sided communication with notifications on the simulator. Every rank's
// window memory lives in a WindowGroup shared by the ranks' handles and the
// puts in flight; a put copies its source at call time, travels as a simulated
// transfer, and lands (data, then notification) when SimGrid says it arrived.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backend.hpp"
#include "ragged/error.hpp"

namespace ragged::sim::detail {

namespace {

class SimWindow final : public Window {
 public:
  SimWindow(World& world, int rank, std::shared_ptr<WindowGroup> group)
      : world_(world), rank_(rank), group_(std::move(group)) {}

  std::span<std::byte> local() override { return {part(rank_).memory.data(), part(rank_).memory.size()}; }
  [[nodiscard]] std::size_t bytes() const override { return part(rank_).memory.size(); }
  [[nodiscard]] int notifications() const override { return static_cast<int>(part(rank_).notifications.size()); }

  void put_notify(int target, std::size_t offset, const void* data, std::size_t size, int id,
                  std::uint64_t value) override {
    world_.throw_if_aborting();
    check_rank(world_.comm(rank_), target, "target");
    WindowPart& dst = part(target);
    if (offset > dst.memory.size()) {
      throw InvalidArgument("offset", "offset " + std::to_string(offset) + " is past the end of rank " +
                                          std::to_string(target) + "'s window of " + std::to_string(dst.memory.size()) +
                                          " bytes");
    }
    if (size > dst.memory.size() - offset) {
      throw InvalidArgument("size", std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                                        " do not fit in rank " + std::to_string(target) + "'s window of " +
                                        std::to_string(dst.memory.size()) + " bytes");
    }
    if (size != 0 && data == nullptr)
      throw InvalidArgument("data", "null buffer for " + std::to_string(size) + " bytes");
    if (id < 0 || static_cast<std::size_t>(id) >= dst.notifications.size()) {
      throw InvalidArgument("id", "notification " + std::to_string(id) + " is outside 0.." +
                                      std::to_string(static_cast<long>(dst.notifications.size()) - 1) + " of rank " +
                                      std::to_string(target));
    }
    if (value == 0) throw InvalidArgument("value", "a notification value must be non-zero");

    auto payload = std::make_shared<std::vector<std::byte>>(size);
    if (size != 0) std::memcpy(payload->data(), data, size);
    ++part(rank_).outstanding_puts;
    World* world = &world_;
    std::shared_ptr<WindowGroup> group = group_;
    const int origin = rank_;
    world_.transfer(rank_, target, size, world_.book_send(rank_),
                    [world, group, origin, target, offset, payload, id, value] {
                      WindowPart& to = group->parts[static_cast<std::size_t>(target)];
                      if (!payload->empty()) std::memcpy(to.memory.data() + offset, payload->data(), payload->size());
                      to.notifications[static_cast<std::size_t>(id)] = value;
                      WindowPart& from = group->parts[static_cast<std::size_t>(origin)];
                      --from.outstanding_puts;
                      world->wake_all(to.notification_waiters);
                      if (from.outstanding_puts == 0) world->wake_all(from.flush_waiters);
                    });
  }

  int notify_wait_some(int first, int count, Timeout timeout) override {
    WindowPart& me = part(rank_);
    const auto n = static_cast<int>(me.notifications.size());
    if (first < 0 || first >= n) {
      throw InvalidArgument("first",
                            "notification " + std::to_string(first) + " is outside 0.." + std::to_string(n - 1));
    }
    if (count < 1 || count > n - first) {
      throw InvalidArgument("count", std::to_string(count) + " notifications from " + std::to_string(first) +
                                         " exceed the window's " + std::to_string(n));
    }
    int found = -1;
    const auto ready = [&me, &found, first, count] {
      for (int id = first; id < first + count; ++id) {
        if (me.notifications[static_cast<std::size_t>(id)] != 0) {
          found = id;
          return true;
        }
      }
      return false;
    };
    if (!world_.wait_until({&me.notification_waiters}, World::deadline_for(timeout), ready,
                           WaitInfo{"Window::notify_wait_some", nullptr, static_cast<std::size_t>(count), first})) {
      throw TimeoutError("Window::notify_wait_some: no notification in " + std::to_string(first) + ".." +
                         std::to_string(first + count - 1) + " within " + std::to_string(timeout.value_or(0)) + " s");
    }
    return found;
  }

  std::uint64_t notify_reset(int id) override {
    WindowPart& me = part(rank_);
    if (id < 0 || static_cast<std::size_t>(id) >= me.notifications.size()) {
      throw InvalidArgument("id", "notification " + std::to_string(id) + " is outside 0.." +
                                      std::to_string(static_cast<long>(me.notifications.size()) - 1));
    }
    return std::exchange(me.notifications[static_cast<std::size_t>(id)], 0);
  }

  void flush() override {
    WindowPart& me = part(rank_);
    world_.wait_until(
        {&me.flush_waiters}, -1, [&me] { return me.outstanding_puts == 0; }, WaitInfo{"Window::flush"});
  }

 private:
  [[nodiscard]] WindowPart& part(int rank) const { return group_->parts[static_cast<std::size_t>(rank)]; }

  World& world_;
  int rank_;
  std::shared_ptr<WindowGroup> group_;
};

}  // namespace

std::unique_ptr<Window> SimComm::create_window(std::size_t bytes, int notifications) {
  world_.throw_if_aborting();
  if (notifications < 0) {
    throw InvalidArgument("notifications", "must be >= 0, got " + std::to_string(notifications));
  }
  std::shared_ptr<WindowGroup> group = world_.join_window_group(rank_);
  WindowPart& mine = group->parts[static_cast<std::size_t>(rank_)];
  mine.memory.assign(bytes, std::byte{0});
  mine.notifications.assign(static_cast<std::size_t>(notifications), 0);
  mine.created = true;
  // Like MPI_Win_allocate, creation synchronizes: no rank may put into a window that does not exist yet.
  internal_barrier();
  return std::make_unique<SimWindow>(world_, rank_, std::move(group));
}

}  // namespace ragged::sim::detail
