#include "plans/traff_tree.hpp"

#include <algorithm>
#include <cassert>

namespace ragged::plans::traff {

int levels(int procs) {
  assert(procs >= 1);
  int l = 0;
  while ((std::int64_t{1} << l) < procs) ++l;
  return l;
}

Range cube(int rank, int level, int procs) {
  assert(rank >= 0 && rank < procs && level >= 0);
  const std::int64_t size = std::int64_t{1} << level;
  const std::int64_t first = (rank >> level) * size;
  return {static_cast<int>(first), static_cast<int>(std::min<std::int64_t>(first + size, procs) - 1)};
}

Range partner(int rank, int level, int procs) {
  assert(rank >= 0 && rank < procs && level >= 0);
  const std::int64_t size = std::int64_t{1} << level;
  const std::int64_t first = ((rank >> level) ^ 1) * size;
  if (first >= procs) return {};
  return {static_cast<int>(first), static_cast<int>(std::min<std::int64_t>(first + size, procs) - 1)};
}

namespace {

std::int64_t estimate(const CubeInfo& info, Cost cost) {
  return cost == Cost::lemma1 ? info.carried - info.root_block : info.carried;
}

}  // namespace

Outcome decide(const CubeInfo& lower, const Range& lower_cube, const CubeInfo& upper, const Range& upper_cube,
               const Params& params) {
  assert(lower_cube.last + 1 == upper_cube.first);
  Outcome out;
  if (lower_cube.contains(params.root)) {
    out.upper_receives = false;
    return out;
  }
  if (upper_cube.contains(params.root)) {
    out.upper_receives = true;
    return out;
  }
  const std::int64_t lower_estimate = estimate(lower, params.cost);
  const std::int64_t upper_estimate = estimate(upper, params.cost);
  if (lower_estimate != upper_estimate) {
    out.upper_receives = upper_estimate > lower_estimate;
  } else if (lower.carried != upper.carried) {
    out.upper_receives = upper.carried > lower.carried;
  } else {
    out.upper_receives = true;
  }
  const CubeInfo& sender = out.upper_receives ? lower : upper;
  out.direct = params.direct_threshold >= 0 && sender.carried > params.direct_threshold;
  return out;
}

CubeInfo merge(const CubeInfo& lower, const CubeInfo& upper, const Outcome& outcome) {
  const CubeInfo& receiver = outcome.upper_receives ? upper : lower;
  const CubeInfo& sender = outcome.upper_receives ? lower : upper;
  return {receiver.carried + (outcome.direct ? 0 : sender.carried), receiver.root_block, receiver.root};
}

std::vector<Node> oracle(std::span<const std::int64_t> sizes, const Params& params) {
  const int p = params.procs;
  assert(static_cast<int>(sizes.size()) == p && params.root >= 0 && params.root < p);
  std::vector<Node> tree(static_cast<std::size_t>(p));
  // infos[a]: the cube of index a at the current level.
  std::vector<CubeInfo> infos(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) {
    const std::int64_t m = sizes[static_cast<std::size_t>(i)];
    infos[static_cast<std::size_t>(i)] = {m, m, i};
    tree[static_cast<std::size_t>(i)].carried = m;
  }
  const int l = levels(p);
  for (int d = 0; d < l; ++d) {
    const std::size_t cubes = infos.size();
    std::vector<CubeInfo> next((cubes + 1) / 2);
    for (std::size_t b = 0; b < next.size(); ++b) {
      const std::size_t a = 2 * b;
      if (a + 1 >= cubes) {
        next[b] = infos[a];
        continue;
      }
      const int lower_first = static_cast<int>(a << d);
      const Range lower_cube = cube(lower_first, d, p);
      const Range upper_cube = cube(lower_cube.last + 1, d, p);
      const CubeInfo& lower = infos[a];
      const CubeInfo& upper = infos[a + 1];
      const Outcome out = decide(lower, lower_cube, upper, upper_cube, params);
      const CubeInfo& receiver = out.upper_receives ? upper : lower;
      const CubeInfo& sender = out.upper_receives ? lower : upper;
      Node& s = tree[static_cast<std::size_t>(sender.root)];
      s.parent = out.direct ? params.root : static_cast<int>(receiver.root);
      s.level = d;
      s.direct = out.direct;
      s.carried = sender.carried;
      next[b] = merge(lower, upper, out);
      Node& r = tree[static_cast<std::size_t>(receiver.root)];
      if (!out.direct) {
        r.children.push_back({static_cast<int>(sender.root), d, sender.carried, /*below=*/out.upper_receives,
                              out.upper_receives ? lower_cube : upper_cube});
      }
      r.carried = next[b].carried;
    }
    infos = std::move(next);
  }
  return tree;
}

std::vector<int> subtree_ranks(const std::vector<Node>& tree, int rank) {
  std::vector<int> out;
  std::vector<int> stack{rank};
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    out.push_back(v);
    for (const Child& c : tree[static_cast<std::size_t>(v)].children) stack.push_back(c.rank);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Layout layout(const Node& node, std::int64_t own_elements) {
  Layout out;
  out.child.assign(node.children.size(), 0);
  for (const Child& c : node.children) {
    if (c.below) out.own += c.elements;
  }
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    const Child& c = node.children[i];
    std::int64_t offset = c.below ? 0 : out.own + own_elements;
    for (const Child& o : node.children) {
      if (o.below != c.below) continue;
      // Below: higher levels lie farther below. Above: lower levels lie nearer.
      if (c.below ? o.level > c.level : o.level < c.level) offset += o.elements;
    }
    out.child[i] = offset;
  }
  return out;
}

Builder::Builder(int rank, std::int64_t elements, const Params& params)
    : rank_(rank), params_(params), info_{elements, elements, rank} {
  assert(rank >= 0 && rank < params.procs);
  node_.carried = elements;
}

int Builder::exchange_partner(int level) const {
  if (!fixed_) return -1;
  assert(fixed_root(cube(rank_, level, params_.procs), params_.root) == rank_);
  const Range other = partner(rank_, level, params_.procs);
  return other.size() > 0 ? fixed_root(other, params_.root) : -1;
}

int Builder::notice_from(int level) const {
  if (!gather_ || fixed_) return -1;
  if (partner(rank_, level, params_.procs).size() <= 0) return -1;
  return fixed_root(cube(rank_, level, params_.procs), params_.root);
}

int Builder::on_exchange(int level, const CubeInfo& theirs) {
  assert(fixed_);
  const Range mine = cube(rank_, level, params_.procs);
  const Range other = partner(rank_, level, params_.procs);
  const bool upper = mine.first > other.first;
  const CubeInfo before = info_;
  if (gather_) {
    resolve(level, theirs);  // also a gather root: no notice needed
  } else {
    const Outcome out =
        upper ? decide(theirs, other, info_, mine, params_) : decide(info_, mine, theirs, other, params_);
    info_ = upper ? merge(theirs, info_, out) : merge(info_, theirs, out);
  }
  fixed_ = fixed_root(cube(rank_, level + 1, params_.procs), params_.root) == rank_;
  return before.root == rank_ ? -1 : static_cast<int>(before.root);
}

void Builder::on_notice(int level, const CubeInfo& theirs) {
  assert(gather_ && !fixed_);
  resolve(level, theirs);
}

void Builder::resolve(int level, const CubeInfo& theirs) {
  const Range mine = cube(rank_, level, params_.procs);
  const Range other = partner(rank_, level, params_.procs);
  const bool upper = mine.first > other.first;
  const Outcome out = upper ? decide(theirs, other, info_, mine, params_) : decide(info_, mine, theirs, other, params_);
  const CubeInfo merged = upper ? merge(theirs, info_, out) : merge(info_, theirs, out);
  const bool receives = out.upper_receives == upper;
  if (receives) {
    if (!out.direct) node_.children.push_back({static_cast<int>(theirs.root), level, theirs.carried, upper, other});
    node_.carried = merged.carried;
  } else {
    node_.parent = out.direct ? params_.root : static_cast<int>(theirs.root);
    node_.level = level;
    node_.direct = out.direct;
    node_.carried = info_.carried;
    gather_ = false;
  }
  info_ = merged;
}

}  // namespace ragged::plans::traff
