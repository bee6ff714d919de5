// Fuzzes LG's mapping (plans/lg_plan.hpp) for k = 2..5 clusters: sizes up to 40 for two
// clusters (either the larger), up to 16 for more. Runs every process's plan on an in-memory
// exchange and checks: a process's keep and local sends split its own row M(me, *) exactly
// once; the local phase sends one message to, and receives one from, every other process of
// the own cluster, and the receiver's list is the sender's; after it each block sits where
// holder() says (at dst within a cluster); the backbone follows partners(), pairs each process
// with peers of other clusters, at most steps(n_a, n_b) with cluster b and exactly one when
// its own cluster a is at least as large, each congruent to it modulo the smaller of the two
// clusters, with matching send and receive lists of blocks the sender holds, each block
// crossing once; max(n_a, n_b) backbone messages go from cluster a to cluster b, and
// backbone_messages() in all; at the end every process holds exactly its column M(*, me),
// each block once. For two clusters the k-cluster functions must also equal the two-cluster
// ones (plan, holder, partners), so the paper's mapping is fuzzed with the same properties.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/lg_plan.hpp"

namespace lg = ragged::plans::lg;

namespace {

bool same_blocks(const std::vector<lg::Block>& x, const std::vector<lg::Block>& y) { return x == y; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int k = in.ConsumeIntegralInRange<int>(2, 5);
  std::vector<int> sizes;
  for (int c = 0; c < k; ++c) sizes.push_back(in.ConsumeIntegralInRange<int>(1, k == 2 ? 40 : 16));
  std::vector<int> cluster_of;
  std::vector<int> first;
  for (int c = 0; c < k; ++c) {
    first.push_back(static_cast<int>(cluster_of.size()));
    cluster_of.insert(cluster_of.end(), static_cast<std::size_t>(sizes[static_cast<std::size_t>(c)]), c);
  }
  const int n = static_cast<int>(cluster_of.size());
  const auto un = static_cast<std::size_t>(n);
  const auto cluster = [&](int r) { return cluster_of[static_cast<std::size_t>(r)]; };
  const auto size_of = [&](int c) { return sizes[static_cast<std::size_t>(c)]; };
  const auto index_in_cluster = [&](int r) { return r - first[static_cast<std::size_t>(cluster(r))]; };

  std::vector<lg::ProcessPlan> plans;
  plans.reserve(un);
  for (int me = 0; me < n; ++me) plans.push_back(lg::plan(sizes, me));
  if (k == 2) {
    const int n1 = sizes[0];
    const int n2 = sizes[1];
    for (int me = 0; me < n; ++me) {
      FUZZ_REQUIRE(plans[static_cast<std::size_t>(me)] == lg::plan(n1, n2, me), "two clusters: the two-cluster plan");
      FUZZ_REQUIRE(lg::partners(sizes, me) == lg::partners(n1, n2, me), "two clusters: the two-cluster partners");
      for (int dst = 0; dst < n; ++dst) {
        FUZZ_REQUIRE(lg::holder(sizes, me, dst) == lg::holder(n1, n2, me, dst), "two clusters: the two-cluster holder");
      }
    }
  }

  // where[src*n+dst]: the process holding M(src, dst) after the local phase (-1: nobody yet).
  std::vector<int> where(un * un, -1);
  const auto place = [&](const lg::Block& b, int at) {
    FUZZ_REQUIRE(b.src >= 0 && b.src < n && b.dst >= 0 && b.dst < n, "blocks in range");
    int& w = where[static_cast<std::size_t>(b.src) * un + static_cast<std::size_t>(b.dst)];
    FUZZ_REQUIRE(w < 0, "a block is held by one process");
    w = at;
  };
  for (int me = 0; me < n; ++me) {
    const lg::ProcessPlan& pl = plans[static_cast<std::size_t>(me)];
    std::vector<char> own(un, 0);
    const auto mine = [&](const lg::Block& b) {
      FUZZ_REQUIRE(b.src == me && b.dst >= 0 && b.dst < n, "a process keeps and sends only its own blocks");
      FUZZ_REQUIRE(own[static_cast<std::size_t>(b.dst)] == 0, "each own block once");
      own[static_cast<std::size_t>(b.dst)] = 1;
    };
    for (const lg::Block& b : pl.keep) {
      mine(b);
      place(b, me);
    }
    std::vector<char> sent_to(un, 0);
    for (const lg::Transfer& t : pl.local_sends) {
      FUZZ_REQUIRE(t.peer >= 0 && t.peer < n && t.peer != me && cluster(t.peer) == cluster(me),
                   "local sends stay in the cluster, never to the sender");
      FUZZ_REQUIRE(sent_to[static_cast<std::size_t>(t.peer)] == 0, "one local message per peer");
      sent_to[static_cast<std::size_t>(t.peer)] = 1;
      for (const lg::Block& b : t.blocks) {
        mine(b);
        place(b, t.peer);
      }
      // The receiver lists the same blocks from me.
      const auto& recvs = plans[static_cast<std::size_t>(t.peer)].local_recvs;
      const auto it = std::find_if(recvs.begin(), recvs.end(), [&](const lg::Transfer& r) { return r.peer == me; });
      FUZZ_REQUIRE(it != recvs.end() && same_blocks(it->blocks, t.blocks), "the receiver expects what is sent");
    }
    for (int q = 0; q < n; ++q) {
      if (q != me && cluster(q) == cluster(me)) FUZZ_REQUIRE(sent_to[static_cast<std::size_t>(q)] != 0, "every peer");
    }
    FUZZ_REQUIRE(pl.local_recvs.size() == pl.local_sends.size(), "as many local receives as sends");
    for (std::size_t dst = 0; dst < un; ++dst) FUZZ_REQUIRE(own[dst] != 0, "keep and local sends cover the row");
  }
  for (int src = 0; src < n; ++src) {
    for (int dst = 0; dst < n; ++dst) {
      const int w = where[static_cast<std::size_t>(src) * un + static_cast<std::size_t>(dst)];
      FUZZ_REQUIRE(w == lg::holder(sizes, src, dst), "the local phase leaves each block at holder()");
      if (cluster(src) == cluster(dst)) FUZZ_REQUIRE(w == dst, "within a cluster a block goes straight to dst");
    }
  }

  // Backbone.
  const auto uk = static_cast<std::size_t>(k);
  std::vector<long long> messages(uk * uk, 0);  // [from cluster * k + to cluster]
  std::vector<int> final_at = where;
  std::vector<char> moved(un * un, 0);
  for (int me = 0; me < n; ++me) {
    const lg::ProcessPlan& pl = plans[static_cast<std::size_t>(me)];
    const std::vector<int> partners = lg::partners(sizes, me);
    FUZZ_REQUIRE(partners.size() == pl.backbone.size(), "one exchange per partner");
    std::vector<int> with(uk, 0);
    for (std::size_t s = 0; s < pl.backbone.size(); ++s) {
      const lg::Exchange& e = pl.backbone[s];
      FUZZ_REQUIRE(e.peer == partners[s], "the backbone follows partners()");
      FUZZ_REQUIRE(e.peer >= 0 && e.peer < n && cluster(e.peer) != cluster(me), "a backbone peer is across");
      ++with[static_cast<std::size_t>(cluster(e.peer))];
      const int smaller = std::min(size_of(cluster(me)), size_of(cluster(e.peer)));
      FUZZ_REQUIRE(index_in_cluster(e.peer) % smaller == index_in_cluster(me) % smaller,
                   "backbone peers are congruent modulo the smaller cluster");
      const auto& theirs = plans[static_cast<std::size_t>(e.peer)].backbone;
      const auto it = std::find_if(theirs.begin(), theirs.end(), [&](const lg::Exchange& x) { return x.peer == me; });
      FUZZ_REQUIRE(it != theirs.end(), "the peer exchanges with me");
      FUZZ_REQUIRE(
          std::count_if(theirs.begin(), theirs.end(), [&](const lg::Exchange& x) { return x.peer == me; }) == 1,
          "one exchange per pair of processes");
      FUZZ_REQUIRE(same_blocks(it->recv, e.send) && same_blocks(it->send, e.recv), "both sides agree on the lists");
      if (!e.send.empty()) {
        ++messages[static_cast<std::size_t>(cluster(me)) * uk + static_cast<std::size_t>(cluster(e.peer))];
      }
      for (const lg::Block& b : e.send) {
        FUZZ_REQUIRE(b.src >= 0 && b.src < n && b.dst >= 0 && b.dst < n, "blocks in range");
        const std::size_t at = static_cast<std::size_t>(b.src) * un + static_cast<std::size_t>(b.dst);
        FUZZ_REQUIRE(where[at] == me, "a process sends only blocks it holds after the local phase");
        FUZZ_REQUIRE(moved[at] == 0, "a block crosses the backbone once");
        moved[at] = 1;
        final_at[at] = e.peer;
      }
    }
    for (int c = 0; c < k; ++c) {
      if (c == cluster(me)) continue;
      const int mine = size_of(cluster(me));
      const int theirs = size_of(c);
      FUZZ_REQUIRE(with[static_cast<std::size_t>(c)] <= lg::steps(mine, theirs), "at most steps() exchanges");
      if (mine >= theirs) {
        FUZZ_REQUIRE(with[static_cast<std::size_t>(c)] == 1, "a process of the larger cluster exchanges once");
      }
    }
  }
  long long total = 0;
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) {
      if (a == b) continue;
      const long long m = messages[static_cast<std::size_t>(a) * uk + static_cast<std::size_t>(b)];
      FUZZ_REQUIRE(m == std::max(size_of(a), size_of(b)), "max(n_a, n_b) backbone messages from a to b");
      total += m;
    }
  }
  FUZZ_REQUIRE(total == lg::backbone_messages(sizes), "backbone_messages() in all");
  if (k == 2) FUZZ_REQUIRE(total == 2 * std::max(sizes[0], sizes[1]), "2 max(n1, n2) backbone messages");
  for (int src = 0; src < n; ++src) {
    for (int dst = 0; dst < n; ++dst) {
      FUZZ_REQUIRE(final_at[static_cast<std::size_t>(src) * un + static_cast<std::size_t>(dst)] == dst,
                   "every block ends at its destination");
    }
  }
  return 0;
}
