// Träff's block-size-aware gather/scatter trees (Träff 2018, lemmas 1-4), as pure
// functions: the cube geometry, the merge rule, the oracle that builds the whole
// tree from the full vector of block sizes, and the per-process state machine of
// the distributed construction (lemma 3), which sees only its own block size and
// the constant-size messages it receives. No communication happens here: the
// algorithms drive Builder over Comm, the tests drive it over an in-memory network.
//
// Ordered hypercubes. At level d the ranks form cubes of 2^d consecutive ranks,
// [a 2^d, (a+1) 2^d - 1], the last one cut at p-1. Cubes 2b and 2b+1 of level d
// merge into cube b of level d+1 (the lower and the upper half); a lower cube
// without an upper partner (p not a power of two) moves up unchanged. Each cube
// has
//   * a fixed root, computable by anyone: the given root r in the cube that holds
//     it, otherwise the cube's last rank, min((a+1) 2^d, p) - 1. (The paper takes
//     the last rank, "e.g."; taking r where possible makes r, which always gathers
//     its cube (lemma 2), its own fixed root: it learns each child in the exchange,
//     one round before a notice could tell it, and never needs a notice.);
//   * a gather root g: the rank that holds (gather) or will hand out (scatter)
//     the cube's data, chosen by the merge rule;
//   * what its roots know about it, CubeInfo: the elements its gather root
//     carries, g's own block and g's identity.
//
// The merge rule (decide()): when cubes A (lower) and B (upper) merge, the gather
// root of one sends its data to the gather root of the other, which becomes the
// gather root of the merged cube:
//   1. the cube holding the externally given root r always receives (lemma 2);
//   2. otherwise the cube with the larger gather-time estimate receives; the
//      estimate is carried - root_block under lemma 1 (the root's own block costs
//      nothing) and carried under lemma 4 (every rank copies its block once);
//   3. equal estimates: the cube with less data sends (lemma 1's tie rule);
//   4. still equal: A sends to B (consistent; with equal blocks every gather root
//      is then a fixed root and no notices are needed).
// Graceful degradation (the improvement Träff 2018 leaves undone in §3): with a
// threshold T, a sending cube carrying more than T elements whose receiver is not
// r's cube sends straight to r instead; the merged cube then carries only the
// receiver's data (a "hole" where the sender was). Only r must know about such
// direct senders; it computes them with the oracle from its counts.
//
// Distributed construction (lemma 3), per level d, for every pair of cubes:
//
//       fixed root of A  <── CubeInfo ──>  fixed root of B     (step 1: exchange)
//             │                                   │
//       partner's info                      partner's info     (step 2: notice,
//             v                                   v              only if g != fixed root)
//       gather root of A                    gather root of B
//
// Both fixed roots and, after the notice, both gather roots apply decide() to the
// same two CubeInfos and agree. The fixed root of the merged cube (r, or B's last
// rank) goes on; the other fixed root retires. Every message is one CubeInfo (24 bytes).
// Exchanges depend only on earlier exchanges, so they take rounds 1..L, and every
// notice adds one round after its exchange: at most L + 1 <= 2L dependent rounds
// (L = ceil(log2 p); the paper bounds it by 2L - 1).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ragged::plans::traff {

/// The cost model behind the gather-time estimate.
enum class Cost {
  lemma1,  ///< a gather root's own block costs nothing (theorem 1; the paper's experiments)
  lemma4,  ///< every rank copies its own block into a communication buffer once
};

struct Params {
  int procs = 1;
  int root = 0;  ///< the externally given root r (lemma 2)
  Cost cost = Cost::lemma1;
  /// Graceful degradation: a sending subtree carrying more elements than this goes
  /// straight to the root. Negative: off.
  std::int64_t direct_threshold = -1;
};

/// A range of consecutive ranks, both ends included.
struct Range {
  int first = 0;
  int last = -1;
  [[nodiscard]] constexpr bool contains(int rank) const { return first <= rank && rank <= last; }
  [[nodiscard]] constexpr int size() const { return last - first + 1; }
  friend constexpr bool operator==(const Range&, const Range&) = default;
};

/// What both roots of a cube know about it; also the wire format of every
/// construction message (three 64-bit integers).
struct CubeInfo {
  std::int64_t carried = 0;     ///< elements the gather root holds after gathering the cube
  std::int64_t root_block = 0;  ///< the gather root's own block
  std::int64_t root = 0;        ///< the gather root's rank
  friend constexpr bool operator==(const CubeInfo&, const CubeInfo&) = default;
};

/// Number of levels: ceil(log2 procs) (0 for one process).
int levels(int procs);
/// The cube of `rank` at `level`.
Range cube(int rank, int level, int procs);
/// The cube merged with cube(rank, level) at this level; an empty Range if there is none.
Range partner(int rank, int level, int procs);
/// The fixed root of a cube: the given root r if the cube holds it, else its last rank.
constexpr int fixed_root(const Range& cube, int root) { return cube.contains(root) ? root : cube.last; }

struct Outcome {
  bool upper_receives = false;  ///< the upper cube's gather root receives (and stays a gather root)
  bool direct = false;          ///< the sender goes straight to the root (degradation)
};

/// The merge rule (see the top of this file). Both cubes must be non-empty and adjacent.
Outcome decide(const CubeInfo& lower, const Range& lower_cube, const CubeInfo& upper, const Range& upper_cube,
               const Params& params);
/// What the merged cube's roots know after `outcome`.
CubeInfo merge(const CubeInfo& lower, const CubeInfo& upper, const Outcome& outcome);

/// One child of a node: a gather root that sends its cube's data to this node.
struct Child {
  int rank = -1;
  int level = -1;             ///< the level of the merge at which it sends
  std::int64_t elements = 0;  ///< what it sends (0: no message at all)
  bool below = false;         ///< its ranks precede this node's own rank
  Range cube;                 ///< its cube at that level (holes possible under degradation)
  friend bool operator==(const Child&, const Child&) = default;
};

/// One process's place in the tree.
struct Node {
  int parent = -1;      ///< -1 at the root
  int level = -1;       ///< the level at which it sends to its parent; -1 at the root
  bool direct = false;  ///< its parent is the root by degradation, not by a merge
  /// Elements it sends; at the root, what reaches it through merges, its own block included
  /// (direct senders come on top: under degradation, every rank whose `direct` is set).
  std::int64_t carried = 0;
  std::vector<Child> children;  ///< merge children by level (direct senders are not listed)
  friend bool operator==(const Node&, const Node&) = default;
};

/// The oracle: the whole tree from every block size, computed centrally.
std::vector<Node> oracle(std::span<const std::int64_t> sizes, const Params& params);

/// The ranks whose blocks a child's message holds, in rank order: `rank`'s subtree in `tree`.
std::vector<int> subtree_ranks(const std::vector<Node>& tree, int rank);

/// The offset (in elements) of each child's data and of the own block in a
/// non-root node's buffer, which holds its subtree's blocks in rank order.
struct Layout {
  std::int64_t own = 0;
  std::vector<std::int64_t> child;  ///< parallel to Node::children
};
Layout layout(const Node& node, std::int64_t own_elements);

/// The distributed construction on one process (lemma 3). Drive it level by level:
///
///   for (int d = 0; d < levels; ++d) {
///     if (int f = b.exchange_partner(d); f >= 0) {      // this rank is a fixed root
///       CubeInfo theirs = <sendrecv b.info() with f>;
///       if (int g = b.on_exchange(d, theirs); g >= 0) <send theirs to g>;
///     } else if (int f = b.notice_from(d); f >= 0) {    // a gather root only
///       b.on_notice(d, <receive from f>);
///     }
///   }
///
/// after which node() equals this process's node in the oracle's tree. Under
/// degradation the root learns of direct senders only from the oracle.
class Builder {
 public:
  Builder(int rank, std::int64_t elements, const Params& params);

  /// The fixed root to exchange with at `level`, or -1 if this rank is no fixed root
  /// of a cube with a partner there.
  [[nodiscard]] int exchange_partner(int level) const;
  /// This rank's knowledge of its cube, sent in the exchange.
  [[nodiscard]] const CubeInfo& info() const { return info_; }
  /// Takes the partner cube's info; returns the gather root to notify, or -1.
  int on_exchange(int level, const CubeInfo& theirs);
  /// The fixed root whose notice this rank awaits at `level`, or -1.
  [[nodiscard]] int notice_from(int level) const;
  void on_notice(int level, const CubeInfo& theirs);

  /// True while the rank still has a role (fixed or gather root) at the next level.
  [[nodiscard]] bool active() const { return fixed_ || gather_; }
  /// True while the rank is the gather root of its cube. Once false, node() is final
  /// (the rank has its parent), although its fixed-root duties may go on.
  [[nodiscard]] bool gather_root() const { return gather_; }
  [[nodiscard]] const Node& node() const { return node_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int procs() const { return params_.procs; }

 private:
  void resolve(int level, const CubeInfo& theirs);

  int rank_;
  Params params_;
  CubeInfo info_;
  bool fixed_ = true;
  bool gather_ = true;
  Node node_;
};

}  // namespace ragged::plans::traff
