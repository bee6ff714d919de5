// The LG (Local Group) alltoall of Jeannot & Steffenel 2007, §4.1, as a pure mapping: which
// process holds which block M(i,j) after the local phase, and what every process
// sends and receives in each phase. No communication. First for two clusters (the
// paper's algorithm), then for k >= 2 clusters (beyond the paper: its first item of
// future work, §6), which runs the two-cluster mapping on every pair of clusters.
//
// Two clusters. Numbering (the paper's): processes 0..n1-1 form cluster C1 and
// n1..n1+n2-1 cluster C2. The paper assumes n1 <= n2; when n1 > n2 the roles swap (the
// smaller cluster C2 plays C1's part), so every (n1, n2) with n1, n2 >= 1 works.
// Below, with n1 <= n2, "group g" (g >= 1) is the processes g*n1 .. g*n1+n1-1 of
// C2; the last group is incomplete when n2 is not a multiple of n1.
//
//   local phase (inside each cluster, one message per ordered pair of processes):
//     i in C1, j in C1:  M(i,j) -> j
//     i in C1, j in C2:  M(i,j) -> j mod n1              (j's partner in C1)
//     i in C2, j in C2:  M(i,j) -> j
//     i in C2, j in C1:  M(i,j) -> floor(i/n1)*n1 + j    (j's partner in i's group)
//                        if that process does not exist (i in the incomplete last
//                        group G and j >= its size r), the position-j process of
//                        the full group 1 + (i - G*n1 + j) mod (G-1) holds it.
//   backbone phase, steps s = 1..ceil(n2/n1): process p of C1 and process
//     s*n1 + p of C2 (if it exists) exchange one message each way: p sends every
//     M(k, s*n1+p) it holds, s*n1+p sends every M(k, p) it holds.
//
//   n1 = 3, n2 = 7 (the paper's example; C2 = 3..9, groups {3,4,5} {6,7,8} {9}):
//     step 1: 0<->3 1<->4 2<->5    step 2: 0<->6 1<->7 2<->8    step 3: 0<->9
//     M(7,2) is held by 8 and crosses in step 2 with M(6,2), M(8,2) (the paper's
//     example, with floor(7/3) for its ceil); M(9,1) and M(9,2), which have no
//     position 1 or 2 in group 3, are held by 7 (group 2) and 5 (group 1).
//
// Every C2 process sends and receives exactly one backbone message, and every
// backbone message joins a C1 process p with a C2 process congruent to p mod n1:
// 2*max(n1, n2) backbone messages in all, against 2*n1*n2 for a direct exchange.
//
// k clusters (sizes n_0..n_{k-1}, k >= 2, every n_c >= 1). Numbering: cluster 0 is
// ids 0..n_0-1, cluster 1 the next n_1 ids, and so on. Each pair of clusters a < b
// runs the two-cluster mapping above with a as C1 and b as C2 (its ids renumbered
// 0..n_a+n_b-1), and the k-1 mappings a process takes part in are merged:
//
//   local phase: still one message per ordered pair of processes of a cluster; the
//     message i -> j carries M(i,j) and every block that j carries across for i, to
//     whichever cluster: the k-1 two-cluster local messages i -> j, merged.
//   backbone phase: the union of the pairs' backbone phases. A process's partners in
//     different clusters are different processes, so it still exchanges at most one
//     message each way with each peer; its exchanges are listed round by round (its
//     first partner in every other cluster, ascending cluster, then its second, ...).
//
//   sizes 3, 5, 2 (ids: A = 0..2, B = 3..7, C = 8..9):
//     A-B (3 <= 5): 0<->3 1<->4 2<->5, 0<->6 1<->7     10 messages
//     A-C (3 > 2):  C plays C1: 8<->0 9<->1, 8<->2       6 messages
//     B-C (5 > 2):  8<->3 9<->4, 8<->5 9<->6, 8<->7     10 messages
//     local message 8 -> 9 carries M(8,1), M(8,4), M(8,6), M(8,9): 9 carries the first
//     three across (its partners are 1, 4 and 6)
//
// Backbone messages: 2*max(n_a, n_b) for each pair a < b, i.e. max(n_a, n_b) for each
// ordered pair of clusters; in all (sizes sorted n_(1) <= ... <= n_(k))
//     sum over a < b of 2*max(n_a, n_b)  =  2 * sum_i (i-1) * n_(i)
// (26 for 3+5+2, 58 for 4+1+6+3), against sum over a != b of n_a*n_b for a direct
// exchange (62 and 134). For k = 2 every function below gives exactly the
// two-cluster mapping.
#pragma once

#include <vector>

namespace ragged::plans::lg {

/// M(src, dst): the block that process `src` sends to process `dst` (paper numbering).
struct Block {
  int src = 0;
  int dst = 0;
  friend bool operator==(const Block&, const Block&) = default;
};

/// One message: the blocks it carries, packed in this order.
struct Transfer {
  int peer = -1;
  std::vector<Block> blocks;
  friend bool operator==(const Transfer&, const Transfer&) = default;
};

/// One backbone step of one process: a message each way with the same peer
/// (an empty `send` or `recv` list means no message in that direction).
struct Exchange {
  int peer = -1;
  std::vector<Block> send;
  std::vector<Block> recv;
  friend bool operator==(const Exchange&, const Exchange&) = default;
};

/// Everything one process does.
struct ProcessPlan {
  /// Its own blocks that stay with it after the local phase (M(me,me) and, in the
  /// smaller cluster, the blocks it sends itself across the backbone).
  std::vector<Block> keep;
  /// Local phase: one message to / from every other process of its cluster, in a
  /// scattered order (sends to me+1, me+2, ...; receives from me-1, me-2, ...).
  std::vector<Transfer> local_sends;
  std::vector<Transfer> local_recvs;
  /// Backbone phase, in step order (k clusters: round by round, see above).
  std::vector<Exchange> backbone;
  friend bool operator==(const ProcessPlan&, const ProcessPlan&) = default;
};

/// The process that holds M(src, dst) after the local phase (dst itself when both
/// are in the same cluster). Requires n1, n2 >= 1 and src, dst in 0..n1+n2-1.
[[nodiscard]] int holder(int n1, int n2, int src, int dst);

/// The backbone partners of `me`, in step order.
[[nodiscard]] std::vector<int> partners(int n1, int n2, int me);

/// The number of backbone steps: ceil(max/min).
[[nodiscard]] int steps(int n1, int n2);

/// The plan of process `me`. Lists are in a fixed order that sender and
/// receiver agree on (blocks of a message sorted by (src, dst)).
[[nodiscard]] ProcessPlan plan(int n1, int n2, int me);

// ---- k clusters: `sizes` has one entry per cluster (k >= 2 entries, each >= 1), and
// ids are numbered cluster by cluster (see above). With sizes = {n1, n2} each function
// returns what its two-cluster namesake returns.

/// The process that holds M(src, dst) after the local phase.
[[nodiscard]] int holder(const std::vector<int>& sizes, int src, int dst);

/// The backbone partners of `me` (in every other cluster), round by round.
[[nodiscard]] std::vector<int> partners(const std::vector<int>& sizes, int me);

/// The plan of process `me`, in the same fixed orders as the two-cluster plan.
[[nodiscard]] ProcessPlan plan(const std::vector<int>& sizes, int me);

/// Backbone messages of one alltoall whose blocks are all non-empty: the sum over pairs
/// of clusters a < b of 2*max(n_a, n_b).
[[nodiscard]] long long backbone_messages(const std::vector<int>& sizes);

}  // namespace ragged::plans::lg
