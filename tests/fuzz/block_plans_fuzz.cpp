// Fuzzes the block arithmetic of allgather "nex" (plans/nex_plan.hpp), allreduce "rabenseifner"
// (plans/rabenseifner_plan.hpp), bcast "pipelined_chain" (plans/pipelined_chain_plan.hpp) and
// allreduce "pipelined_linear" (plans/pipelined_linear_plan.hpp).
//
// NEX, even P: executed on sets for P <= 128: P/2 steps; the peer is a ring neighbour whose
// peer is the rank; what a rank sends is what its peer expects, in the same place, one block in
// step 0 (its own) and then two (a pair: the one it received the step before); a rank sends only
// blocks it holds and never one its peer holds; every rank ends with every block. For even P up
// to 2^30, one rank: the same agreement with its peer in a few steps, and (P <= 2^14) the pairs
// it receives after step 0 are every pair but its own, once.
//
// Rabenseifner, P up to 2^31 - 1: the binary blocks are P's one bits, largest first, tiling
// 0..P-1; block_of holds the rank; fine_blocks is the largest power of two <= P; the larger
// peers of a rank are the next larger block's ranks whose chunks tile its chunk, each naming
// it as its smaller peer, and its smaller peer lists it among its larger peers; the halving
// windows: kept(v, mask) holds v, the kept and the sent half split kept(v, 2 mask), and their
// element ranges tile it for any count. For P <= 128 the whole schedule executed on sets as
// tests/unit/rabenseifner_plan_test.cpp does (every block's reduce-scatter, chunks up to the
// next larger block, results down, every block's allgather): only held fine blocks are sent,
// no contribution is counted twice, every rank ends with every fine block reduced over all.
//
// Pipelined chain, messages up to 2^62 bytes, any P: 1 <= S <= max(1, bytes / min_segment),
// one segment for P <= 2 or bytes <= min_segment, within a half of bytes / s* (s* from the
// header's model) where not clamped, more for a longer chain and for twice the message; the
// segments of segment_elements() cover the elements; owner_first_order (P <= 4096) starts
// with the own block, lists every block but the successor's once, forwards in the order it
// receives, leaves every rank with every block; owner_first_pause is where the root sends
// block v + 1. Pipelined linear: segment_elements(esize) is segment_bytes in whole elements (at
// least one); the segments tile the vector, only the last one shorter; forwarded_after is
// t + 1 - 2 rank clamped to [0, total], monotone in t.
#include <algorithm>
#include <bit>
#include <bitset>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/nex_plan.hpp"
#include "plans/pipelined_chain_plan.hpp"
#include "plans/pipelined_linear_plan.hpp"
#include "plans/rabenseifner_plan.hpp"
#include "plans/ring_plan.hpp"

namespace linear = ragged::plans::chain;
namespace chain = ragged::plans::pipelined_chain;
namespace nex = ragged::plans::nex;
namespace ring = ragged::plans::ring;
namespace rs = ragged::plans::rabenseifner;

namespace {

// ------------------------------------------------------------------------------------ NEX

/// Rank r's step s agrees with its peer's.
void check_nex_step(int r, int p, int s) {
  const nex::Step mine = nex::step(r, p, s);
  FUZZ_REQUIRE(mine.peer == ring::right(r, p) || mine.peer == ring::left(r, p), "the peer is a ring neighbour");
  const nex::Step theirs = nex::step(mine.peer, p, s);
  FUZZ_REQUIRE(theirs.peer == r, "peers are symmetric");
  FUZZ_REQUIRE(mine.send_first == theirs.recv_first && mine.send_blocks == theirs.recv_blocks,
               "what a rank sends is what its peer expects, in the same place");
  FUZZ_REQUIRE(mine.send_blocks == (s == 0 ? 1 : 2) && mine.recv_blocks == mine.send_blocks,
               "one block in step 0, a pair after");
  FUZZ_REQUIRE(mine.send_first >= 0 && mine.send_first + mine.send_blocks <= p && mine.recv_first >= 0 &&
                   mine.recv_first + mine.recv_blocks <= p,
               "blocks in range");
  if (s == 0) {
    FUZZ_REQUIRE(mine.send_first == r && mine.recv_first == (r ^ 1), "step 0 swaps the blocks of a pair");
  } else {
    FUZZ_REQUIRE(mine.send_first == 2 * nex::received_pair(r, p, s - 1), "the pair received before goes out");
    FUZZ_REQUIRE(mine.recv_first == 2 * nex::received_pair(r, p, s), "received_pair names what comes in");
  }
}

void execute_nex(int p) {
  const auto up = static_cast<std::size_t>(p);
  FUZZ_REQUIRE(nex::steps(p) == p / 2, "P/2 steps");
  std::vector<char> held(up * up, 0);  // [rank * P + block]
  for (std::size_t r = 0; r < up; ++r) held[r * up + r] = 1;
  std::vector<std::size_t> deliveries;
  for (int s = 0; s < nex::steps(p); ++s) {
    deliveries.clear();
    for (int r = 0; r < p; ++r) {
      check_nex_step(r, p, s);
      const nex::Step mine = nex::step(r, p, s);
      for (int b = mine.send_first; b < mine.send_first + mine.send_blocks; ++b) {
        FUZZ_REQUIRE(held[static_cast<std::size_t>(r) * up + static_cast<std::size_t>(b)] != 0,
                     "a rank sends only blocks it holds");
        const std::size_t at = static_cast<std::size_t>(mine.peer) * up + static_cast<std::size_t>(b);
        FUZZ_REQUIRE(held[at] == 0, "never a block the peer holds");
        deliveries.push_back(at);
      }
    }
    for (const std::size_t at : deliveries) held[at] = 1;
  }
  for (const char h : held) FUZZ_REQUIRE(h != 0, "every rank ends with every block");
}

void check_nex_rank(int p, int r, FuzzedDataProvider& in) {
  FUZZ_REQUIRE(nex::steps(p) == p / 2, "P/2 steps");
  check_nex_step(r, p, 0);
  for (int i = 0; i < 4; ++i) check_nex_step(r, p, in.ConsumeIntegralInRange<int>(0, p / 2 - 1));
  if (p > 1 << 14) return;
  const auto pairs = static_cast<std::size_t>(p / 2);
  std::vector<char> got(pairs, 0);
  got[static_cast<std::size_t>(nex::received_pair(r, p, 0))] = 1;
  FUZZ_REQUIRE(nex::received_pair(r, p, 0) == r / 2, "step 0: the own pair");
  for (int s = 1; s < nex::steps(p); ++s) {
    const int k = nex::received_pair(r, p, s);
    FUZZ_REQUIRE(k >= 0 && static_cast<std::size_t>(k) < pairs && got[static_cast<std::size_t>(k)] == 0,
                 "every other pair arrives once");
    got[static_cast<std::size_t>(k)] = 1;
  }
}

// ---------------------------------------------------------------------------- Rabenseifner

void check_blocks(int p, int rank, FuzzedDataProvider& in) {
  const int blocks = rs::block_count(p);
  FUZZ_REQUIRE(blocks == std::popcount(static_cast<unsigned>(p)), "a block per one bit of P");
  int next = 0;
  int previous = 0;
  for (int i = 0; i < blocks; ++i) {
    const rs::Block b = rs::block(p, i);
    FUZZ_REQUIRE(b.index == i && b.first == next, "blocks tile the ranks in order");
    FUZZ_REQUIRE(b.size > 0 && (b.size & (b.size - 1)) == 0 && (p & b.size) != 0, "a block is a one bit of P");
    FUZZ_REQUIRE(i == 0 || b.size < previous, "the largest first");
    previous = b.size;
    next += b.size;
  }
  FUZZ_REQUIRE(next == p, "the blocks hold every rank");
  const int fine = rs::fine_blocks(p);
  FUZZ_REQUIRE(fine == static_cast<int>(std::bit_floor(static_cast<unsigned>(p))), "F: the largest power of two <= P");

  const rs::Block me = rs::block_of(rank, p);
  FUZZ_REQUIRE(me.first <= rank && rank < me.first + me.size, "block_of holds the rank");
  FUZZ_REQUIRE(me.first == rs::block(p, me.index).first && me.size == rs::block(p, me.index).size, "block_of");
  const int v = rank - me.first;
  const rs::BlockRange mine = rs::chunk(v, me.size, fine);
  FUZZ_REQUIRE(mine.blocks == fine / me.size && mine.first == v * mine.blocks, "the chunk of v");
  const rs::Peers peers = rs::larger_peers(p, me, v);
  if (me.index == 0) {
    FUZZ_REQUIRE(peers.count == 0, "block 0 has no larger peers");
  } else {
    const rs::Block larger = rs::block(p, me.index - 1);
    FUZZ_REQUIRE(peers.count * me.size == larger.size, "q = s' / s larger peers");
    FUZZ_REQUIRE(peers.first >= larger.first && peers.first + peers.count <= larger.first + larger.size,
                 "the larger peers lie in the next larger block");
    // Their chunks tile the rank's: all of them when few, else the first, one and the last.
    std::vector<int> which;
    if (peers.count <= 64) {
      for (int w = 0; w < peers.count; ++w) which.push_back(w);
    } else {
      which = {0, in.ConsumeIntegralInRange<int>(0, peers.count - 1), peers.count - 1};
    }
    for (const int w : which) {
      const int u = peers.first + w - larger.first;
      FUZZ_REQUIRE(rs::smaller_peer(p, larger, u) == rank, "each larger peer names the rank as its smaller peer");
      const rs::BlockRange piece = rs::chunk(u, larger.size, fine);
      FUZZ_REQUIRE(piece.first == mine.first + w * piece.blocks, "the larger peers' chunks tile the rank's");
    }
    FUZZ_REQUIRE(
        rs::chunk(peers.first + peers.count - 1 - larger.first, larger.size, fine).first + fine / larger.size ==
            mine.first + mine.blocks,
        "and end with it");
  }
  const int lower = rs::smaller_peer(p, me, v);
  if (me.index + 1 == blocks) {
    FUZZ_REQUIRE(lower == -1, "the smallest block has no smaller peer");
  } else {
    const rs::Block smaller = rs::block(p, me.index + 1);
    FUZZ_REQUIRE(lower >= smaller.first && lower < smaller.first + smaller.size, "the smaller peer is in the block");
    const rs::Peers back = rs::larger_peers(p, smaller, lower - smaller.first);
    FUZZ_REQUIRE(back.first <= rank && rank < back.first + back.count, "the smaller peer lists the rank");
  }
}

void check_halving(int k, int v, int level, std::size_t count) {
  const int pof2 = 1 << k;
  const int mask = 1 << level;  // level < k
  const rs::BlockRange keep = rs::kept(v, mask);
  const rs::BlockRange send = rs::reduce_scatter_send(v, mask);
  const rs::BlockRange both = rs::kept(v, 2 * mask);
  FUZZ_REQUIRE(keep.first <= v && v < keep.first + keep.blocks && keep.blocks == mask && keep.first % mask == 0,
               "kept: the aligned mask blocks around v");
  FUZZ_REQUIRE(rs::reduce_scatter_recv(v, mask).first == keep.first && rs::allgather_send(v, mask).first == keep.first,
               "v reduces into and later sends what it keeps");
  FUZZ_REQUIRE(send.first == rs::reduce_scatter_recv(v ^ mask, mask).first &&
                   rs::allgather_recv(v, mask).first == rs::allgather_send(v ^ mask, mask).first,
               "what v sends is what its partner takes");
  FUZZ_REQUIRE(std::min(keep.first, send.first) == both.first && send.blocks == mask &&
                   std::max(keep.first, send.first) == both.first + mask,
               "the kept and the sent half split the window");
  const rs::ElementRange all = rs::elements(rs::BlockRange{0, pof2}, count, pof2);
  FUZZ_REQUIRE(all.first == 0 && all.size == count, "all blocks: the whole vector");
  const rs::ElementRange a = rs::elements(keep, count, pof2);
  const rs::ElementRange b = rs::elements(send, count, pof2);
  const rs::ElementRange ab = rs::elements(both, count, pof2);
  const rs::ElementRange& low = keep.first < send.first ? a : b;
  const rs::ElementRange& high = keep.first < send.first ? b : a;
  FUZZ_REQUIRE(
      low.first == ab.first && low.first + low.size == high.first && high.first + high.size == ab.first + ab.size,
      "the halves' elements tile the window's");
  FUZZ_REQUIRE(ab.first + ab.size <= count, "elements in range");
}

constexpr int max_executed = 128;
using Set = std::bitset<max_executed>;

/// The binary-blocks schedule on sets: have[r * F + f] the contributions rank r holds of fine
/// block f, held[...] whether it may use them.
void execute_rabenseifner(int p) {
  const int fine = rs::fine_blocks(p);
  const auto up = static_cast<std::size_t>(p);
  const auto uf = static_cast<std::size_t>(fine);
  std::vector<Set> have(up * uf);
  std::vector<char> held(up * uf, 1);
  const auto at = [&](int r, int f) { return static_cast<std::size_t>(r) * uf + static_cast<std::size_t>(f); };
  const auto add = [&](int to, int from, rs::BlockRange range) {
    for (int f = range.first; f < range.first + range.blocks; ++f) {
      FUZZ_REQUIRE(held[at(from, f)] != 0, "sends only fine blocks it holds");
      FUZZ_REQUIRE(held[at(to, f)] != 0, "reduces only into fine blocks it holds");
      FUZZ_REQUIRE((have[at(to, f)] & have[at(from, f)]).none(), "no contribution counted twice");
      have[at(to, f)] |= have[at(from, f)];
    }
  };
  const auto copy = [&](int to, int from, rs::BlockRange range) {
    for (int f = range.first; f < range.first + range.blocks; ++f) {
      FUZZ_REQUIRE(held[at(from, f)] != 0, "sends only fine blocks it holds");
      have[at(to, f)] = have[at(from, f)];
      held[at(to, f)] = 1;
    }
  };
  for (int r = 0; r < p; ++r) {
    for (int f = 0; f < fine; ++f) have[at(r, f)].set(static_cast<std::size_t>(r));
  }
  const int blocks = rs::block_count(p);
  // 1. every block's reduce-scatter (in place: what v sends is not what its partner sends it)
  for (int i = 0; i < blocks; ++i) {
    const rs::Block b = rs::block(p, i);
    for (int mask = b.size / 2; mask >= 1; mask /= 2) {
      for (int v = 0; v < b.size; ++v) {
        add(b.first + (v ^ mask), b.first + v, rs::in_fine(rs::reduce_scatter_send(v, mask), b.size, fine));
      }
    }
    for (int v = 0; v < b.size; ++v) {
      const rs::BlockRange keep = rs::chunk(v, b.size, fine);
      for (int f = 0; f < fine; ++f) {
        if (f < keep.first || f >= keep.first + keep.blocks) held[at(b.first + v, f)] = 0;
      }
    }
  }
  // 2. from the smallest block up: each rank's chunk in pieces to the next larger block
  for (int i = blocks - 1; i >= 1; --i) {
    const rs::Block b = rs::block(p, i);
    const rs::Block larger = rs::block(p, i - 1);
    for (int u = 0; u < b.size; ++u) {
      const rs::Peers peers = rs::larger_peers(p, b, u);
      for (int w = peers.first; w < peers.first + peers.count; ++w) {
        add(w, b.first + u, rs::chunk(w - larger.first, larger.size, fine));
      }
    }
  }
  // 3. from block 0 down: the results to the next smaller block, then every block's allgather
  for (int i = 0; i + 1 < blocks; ++i) {
    const rs::Block b = rs::block(p, i);
    for (int w = 0; w < b.size; ++w) copy(rs::smaller_peer(p, b, w), b.first + w, rs::chunk(w, b.size, fine));
  }
  for (int i = 0; i < blocks; ++i) {
    const rs::Block b = rs::block(p, i);
    for (int mask = 1; mask < b.size; mask *= 2) {
      for (int v = 0; v < b.size; ++v) {
        const rs::BlockRange send = rs::in_fine(rs::allgather_send(v, mask), b.size, fine);
        for (int f = send.first; f < send.first + send.blocks; ++f) {
          FUZZ_REQUIRE(held[at(b.first + (v ^ mask), f)] == 0, "the allgather brings only what the partner lacks");
        }
        copy(b.first + (v ^ mask), b.first + v, send);
      }
    }
  }
  Set all;
  for (std::size_t r = 0; r < up; ++r) all.set(r);
  for (std::size_t i = 0; i < have.size(); ++i) {
    FUZZ_REQUIRE(held[i] != 0 && have[i] == all, "every rank ends with every fine block reduced over all");
  }
}

// --------------------------------------------------------------------------- the chains

void check_segment_count(std::size_t bytes, int p) {
  const std::size_t n = chain::segment_count(bytes, p);
  FUZZ_REQUIRE(n >= 1 && n <= std::max<std::size_t>(1, bytes / chain::min_segment_bytes),
               "1 <= S <= bytes / min_segment");
  if (n > 1) FUZZ_REQUIRE(bytes / n >= chain::min_segment_bytes, "segments of at least min_segment");
  if (p <= 2 || bytes <= chain::min_segment_bytes) FUZZ_REQUIRE(n == 1, "nothing to pipeline: one segment");
  if (p > 2 && bytes > chain::min_segment_bytes) {
    // S = bytes / s* = sqrt(bytes (P - 2) / latency_bytes), rounded, where not clamped.
    const long double best =
        std::sqrt(static_cast<long double>(bytes) * (p - 2) / static_cast<long double>(chain::latency_bytes));
    const long double most = static_cast<long double>(bytes / chain::min_segment_bytes);
    if (best >= 1 && best + 1 <= most) {
      FUZZ_REQUIRE(std::fabs(static_cast<long double>(n) - best) <= 0.5L + 1e-9L * best, "S = bytes / s*, rounded");
    }
    FUZZ_REQUIRE(chain::segment_count(bytes, p == 2147483647 ? p : p + 1) >= n, "a longer chain, more segments");
    if (bytes <= std::size_t{1} << 61) FUZZ_REQUIRE(chain::segment_count(2 * bytes, p) >= n, "twice the message, more");
  }
}

void check_segment_elements(std::size_t count, std::size_t esize, int p) {
  const std::size_t per = chain::segment_elements(count, esize, p);
  FUZZ_REQUIRE(per >= 1, "at least one element a segment");
  const std::size_t n = chain::segments(count, per);
  FUZZ_REQUIRE(n <= std::max<std::size_t>(1, chain::segment_count(count * esize, p)), "no more than segment_count");
  if (count > 0) FUZZ_REQUIRE(n >= 1 && (n - 1) * per < count && count <= n * per, "the segments cover the elements");
}

void check_owner_first(int p, int v) {
  const std::vector<int> order = chain::owner_first_order(v, p);
  if (v == p - 1) {
    FUZZ_REQUIRE(order.empty(), "the last rank sends nothing");
  } else {
    FUZZ_REQUIRE(order.size() == static_cast<std::size_t>(p - 1) && order.front() == v, "P - 1 blocks, the own first");
    std::vector<char> seen(static_cast<std::size_t>(p), 0);
    for (const int u : order) {
      FUZZ_REQUIRE(u >= 0 && u < p && u != v + 1 && seen[static_cast<std::size_t>(u)] == 0,
                   "every block but the successor's, once");
      seen[static_cast<std::size_t>(u)] = 1;
    }
  }
  if (v >= 1) {
    std::vector<int> held = chain::owner_first_order(v - 1, p);  // what v receives
    FUZZ_REQUIRE(!held.empty() && held.back() == (v + 1 < p ? v + 1 : held.back()), "the last one in is v + 1's");
    if (v + 1 < p) {
      std::vector<int> forwarded{v};
      forwarded.insert(forwarded.end(), held.begin(), held.end() - 1);
      FUZZ_REQUIRE(order == forwarded, "the own block, then forwarded in the order received");
    }
    held.push_back(v);
    std::sort(held.begin(), held.end());
    for (int u = 0; u < p; ++u)
      FUZZ_REQUIRE(held[static_cast<std::size_t>(u)] == u, "every rank ends with every block");
  }
  const std::vector<int> root = chain::owner_first_order(0, p);
  const std::size_t k = chain::owner_first_pause(v, p);
  if (v == 0) {
    FUZZ_REQUIRE(k >= root.size(), "the root never pauses");
  } else if (v + 1 < p) {
    FUZZ_REQUIRE(k < root.size() && root[k] == v + 1 && k < order.size(), "v pauses while the root sends block v + 1");
  }
}

void check_linear(std::size_t count, std::size_t esize, int rank, std::size_t t, std::size_t total) {
  const std::size_t per = linear::segment_elements(esize);
  FUZZ_REQUIRE(per >= 1, "at least one element a segment");
  if (esize <= linear::segment_bytes) {
    FUZZ_REQUIRE(per * esize <= linear::segment_bytes && (per + 1) * esize > linear::segment_bytes,
                 "segment_bytes in whole elements");
  } else {
    FUZZ_REQUIRE(per == 1, "one element when it is larger than a segment");
  }
  const std::size_t n = linear::segments(count, per);
  FUZZ_REQUIRE(n == count / per + (count % per != 0 ? 1 : 0), "ceil(count / per) segments");
  std::vector<std::size_t> which;
  if (n <= 256) {
    for (std::size_t i = 0; i < n; ++i) which.push_back(i);
  } else {
    which = {0, n / 2, n - 2, n - 1};
  }
  for (const std::size_t i : which) {
    const std::size_t first = linear::segment_first(i, per);
    const std::size_t len = linear::segment_size(count, i, per);
    FUZZ_REQUIRE(first == i * per && len > 0 && len <= per && first + len <= count, "segments in range");
    FUZZ_REQUIRE(i + 1 == n ? first + len == count : len == per, "only the last segment is shorter");
  }
  const std::size_t got = linear::forwarded_after(rank, t, total);
  const std::size_t lag = 2 * static_cast<std::size_t>(rank);
  FUZZ_REQUIRE(got == (t + 1 <= lag ? 0 : std::min(t + 1 - lag, total)), "t + 1 - lag(rank), within [0, total]");
  FUZZ_REQUIRE(linear::forwarded_after(rank, t + 1, total) >= got, "monotone in t");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // NEX
  if (in.ConsumeBool()) {
    execute_nex(2 * in.ConsumeIntegralInRange<int>(1, 64));
  } else {
    const int p = 2 * in.ConsumeIntegralInRange<int>(1, 1 << 29);
    check_nex_rank(p, in.ConsumeIntegralInRange<int>(0, p - 1), in);
  }
  // Rabenseifner
  const int p =
      in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(1, 140) : in.ConsumeIntegralInRange<int>(1, 2147483647);
  check_blocks(p, in.ConsumeIntegralInRange<int>(0, p - 1), in);
  const int k = in.ConsumeIntegralInRange<int>(1, 30);
  const std::size_t count =
      in.ConsumeBool() ? in.ConsumeIntegralInRange<std::size_t>(0, 1000) : in.ConsumeIntegral<std::size_t>();
  const int v = in.ConsumeIntegralInRange<int>(0, (1 << k) - 1);
  check_halving(k, v, in.ConsumeIntegralInRange<int>(0, k - 1), count);
  if (p <= max_executed) execute_rabenseifner(p);
  // The chains
  const int procs =
      in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(1, 70) : in.ConsumeIntegralInRange<int>(1, 2147483647);
  const std::size_t bytes =
      in.ConsumeIntegralInRange<std::size_t>(0, in.ConsumeBool() ? std::size_t{1} << 24 : std::size_t{1} << 62);
  check_segment_count(bytes, procs);
  const std::size_t esize = std::size_t{1} << in.ConsumeIntegralInRange<int>(0, 4);
  const std::size_t elements = in.ConsumeIntegralInRange<std::size_t>(0, (std::size_t{1} << 62) / esize);
  check_segment_elements(elements, esize, procs);
  const int chain_procs = in.ConsumeIntegralInRange<int>(1, 4096);
  check_owner_first(chain_procs, in.ConsumeIntegralInRange<int>(0, chain_procs - 1));
  const std::size_t vector = in.ConsumeIntegralInRange<std::size_t>(0, std::size_t{1} << 50);
  const std::size_t element = in.ConsumeBool() ? in.ConsumeIntegralInRange<std::size_t>(1, 64)
                                               : in.ConsumeIntegralInRange<std::size_t>(1, std::size_t{1} << 40);
  const int rank = in.ConsumeIntegralInRange<int>(0, 1 << 20);
  const std::size_t t = in.ConsumeIntegralInRange<std::size_t>(0, std::size_t{1} << 40);
  check_linear(vector, element, rank, t, in.ConsumeIntegralInRange<std::size_t>(0, std::size_t{1} << 40));
  return 0;
}
