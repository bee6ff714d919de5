// The C API of pat.h over one process-global Monitor.
#include <exception>
#include <memory>
#include <mutex>
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

Monitor* pat_monitor() {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mutex);
  return g.monitor.get();
}

}  // namespace ragged

extern "C" {

int PAT_Init(void) {
  using namespace ragged;
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

int PAT_ProcessingStart(void) {
  return ragged::with_monitor([](ragged::Monitor& m) { m.processing_start(); });
}

int PAT_Edge(double fraction) {
  return ragged::with_monitor([fraction](ragged::Monitor& m) { m.edge(fraction); });
}

int PAT_ProcessingEnd(void) {
  return ragged::with_monitor([](ragged::Monitor& m) { m.processing_end(); });
}

int PAT_UseAlg(const char* algorithm) { return ragged::use(algorithm, 0, 0); }

int PAT_UseAlgFor(const char* algorithm, size_t count, size_t element_size) {
  return ragged::use(algorithm, count, element_size);
}

int PAT_Finalize(void) {
  using namespace ragged;
  Global& g = global();
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    if (!g.monitor) {
      g.last_error = "PAT_Finalize() without PAT_Init()";
      return PAT_ERR_STATE;
    }
  }
  try {
    Monitor* m = pat_monitor();
    m->finalize();
    std::lock_guard<std::mutex> lock(g.mutex);
    g.monitor.reset();
    return PAT_SUCCESS;
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.monitor.reset();
    g.last_error = e.what();
    return PAT_ERR_INTERNAL;
  }
}

const char* PAT_LastError(void) {
  // The string stays valid until the next PAT_ call of this process.
  return ragged::global().last_error.c_str();
}

}  // extern "C"
