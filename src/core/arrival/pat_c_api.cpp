// The C API of pat.h over one process-global Monitor: its functions by C++ name (ragged::pat), which
// pat_c_symbols.cpp (the static library) and libragged_pmpi.so (src/pmpi/pat.cpp) export as PAT_*.
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "ragged/arrival.hpp"
#include "ragged/error.hpp"
#include "ragged/pat.h"
#include "ragged/registry.hpp"

namespace ragged {

namespace {

struct Global {
  std::mutex mutex;
  Comm* comm = nullptr;
  MonitorOptions options;
  std::unique_ptr<Monitor> monitor;
  std::string last_error;
  std::optional<PlannedCall> planned;  ///< the last PAT_UseAlg's call
  bool phase = false;                  ///< a computation phase began since the last pat_arrival
  /// The collective of `planned` + 1 while the monitor runs, 0 otherwise (pat_plans, lock-free).
  std::atomic<int> plans{0};
};

Global& global() {
  static Global g;
  return g;
}

/// Runs `fn` on the monitor, turning exceptions into error codes.
template <class F>
int with_monitor(F&& fn) {
  Global& g = global();
  Monitor* m = nullptr;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    m = g.monitor.get();
    if (m == nullptr) {
      g.last_error = "PAT_Init() has not been called";
      return PAT_ERR_STATE;
    }
  }
  try {
    fn(*m);
    return PAT_SUCCESS;
  } catch (const InvalidArgument& e) {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.last_error = e.what();
    return PAT_ERR_ARG;
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.last_error = e.what();
    return PAT_ERR_INTERNAL;
  }
}

int use(const char* algorithm, std::size_t count, std::size_t element_size) {
  if (algorithm == nullptr) {
    std::lock_guard<std::mutex> lock(global().mutex);
    global().last_error = "PAT_UseAlg: null algorithm name";
    return PAT_ERR_ARG;
  }
  // "name" names the arrival-aware algorithm of that name in whichever collective has one
  // (allgather bdr, bgd, bslb; gather bsls, sls at root 0; allreduce slt, prr); "collective:name" picks the collective.
  PlannedCall call;
  try {
    const std::string_view text(algorithm);
    const std::size_t colon = text.find(':');
    if (colon != std::string_view::npos) {
      call.collective = parse_collective(text.substr(0, colon));
      call.algorithm = std::string(text.substr(colon + 1));
      (void)Registry::instance().find(call.collective, call.algorithm);
    } else {
      call.algorithm = std::string(text);
      bool found = false;
      for (const Algorithm* a : Registry::instance().all()) {
        if (a->name == text && a->restrictions.needs_arrival) {
          call.collective = a->collective;
          found = true;
          break;
        }
      }
      if (!found && !Registry::instance().contains(Collective::allgather, text)) {
        throw InvalidArgument("algorithm", "no algorithm named '" + call.algorithm + "'");
      }
    }
  } catch (const Error& e) {
    std::lock_guard<std::mutex> lock(global().mutex);
    global().last_error = std::string("PAT_UseAlg: ") + e.what();
    return PAT_ERR_ARG;
  }
  return with_monitor([&](Monitor& m) {
    call.count = count * element_size;
    call.type = DataType::byte;
    m.use(call);
    std::lock_guard<std::mutex> lock(global().mutex);
    global().planned = call;
    global().plans.store(static_cast<int>(call.collective) + 1, std::memory_order_release);
  });
}

}  // namespace

void pat_bind(Comm& comm, MonitorOptions options) {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (g.monitor) throw InvalidArgument("comm", "pat_bind() while the PAT monitor runs (call PAT_Finalize first)");
  g.comm = &comm;
  g.options = std::move(options);
}

void pat_unbind() {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (g.monitor) throw InvalidArgument("comm", "pat_unbind() while the PAT monitor runs (call PAT_Finalize first)");
  g.comm = nullptr;
}

Monitor* pat_monitor() {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mutex);
  return g.monitor.get();
}

bool pat_plans(Collective collective) noexcept {
  return global().plans.load(std::memory_order_acquire) == static_cast<int>(collective) + 1;
}

std::optional<PatArrival> pat_arrival(Collective collective) {
  Global& g = global();
  PatArrival out;
  Monitor* monitor = nullptr;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    if (!g.monitor || !g.planned || g.planned->collective != collective) return std::nullopt;
    out.call = *g.planned;
    if (!g.phase) return out;  // no phase since the last call: no snapshot
    g.phase = false;
    out.comm = g.comm;
    monitor = g.monitor.get();
  }
  out.snapshot = monitor->arrive();
  return out;
}

namespace pat {

int init() {
  Global& g = global();
  Comm* comm = nullptr;
  MonitorOptions options;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    if (g.monitor) {
      g.last_error = "PAT_Init() called twice";
      return PAT_ERR_STATE;
    }
    if (g.comm == nullptr) {
      g.last_error = "no communicator: call ragged::pat_bind() before PAT_Init()";
      return PAT_ERR_STATE;
    }
    comm = g.comm;
    options = g.options;
  }
  try {
    auto monitor = std::make_unique<Monitor>(*comm, options);
    std::lock_guard<std::mutex> lock(g.mutex);
    g.monitor = std::move(monitor);
    g.last_error.clear();
    return PAT_SUCCESS;
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.last_error = e.what();
    return PAT_ERR_INTERNAL;
  }
}

int processing_start() {
  return with_monitor([](Monitor& m) {
    m.processing_start();
    std::lock_guard<std::mutex> lock(global().mutex);
    global().phase = true;
  });
}

int edge(double fraction) {
  return with_monitor([fraction](Monitor& m) { m.edge(fraction); });
}

int processing_end() {
  return with_monitor([](Monitor& m) {
    m.processing_end();
    std::lock_guard<std::mutex> lock(global().mutex);
    global().phase = true;
  });
}

int use_alg(const char* algorithm, std::size_t count, std::size_t element_size) {
  return use(algorithm, count, element_size);
}

int finalize() {
  Global& g = global();
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    if (!g.monitor) {
      g.last_error = "PAT_Finalize() without PAT_Init()";
      return PAT_ERR_STATE;
    }
  }
  const auto stopped = [&g] {
    g.monitor.reset();
    g.planned.reset();
    g.phase = false;
    g.plans.store(0, std::memory_order_release);
  };
  try {
    Monitor* m = pat_monitor();
    m->finalize();
    std::lock_guard<std::mutex> lock(g.mutex);
    stopped();
    return PAT_SUCCESS;
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(g.mutex);
    stopped();
    g.last_error = e.what();
    return PAT_ERR_INTERNAL;
  }
}

const char* last_error() {
  // The string stays valid until the next PAT_ call of this process.
  return global().last_error.c_str();
}

int fail(int code, const std::string& text) {
  std::lock_guard<std::mutex> lock(global().mutex);
  global().last_error = text;
  return code;
}

}  // namespace pat

}  // namespace ragged
