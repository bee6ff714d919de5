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
  const int offset = v - first;

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
  out.keep = held_from(v, v);
  for (int k = 1; k < size; ++k) {
    const int to = first + (offset + k) % size;
    const int from = first + (offset - k + size) % size;
    out.local_sends.push_back({view.from_view(to), held_from(v, to)});
    out.local_recvs.push_back({view.from_view(from), held_from(from, v)});
  }
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

}  // namespace ragged::plans::lg
