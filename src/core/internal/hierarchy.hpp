// What the hierarchical (node-aware) algorithms share (docs/algorithms/hierarchical.md): the call's
// nodes (Context::layout() grouped by plans::hierarchy), the communicator of this rank's node and
// of the one representative per node, each a SubComm cached on the caller's Comm, and the buffers a
// hierarchical algorithm keeps across its parts (the parts share the context's workspace).
#pragma once

#include <memory>
#include <vector>

#include "internal/sub_comm.hpp"
#include "plans/hierarchy_plan.hpp"
#include "ragged/context.hpp"
#include "ragged/layout.hpp"

namespace ragged::internal {

struct Hierarchy {
  std::shared_ptr<const NodeLayout> layout;
  plans::hierarchy::Split split;
  int node = 0;   ///< this rank's node
  int local = 0;  ///< this rank's index in its node
};

/// The nodes of the call (the same on every rank).
inline Hierarchy hierarchy_of(const Context& ctx) {
  Hierarchy h;
  h.layout = ctx.layout();
  h.split = plans::hierarchy::split(h.layout->node);
  h.node = h.split.node_of[static_cast<std::size_t>(ctx.rank())];
  h.local = h.split.local_of[static_cast<std::size_t>(ctx.rank())];
  return h;
}

/// The ranks of this rank's node, in rank order.
inline SubComm& node_comm(const Context& ctx, const Hierarchy& h) {
  return sub_comm(ctx.comm(), h.split.members[static_cast<std::size_t>(h.node)], *h.layout);
}

/// One rank per node in node order (plans::hierarchy::representatives(root)), or null on the
/// ranks that are not among them. Node n is rank n there.
inline SubComm* representatives_comm(const Context& ctx, const Hierarchy& h, int root = -1) {
  const std::vector<int> reps = plans::hierarchy::representatives(h.split, root);
  if (reps[static_cast<std::size_t>(h.node)] != ctx.rank()) return nullptr;
  return &sub_comm(ctx.comm(), reps, *h.layout);
}

/// Buffers a hierarchical algorithm keeps across its parts, per communicator, from call to call.
struct HierarchyBuffers {
  Workspace workspace;
};

[[nodiscard]] inline Workspace& hierarchy_workspace(Comm& comm) { return comm.cached<HierarchyBuffers>().workspace; }

}  // namespace ragged::internal
