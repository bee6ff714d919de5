// The part of a binomial broadcast that every variant shares (bcast "binomial" posts its sends
// at once, "binomial_blocking" one after the other).
#pragma once

#include <cstddef>
#include <vector>

#include "plans/binomial_tree.hpp"
#include "ragged/context.hpp"

namespace ragged::internal {

/// Receives `bytes` bytes into `buffer` from this rank's parent in the binomial tree rooted at
/// `root` (the root receives nothing) on `tag`, and returns its children as ranks, the farthest
/// (largest subtree) first: the order in which a broadcast sends.
inline std::vector<int> binomial_bcast_receive(const Context& ctx, void* buffer, std::size_t bytes, int root, int tag) {
  namespace tree = plans::binomial;
  const int procs = ctx.size();
  const int v = tree::relative(ctx.rank(), root, procs);
  if (v != 0) ctx.comm().recv(tree::absolute(tree::parent(v), root, procs), tag, buffer, bytes, ctx.timeout());
  const std::vector<int> children = tree::children(v, procs);
  std::vector<int> out;
  out.reserve(children.size());
  for (auto c = children.rbegin(); c != children.rend(); ++c) out.push_back(tree::absolute(*c, root, procs));
  return out;
}

}  // namespace ragged::internal
