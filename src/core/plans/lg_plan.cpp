#include "plans/lg_plan.hpp"

#include <algorithm>
#include <cassert>

namespace ragged::plans::lg {

namespace {

// The normalized view: the smaller cluster (C1 when n1 <= n2, otherwise C2) gets
// ids 0..a-1 and the larger ids a..a+b-1, with a <= b. When n1 > n2 this is the
// rotation id -> (id + n2) mod N, which keeps each cluster's internal order.
struct View {
  int n1 = 0;
  int n2 = 0;
  int a = 0;  // size of the smaller cluster
  int b = 0;  // size of the larger cluster
  bool swapped = false;

  View(int cluster1, int cluster2)
      : n1(cluster1), n2(cluster2), a(std::min(cluster1, cluster2)), b(std::max(cluster1, cluster2)) {
    assert(n1 >= 1 && n2 >= 1);
    swapped = n1 > n2;
  }
  [[nodiscard]] int total() const { return a + b; }
  [[nodiscard]] int to_view(int id) const { return swapped ? (id + n2) % total() : id; }
  [[nodiscard]] int from_view(int v) const { return swapped ? (v + n1) % total() : v; }
  [[nodiscard]] bool small(int v) const { return v < a; }
  // Index of the last group (groups 1..last of the larger cluster) and its size.
  [[nodiscard]] int last_group() const { return (total() - 1) / a; }
  [[nodiscard]] int last_group_size() const { return total() - last_group() * a; }

  // holder in view ids.
  [[nodiscard]] int holder_v(int src, int dst) const {
    if (small(src) == small(dst)) return dst;
    if (small(src)) return dst % a;  // dst's partner in the smaller cluster
    const int g = src / a;
    const int direct = g * a + dst;  // dst's partner in src's group
    if (direct < total()) return direct;
    // src is in the incomplete last group, which has no position dst: a full
    // group's position-dst process holds it (there is one: b >= a, so group 1 is full).
    const int full_groups = last_group() - 1;
    assert(full_groups >= 1);
    const int offset = src - last_group() * a;
    return (1 + (offset + dst) % full_groups) * a + dst;
  }

  // backbone partners in view ids, in step order.
  [[nodiscard]] std::vector<int> partners_v(int v) const {
    std::vector<int> out;
    if (small(v)) {
      for (int j = v + a; j < total(); j += a) out.push_back(j);
    } else {
      out.push_back(v % a);
    }
    return out;
  }
};

void sort_blocks(std::vector<Block>& blocks) {
  std::sort(blocks.begin(), blocks.end(),
            [](const Block& x, const Block& y) { return x.src != y.src ? x.src < y.src : x.dst < y.dst; });
}

/// The local phase of the process with id `me` in the cluster of ids [first, first + size):
/// the blocks it keeps, and in round k = 1..size-1 its send to the id k after it and its receive
/// from the id k before it (cyclically), each carrying held_from(source, holder). Ids become
/// ranks through rank_of.
template <class HeldFrom, class RankOf>
void local_phase(ProcessPlan& out, int me, int first, int size, HeldFrom held_from, RankOf rank_of) {
  const int offset = me - first;
  out.keep = held_from(me, me);
  for (int k = 1; k < size; ++k) {
    const int to = first + (offset + k) % size;
    const int from = first + (offset - k + size) % size;
    out.local_sends.push_back({rank_of(to), held_from(me, to)});
    out.local_recvs.push_back({rank_of(from), held_from(from, me)});
  }
}

}  // namespace

int holder(int n1, int n2, int src, int dst) {
  const View view(n1, n2);
  assert(src >= 0 && src < view.total() && dst >= 0 && dst < view.total());
  return view.from_view(view.holder_v(view.to_view(src), view.to_view(dst)));
}

std::vector<int> partners(int n1, int n2, int me) {
  const View view(n1, n2);
  std::vector<int> out = view.partners_v(view.to_view(me));
  for (int& p : out) p = view.from_view(p);
  return out;
}

int steps(int n1, int n2) {
  const int a = std::min(n1, n2);
  const int b = std::max(n1, n2);
  return (b + a - 1) / a;
}

ProcessPlan plan(int n1, int n2, int me) {
  const View view(n1, n2);
  const int v = view.to_view(me);
  const bool in_small = view.small(v);
  const int first = in_small ? 0 : view.a;        // first view id of me's cluster
  const int size = in_small ? view.a : view.b;    // size of me's cluster
  const int other_first = in_small ? view.a : 0;  // first view id of the other cluster
  const int other_size = in_small ? view.b : view.a;

  // The blocks (src, d) that `h` holds after the local phase can only have
  // d == h or d one of h's partners: those are the candidates to test.
  auto held_from = [&](int src, int h) {
    std::vector<Block> out;
    if (view.holder_v(src, h) == h) out.push_back({view.from_view(src), view.from_view(h)});
    for (int d : view.partners_v(h)) {
      if (view.holder_v(src, d) == h) out.push_back({view.from_view(src), view.from_view(d)});
    }
    sort_blocks(out);
    return out;
  };

  ProcessPlan out;
  local_phase(out, v, first, size, held_from, [&](int id) { return view.from_view(id); });
  for (int t : view.partners_v(v)) {
    Exchange e;
    e.peer = view.from_view(t);
    for (int k = first; k < first + size; ++k) {
      if (view.holder_v(k, t) == v) e.send.push_back({view.from_view(k), e.peer});
    }
    for (int k = other_first; k < other_first + other_size; ++k) {
      if (view.holder_v(k, v) == t) e.recv.push_back({view.from_view(k), me});
    }
    sort_blocks(e.send);
    sort_blocks(e.recv);
    out.backbone.push_back(std::move(e));
  }
  return out;
}

// ---------------------------------------------------------------- k clusters

namespace {

// The k-cluster numbering and its two-cluster views: the pair of clusters (lo, hi),
// lo < hi, numbers lo's processes 0..n_lo-1 and hi's n_lo..n_lo+n_hi-1.
struct Clusters {
  std::vector<int> sizes;
  std::vector<int> first;       // first id of each cluster
  std::vector<int> cluster_of;  // id -> cluster

  explicit Clusters(const std::vector<int>& cluster_sizes) : sizes(cluster_sizes) {
    assert(sizes.size() >= 2);
    int at = 0;
    for (std::size_t c = 0; c < sizes.size(); ++c) {
      assert(sizes[c] >= 1);
      first.push_back(at);
      cluster_of.insert(cluster_of.end(), static_cast<std::size_t>(sizes[c]), static_cast<int>(c));
      at += sizes[c];
    }
  }
  [[nodiscard]] int k() const { return static_cast<int>(sizes.size()); }
  [[nodiscard]] int total() const { return static_cast<int>(cluster_of.size()); }
  [[nodiscard]] int cluster(int id) const { return cluster_of[static_cast<std::size_t>(id)]; }
  [[nodiscard]] int size(int c) const { return sizes[static_cast<std::size_t>(c)]; }
  [[nodiscard]] int start(int c) const { return first[static_cast<std::size_t>(c)]; }
  // id in the two-cluster numbering of the pair (lo, hi), and back.
  [[nodiscard]] int to_pair(int lo, int id) const {
    return cluster(id) == lo ? id - start(lo) : size(lo) + id - start(cluster(id));
  }
  [[nodiscard]] int from_pair(int lo, int hi, int v) const {
    return v < size(lo) ? start(lo) + v : start(hi) + v - size(lo);
  }

  [[nodiscard]] int holder_k(int src, int dst) const {
    const int a = cluster(src);
    const int b = cluster(dst);
    if (a == b) return dst;
    const int lo = std::min(a, b);
    const int hi = std::max(a, b);
    return from_pair(lo, hi, holder(size(lo), size(hi), to_pair(lo, src), to_pair(lo, dst)));
  }

  // Partners of `me`, round by round: its r-th partner in every other cluster (ascending
  // cluster) before any (r+1)-th.
  [[nodiscard]] std::vector<int> partners_k(int me) const {
    const int mine = cluster(me);
    std::vector<std::vector<int>> per_cluster;
    std::size_t rounds = 0;
    for (int c = 0; c < k(); ++c) {
      if (c == mine) continue;
      const int lo = std::min(mine, c);
      const int hi = std::max(mine, c);
      std::vector<int> ps = partners(size(lo), size(hi), to_pair(lo, me));
      for (int& p : ps) p = from_pair(lo, hi, p);
      rounds = std::max(rounds, ps.size());
      per_cluster.push_back(std::move(ps));
    }
    std::vector<int> out;
    for (std::size_t r = 0; r < rounds; ++r) {
      for (const std::vector<int>& ps : per_cluster) {
        if (r < ps.size()) out.push_back(ps[r]);
      }
    }
    return out;
  }
};

}  // namespace

int holder(const std::vector<int>& sizes, int src, int dst) {
  const Clusters cl(sizes);
  assert(src >= 0 && src < cl.total() && dst >= 0 && dst < cl.total());
  return cl.holder_k(src, dst);
}

std::vector<int> partners(const std::vector<int>& sizes, int me) {
  const Clusters cl(sizes);
  assert(me >= 0 && me < cl.total());
  return cl.partners_k(me);
}

ProcessPlan plan(const std::vector<int>& sizes, int me) {
  const Clusters cl(sizes);
  assert(me >= 0 && me < cl.total());
  const int mine = cl.cluster(me);
  const int first = cl.start(mine);
  const int size = cl.size(mine);
  std::vector<std::vector<int>> partners_of(static_cast<std::size_t>(cl.total()));
  const auto partners_cached = [&](int id) -> const std::vector<int>& {
    std::vector<int>& ps = partners_of[static_cast<std::size_t>(id)];
    if (ps.empty()) ps = cl.partners_k(id);  // every process has a partner: k >= 2
    return ps;
  };

  // As in the two-cluster plan: the blocks (src, d) that `h` holds after the local phase
  // have d == h or d one of h's partners.
  auto held_from = [&](int src, int h) {
    std::vector<Block> out;
    if (cl.holder_k(src, h) == h) out.push_back({src, h});
    for (int d : partners_cached(h)) {
      if (cl.holder_k(src, d) == h) out.push_back({src, d});
    }
    sort_blocks(out);
    return out;
  };

  ProcessPlan out;
  local_phase(out, me, first, size, held_from, [](int id) { return id; });
  for (int t : partners_cached(me)) {
    Exchange e;
    e.peer = t;
    const int theirs = cl.cluster(t);
    for (int q = first; q < first + size; ++q) {
      if (cl.holder_k(q, t) == me) e.send.push_back({q, t});
    }
    for (int q = cl.start(theirs); q < cl.start(theirs) + cl.size(theirs); ++q) {
      if (cl.holder_k(q, me) == t) e.recv.push_back({q, me});
    }
    // Built in (src, dst) order already: src ascending, one dst.
    out.backbone.push_back(std::move(e));
  }
  return out;
}

long long backbone_messages(const std::vector<int>& sizes) {
  long long total = 0;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    for (std::size_t b = a + 1; b < sizes.size(); ++b) total += 2LL * std::max(sizes[a], sizes[b]);
  }
  return total;
}

}  // namespace ragged::plans::lg
