// ragged: one-sided communication with notifications (GASPI's write_notify,
// notify_waitsome and notify_reset, Iakymchuk et al. 2021, §II).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ragged/runtime.hpp"

namespace ragged {

/// A window of memory exposed by every rank of a Comm, with `notifications()`
/// notification slots per rank. Created and destroyed collectively.
class Window {
 public:
  virtual ~Window() = default;
  /// This rank's exposed memory.
  [[nodiscard]] virtual std::span<std::byte> local() = 0;
  [[nodiscard]] virtual std::size_t bytes() const = 0;
  [[nodiscard]] virtual int notifications() const = 0;
  /// Writes `size` bytes at `offset` of `target`'s window, then sets the target's
  /// notification `id` to `value` (non-zero). The notification becomes visible only
  /// after the data. `data` may be reused as soon as the call returns.
  virtual void put_notify(int target, std::size_t offset, const void* data, std::size_t size, int id,
                          std::uint64_t value) = 0;
  /// Blocks until one of this rank's notifications first..first+count-1 is non-zero and
  /// returns its id (the lowest such). Throws TimeoutError when the timeout runs out.
  virtual int notify_wait_some(int first, int count, Timeout timeout = {}) = 0;
  /// Atomically reads and zeroes this rank's notification `id`; returns the old value.
  virtual std::uint64_t notify_reset(int id) = 0;
  /// Blocks until every put_notify this rank issued has completed at its target.
  virtual void flush() = 0;
};

}  // namespace ragged
