// ArrivalSnapshot, the estimators, and the background slot's handshake.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "arrival/background.hpp"
#include "internal/names.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"

namespace ragged {

const char* name_of(ArrivalSource source) {
  static constexpr auto names = std::to_array<internal::Named<ArrivalSource>>(
      {{ArrivalSource::none, "none"}, {ArrivalSource::estimated, "estimated"}, {ArrivalSource::measured, "measured"}});
  return internal::name_in(names, source, "unknown");
}

// ------------------------------------------------------------------ snapshot

ArrivalSnapshot::ArrivalSnapshot(std::vector<double> arrivals, LinkModel link, std::uint64_t epoch,
                                 std::vector<ArrivalSource> sources)
    : ArrivalSnapshot(std::move(arrivals), link, epoch, std::move(sources), std::numeric_limits<double>::lowest(),
                      nullptr) {}

ArrivalSnapshot::ArrivalSnapshot(std::vector<double> arrivals, LinkModel link, std::uint64_t epoch,
                                 std::vector<ArrivalSource> sources, double known_at,
                                 std::shared_ptr<internal::BackgroundSlot> background, bool regular_fallback)
    : arrivals_(std::move(arrivals)),
      sources_(std::move(sources)),
      link_(link),
      epoch_(epoch),
      known_at_(known_at),
      background_(std::move(background)),
      regular_fallback_(regular_fallback) {
  if (arrivals_.empty()) throw InvalidArgument("arrivals", "a snapshot needs at least one rank");
  for (std::size_t i = 0; i < arrivals_.size(); ++i) {
    if (!std::isfinite(arrivals_[i])) {
      throw InvalidArgument("arrivals", "arrival time of rank " + std::to_string(i) + " is not finite");
    }
  }
  if (sources_.empty()) sources_.assign(arrivals_.size(), ArrivalSource::estimated);
  if (sources_.size() != arrivals_.size()) {
    throw InvalidArgument("sources", "has " + std::to_string(sources_.size()) + " entries for " +
                                         std::to_string(arrivals_.size()) + " ranks");
  }
  if (!std::isfinite(link_.alpha) || !std::isfinite(link_.beta) || link_.alpha < 0 || link_.beta < 0) {
    throw InvalidArgument("link", "alpha and beta must be finite and non-negative");
  }
}

bool ArrivalSnapshot::balanced(std::size_t block_bytes) const {
  return regular_fallback_ && internal::balanced_pattern(arrivals_, known_at_, link_, block_bytes);
}

std::shared_ptr<const ArrivalSnapshot> ArrivalSnapshot::flat(int procs, LinkModel link) {
  if (procs <= 0) throw InvalidArgument("procs", "must be positive");
  return std::make_shared<const ArrivalSnapshot>(std::vector<double>(static_cast<std::size_t>(procs), 0.0), link);
}

double ArrivalSnapshot::arrival(int rank) const {
  if (rank < 0 || rank >= size()) throw InvalidArgument("rank", "outside the snapshot");
  return arrivals_[static_cast<std::size_t>(rank)];
}

ArrivalSource ArrivalSnapshot::source(int rank) const {
  if (rank < 0 || rank >= size()) throw InvalidArgument("rank", "outside the snapshot");
  return sources_[static_cast<std::size_t>(rank)];
}

double ArrivalSnapshot::earliest() const { return *std::min_element(arrivals_.begin(), arrivals_.end()); }
double ArrivalSnapshot::latest() const { return *std::max_element(arrivals_.begin(), arrivals_.end()); }

// ------------------------------------------------------------------ estimators

double extrapolate_arrival(double start, double now, double fraction) {
  if (!(fraction > 0) || fraction > 1) throw InvalidArgument("fraction", "must be in (0, 1]");
  return start + (now - start) / fraction;
}

double clamp_estimate(double estimate, double now, double horizon_s) {
  if (!std::isfinite(estimate)) return now;
  return std::clamp(estimate, now, now + (horizon_s > 0 ? horizon_s : 0.0));
}

MovingAverage::MovingAverage(double weight) : weight_(weight) {
  if (!(weight > 0) || weight > 1) throw InvalidArgument("weight", "must be in (0, 1]");
}

void MovingAverage::add(double duration) {
  // A clock that jumped (or a caller's nonsense) gives no sample: the average stays finite.
  if (!std::isfinite(duration) || duration < 0) return;
  value_ = samples_ == 0 ? duration : weight_ * duration + (1 - weight_) * value_;
  ++samples_;
}

std::optional<double> MovingAverage::predict() const {
  if (samples_ == 0) return std::nullopt;
  return value_;
}

namespace internal {

// ------------------------------------------------------------------ plans

StepPlanInput step_plan_input(const ArrivalSnapshot* snapshot, int procs, std::size_t block_bytes) {
  StepPlanInput in;
  if (snapshot == nullptr) {
    in.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
    return in;
  }
  if (snapshot->size() != procs) {
    throw InvalidArgument("options.arrival", "snapshot of " + std::to_string(snapshot->size()) +
                                                 " ranks for a communicator of " + std::to_string(procs));
  }
  in.tau = snapshot->link().known() ? snapshot->link().tau(block_bytes) : 0.0;
  in.arrivals.assign(snapshot->arrivals().begin(), snapshot->arrivals().end());
  for (double& a : in.arrivals) a = std::max(a, snapshot->known_at());
  return in;
}

bool balanced_pattern(std::span<const double> arrivals, double known_at, const LinkModel& link,
                      std::size_t block_bytes) {
  if (!link.known() || arrivals.empty()) return false;
  double first = std::numeric_limits<double>::infinity();
  double last = -std::numeric_limits<double>::infinity();
  for (double a : arrivals) {
    const double effective = std::max(a, known_at);
    first = std::min(first, effective);
    last = std::max(last, effective);
  }
  return last - first < link.tau(block_bytes);
}

PlanKey plan_key(Collective collective, std::string_view algorithm, std::size_t block_bytes, int root) {
  PlanKey key;
  const Registry& registry = Registry::instance();
  const Background* part =
      registry.contains(collective, algorithm) ? registry.find(collective, algorithm).background : nullptr;
  if (part == nullptr) return key;
  key.kind = part->kind;
  key.block_bytes = block_bytes;
  if (part->root_only || part->keyed_by_root) key.root = part->fixed_root >= 0 ? part->fixed_root : root;
  return key;
}

const Background* background_of(BackgroundKind kind) {
  if (kind == BackgroundKind::none) return nullptr;
  for (const Algorithm* a : Registry::instance().all()) {
    if (a->background != nullptr && a->background->kind == kind) return a->background;
  }
  return nullptr;
}

// ------------------------------------------------------------------ slot

BackgroundSlot::BackgroundSlot(Runtime& runtime, PlanKey agreed)
    : runtime_(runtime), agreed_(agreed), mutex_(runtime.make_mutex()), changed_(runtime.make_condition_variable()) {}

bool BackgroundSlot::begin() {
  std::lock_guard<Mutex> lock(*mutex_);
  if (state_ != State::idle) return false;
  state_ = State::running;
  return true;
}

void BackgroundSlot::finish(bool cancelled, std::exception_ptr error) {
  std::lock_guard<Mutex> lock(*mutex_);
  state_ = cancelled ? State::cancelled : State::done;
  error_ = std::move(error);
  changed_->notify_all();
}

bool BackgroundSlot::cancel_requested() {
  std::lock_guard<Mutex> lock(*mutex_);
  return cancel_;
}

void BackgroundSlot::cancel_running(std::unique_lock<Mutex>& lock) {
  if (state_ != State::running) return;
  cancel_ = true;
  if (doorbell) {
    lock.unlock();
    doorbell();
    lock.lock();
  }
  while (state_ == State::running) changed_->wait(lock);
}

BackgroundSlot* BackgroundSlot::claim(const PlanKey& call) {
  if (on_use) on_use(call);
  std::unique_lock<Mutex> lock(*mutex_);
  if (!planned(call)) {
    cancel_running(lock);
    if (state_ == State::idle) state_ = State::skipped;
    return nullptr;
  }
  if (state_ == State::idle) {
    state_ = State::skipped;
    return nullptr;
  }
  while (state_ == State::running) changed_->wait(lock);
  if (error_) std::rethrow_exception(error_);
  if (state_ != State::done) return nullptr;
  return this;
}

void BackgroundSlot::abandon() {
  std::unique_lock<Mutex> lock(*mutex_);
  cancel_running(lock);
  if (state_ == State::idle) state_ = State::skipped;
}

BackgroundSlot* slot_of(const Context& ctx) {
  const ArrivalSnapshot* snapshot = ctx.arrival();
  return snapshot != nullptr ? snapshot->background().get() : nullptr;
}

int arrival_tag(const Context& ctx, const PlanKey& call, int planned_tag, int unplanned_tag) {
  const BackgroundSlot* slot = slot_of(ctx);
  if (slot == nullptr || slot->agreed().kind == BackgroundKind::none) return planned_tag;
  return slot->planned(call) ? planned_tag : unplanned_tag;
}

}  // namespace internal
}  // namespace ragged
