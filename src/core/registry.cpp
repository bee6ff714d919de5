#include "ragged/registry.hpp"

#include <string>

#include "ragged/error.hpp"

namespace ragged {

const char* name_of(Collective collective) {
  switch (collective) {
    case Collective::allgather:
      return "allgather";
    case Collective::allreduce:
      return "allreduce";
    case Collective::bcast:
      return "bcast";
    case Collective::reduce:
      return "reduce";
    case Collective::gather:
      return "gather";
    case Collective::scatter:
      return "scatter";
    case Collective::gatherv:
      return "gatherv";
    case Collective::scatterv:
      return "scatterv";
    case Collective::alltoall:
      return "alltoall";
    case Collective::alltoallv:
      return "alltoallv";
    case Collective::scan:
      return "scan";
    case Collective::exscan:
      return "exscan";
    case Collective::reduce_scatter_block:
      return "reduce_scatter_block";
    case Collective::allgatherv:
      return "allgatherv";
    case Collective::reduce_scatter:
      return "reduce_scatter";
    case Collective::alltoallw:
      return "alltoallw";
  }
  return "unknown";
}

Collective parse_collective(std::string_view name) {
  for (Collective c : all_collectives) {
    if (name == name_of(c)) return c;
  }
  throw InvalidArgument("collective", "unknown collective '" + std::string(name) + "'");
}

Registry& Registry::instance() {
  static Registry* registry = [] {
    auto* r = new Registry();
    register_core_algorithms(*r);
    return r;
  }();
  return *registry;
}

void Registry::add(Algorithm algorithm) {
  for (Algorithm& a : algorithms_) {
    if (a.collective == algorithm.collective && a.name == algorithm.name) {
      a = std::move(algorithm);
      return;
    }
  }
  algorithms_.push_back(std::move(algorithm));
}

bool Registry::contains(Collective collective, std::string_view name) const {
  for (const Algorithm& a : algorithms_) {
    if (a.collective == collective && a.name == name) return true;
  }
  return false;
}

const Algorithm& Registry::find(Collective collective, std::string_view name) const {
  for (const Algorithm& a : algorithms_) {
    if (a.collective == collective && a.name == name) return a;
  }
  std::string known;
  for (const Algorithm& a : algorithms_) {
    if (a.collective != collective) continue;
    known += known.empty() ? "" : ", ";
    known += a.name;
  }
  throw InvalidArgument("algorithm", "no " + std::string(name_of(collective)) + " algorithm named '" +
                                         std::string(name) + "' (known: " + known + ")");
}

std::vector<const Algorithm*> Registry::all() const {
  std::vector<const Algorithm*> out;
  out.reserve(algorithms_.size());
  for (const Algorithm& a : algorithms_) out.push_back(&a);
  return out;
}

AllgatherFn Registry::allgather(std::string_view name) const {
  (void)find(Collective::allgather, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::size_t count, DataType type,
                                 const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::allgather(comm, s, r, count, type, o);
  };
}

AllreduceFn Registry::allreduce(std::string_view name) const {
  (void)find(Collective::allreduce, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::size_t count, DataType type,
                                 const ReduceOp& op, const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::allreduce(comm, s, r, count, type, op, o);
  };
}

BcastFn Registry::bcast(std::string_view name) const {
  (void)find(Collective::bcast, name);
  return [n = std::string(name)](Comm& comm, void* b, std::size_t count, DataType type, int root,
                                 const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::bcast(comm, b, count, type, root, o);
  };
}

ReduceFn Registry::reduce(std::string_view name) const {
  (void)find(Collective::reduce, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::size_t count, DataType type,
                                 const ReduceOp& op, int root, const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::reduce(comm, s, r, count, type, op, root, o);
  };
}

GatherFn Registry::gather(std::string_view name) const {
  (void)find(Collective::gather, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::size_t count, DataType type, int root,
                                 const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::gather(comm, s, r, count, type, root, o);
  };
}

ScatterFn Registry::scatter(std::string_view name) const {
  (void)find(Collective::scatter, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::size_t count, DataType type, int root,
                                 const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::scatter(comm, s, r, count, type, root, o);
  };
}

GathervFn Registry::gatherv(std::string_view name) const {
  (void)find(Collective::gatherv, name);
  return [n = std::string(name)](Comm& comm, const void* s, int sendcount, void* r, std::span<const int> counts,
                                 std::span<const int> displs, DataType type, int root,
                                 const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::gatherv(comm, s, sendcount, r, counts, displs, type, root, o);
  };
}

ScattervFn Registry::scatterv(std::string_view name) const {
  (void)find(Collective::scatterv, name);
  return [n = std::string(name)](Comm& comm, const void* s, std::span<const int> counts, std::span<const int> displs,
                                 void* r, int recvcount, DataType type, int root,
                                 const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::scatterv(comm, s, counts, displs, r, recvcount, type, root, o);
  };
}

AlltoallFn Registry::alltoall(std::string_view name) const {
  (void)find(Collective::alltoall, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::size_t count, DataType type,
                                 const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::alltoall(comm, s, r, count, type, o);
  };
}

AlltoallvFn Registry::alltoallv(std::string_view name) const {
  (void)find(Collective::alltoallv, name);
  return [n = std::string(name)](Comm& comm, const void* s, std::span<const int> sc, std::span<const int> sd, void* r,
                                 std::span<const int> rc, std::span<const int> rd, DataType type,
                                 const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::alltoallv(comm, s, sc, sd, r, rc, rd, type, o);
  };
}

ScanFn Registry::scan(std::string_view name) const {
  (void)find(Collective::scan, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::size_t count, DataType type,
                                 const ReduceOp& op, const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::scan(comm, s, r, count, type, op, o);
  };
}

ScanFn Registry::exscan(std::string_view name) const {
  (void)find(Collective::exscan, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::size_t count, DataType type,
                                 const ReduceOp& op, const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::exscan(comm, s, r, count, type, op, o);
  };
}

ScanFn Registry::reduce_scatter_block(std::string_view name) const {
  (void)find(Collective::reduce_scatter_block, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::size_t count, DataType type,
                                 const ReduceOp& op, const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::reduce_scatter_block(comm, s, r, count, type, op, o);
  };
}

AllgathervFn Registry::allgatherv(std::string_view name) const {
  (void)find(Collective::allgatherv, name);
  return [n = std::string(name)](Comm& comm, const void* s, int sendcount, void* r, std::span<const int> counts,
                                 std::span<const int> displs, DataType type,
                                 const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::allgatherv(comm, s, sendcount, r, counts, displs, type, o);
  };
}

ReduceScatterFn Registry::reduce_scatter(std::string_view name) const {
  (void)find(Collective::reduce_scatter, name);
  return [n = std::string(name)](Comm& comm, const void* s, void* r, std::span<const int> counts, DataType type,
                                 const ReduceOp& op, const CollectiveOptions& options) -> const Algorithm& {
    CollectiveOptions o = options;
    o.algorithm = n;
    return ragged::reduce_scatter(comm, s, r, counts, type, op, o);
  };
}

AlltoallwFn Registry::alltoallw(std::string_view name) const {
  (void)find(Collective::alltoallw, name);
  return
      [n = std::string(name)](Comm& comm, const void* s, std::span<const int> sc, std::span<const int> sd,
                              std::span<const DataType> st, void* r, std::span<const int> rc, std::span<const int> rd,
                              std::span<const DataType> rt, const CollectiveOptions& options) -> const Algorithm& {
        CollectiveOptions o = options;
        o.algorithm = n;
        return ragged::alltoallw(comm, s, sc, sd, st, r, rc, rd, rt, o);
      };
}

std::vector<const Algorithm*> Registry::list(Collective collective, std::string_view backend) const {
  std::vector<const Algorithm*> out;
  for (const Algorithm& a : algorithms_) {
    if (a.collective != collective) continue;
    if (!backend.empty() && !a.restrictions.backend.empty() && a.restrictions.backend != backend) continue;
    out.push_back(&a);
  }
  return out;
}

}  // namespace ragged
