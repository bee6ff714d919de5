// ragged: lower bounds on each rank's elapsed time (arrival to exit) in a collective, from the bytes
// its own link must carry and the times those bytes come into existence. Pure functions of the
// arrival times and the link model; the benchmark reports them beside every measurement
// (tools/bench/pap.cpp, irregular.cpp, two_cluster.cpp; docs/bounds.md).
//
// The model: every rank has one link in each direction (a non-blocking switch, full duplex), a
// message of m bytes occupies a link for alpha + m beta, and data flows into or out of a rank
// only after it has arrived (rendezvous: a receive is posted at the arrival; the simulator
// starts a transfer when both sides are there, Open MPI does so above its eager limit). A byte
// that only rank j holds before j arrives exists from a_j on. Nothing else is assumed: data may
// be split, merged, forwarded by any rank along any path, and computed on (reductions).
//
// One link, transfers with release times r_k and sizes b_k: the link cannot be done before
//
//   finish = max over t in {r_k} of  t + alpha + beta * sum_{k : r_k >= t} b_k       (1)
//
// (everything released at t or later crosses after t, in at least one message). With alpha = 0
// this is the optimum (send in release order); with alpha > 0 it is below every schedule of whole
// messages, by at most alpha per message but the first (tests/unit/lower_bound_test.cpp checks
// both against brute force).
//
// Per collective, what rank i's links must carry (a_i its arrival, P ranks):
//   allgather(v)   receive: every other rank's block b_j, released at max(a_i, a_j);
//                  send: its own block once, released at max(a_i, min_{j != i} a_j).
//   allreduce      receive: n bytes, every element of which depends on the latest other rank L:
//                  released at max(a_i, a_L); send: its n bytes once, at max(a_i, min_j a_j).
//   bcast          receive (rank i != root): the n bytes, at max(a_i, a_root); the root sends
//                  them once, at max(a_root, earliest other).
//   alltoall(v)    receive: the block of every other rank, at max(a_i, a_j); send: its block for
//                  every other rank (only i has it), at max(a_i, earliest other): it may travel
//                  through any rank that has arrived (Bruck forwards).
//   gatherv        the root receives every other block at max(a_root, a_j); rank j sends its
//                  block once, at max(a_j, earliest other) (through a tree's inner ranks).
//   scatterv       the root sends every other block, at max(a_root, earliest other); rank j
//                  receives its block at max(a_j, a_root).
// A rank's sending link counts only where it owns data nobody else has: it cannot exit before
// that data has left it (no buffering beyond the caller's buffers).
// Rank i's bound is the later of its two link finishes minus a_i (at least 0).
//
// That is the foreground model (Model::foreground). Algorithms with a background part (bdr, bgd,
// bslb, slt, prr, bsls: the arrival agent of Proficz 2018's listing 1 receives and forwards for
// its rank while the rank computes) live in a weaker one, Model::background: data flows into a
// rank from its owner's arrival on, whatever the receiver does. A rank's own data still exists
// only from its own arrival, and leaves from then on (the others' agents are there to take it):
//   allgather(v)   receive: b_j from a_j;  send: its own block from a_i.
//   allreduce      receive: n bytes from a_L;  send: its n bytes from a_i.
//   bcast          receive: from a_root;  the root sends from a_root.
//   alltoall(v)    receive: from a_j;  send: its blocks from a_i.
//   gatherv        the root receives block j from a_j; rank j sends it from a_j.
//   scatterv       the root sends from a_root; rank j receives from a_root.
// Every release is at or before the foreground one, so the background bound is never above the
// foreground bound (tests/unit/lower_bound_test.cpp), and both are bounds of their own model.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ragged::bound {

/// Bytes that exist, for the link considered, from `release_s` on.
struct Transfer {
  double release_s = 0;
  double bytes = 0;
  /// The time its first byte takes to reach the link's far end (a message across a backbone
  /// arrives that much later); negative: the link's alpha.
  double latency_s = -1;
};

/// The link model: a message of m bytes occupies a link for alpha + m beta seconds.
struct Link {
  double alpha = 0;
  double beta = 0;
};

/// When data may flow into a rank (above): only once it has arrived, or from its owner's arrival
/// on, received by the rank's agent in the background.
enum class Model { foreground, background };

/// "foreground" or "background".
const char* name_of(Model model);

/// Formula (1): the earliest time one link can have carried every transfer. Transfers of 0
/// bytes carry nothing; with none left the link constrains nothing: -infinity. A transfer is
/// ready at its release plus its latency; the link finishes no earlier than any ready time X
/// plus beta times the bytes of every transfer ready at X or later.
double link_finish(std::span<const Transfer> transfers, Link link);

/// Per-rank lower bounds on the elapsed time (seconds after each rank's arrival). `arrivals`
/// has one entry per rank; `block_bytes[j]` is rank j's block.
std::vector<double> allgatherv(std::span<const double> arrivals, std::span<const double> block_bytes, Link link,
                               Model model = Model::foreground);
/// allgather with one block size.
std::vector<double> allgather(std::span<const double> arrivals, double block_bytes, Link link,
                              Model model = Model::foreground);
/// `bytes`: the vector each rank contributes and receives.
std::vector<double> allreduce(std::span<const double> arrivals, double bytes, Link link,
                              Model model = Model::foreground);
/// `bytes`: the root's vector, which every other rank receives.
std::vector<double> bcast(std::span<const double> arrivals, int root, double bytes, Link link,
                          Model model = Model::foreground);
/// `bytes[i][j]`: what rank i sends to rank j.
std::vector<double> alltoallv(std::span<const double> arrivals, const std::vector<std::vector<double>>& bytes,
                              Link link, Model model = Model::foreground);
/// alltoallv between clusters: a message from rank j to rank i takes at least
/// `latency_s[cluster[j]][cluster[i]]` to arrive (inside a cluster: link.alpha at least), and every
/// byte crosses each host's link at link.beta (not the backbone's capacity).
std::vector<double> alltoallv_clusters(std::span<const double> arrivals, const std::vector<std::vector<double>>& bytes,
                                       std::span<const int> cluster, const std::vector<std::vector<double>>& latency_s,
                                       Link link, Model model = Model::foreground);
/// alltoall with one block size.
std::vector<double> alltoall(std::span<const double> arrivals, double block_bytes, Link link,
                             Model model = Model::foreground);
/// `block_bytes[j]`: what rank j sends to (gatherv) or receives from (scatterv) the root.
/// `latency_s[j]`, when given: the latency between rank j and the root (inside a node less than
/// between two), at least link.alpha; empty: link.alpha for every rank.
std::vector<double> gatherv(std::span<const double> arrivals, int root, std::span<const double> block_bytes, Link link,
                            Model model = Model::foreground, std::span<const double> latency_s = {});
std::vector<double> scatterv(std::span<const double> arrivals, int root, std::span<const double> block_bytes, Link link,
                             Model model = Model::foreground, std::span<const double> latency_s = {});

/// The mean of per-rank bounds (0 for none).
double mean(std::span<const double> bounds);

/// The two-level network of a deep cluster (docs/bounds.md, "Two levels"): every rank has its own
/// link (to its node's memory, `rank_link`), and the ranks of one node share one link per
/// direction to the switch between nodes (its network card, `card_link`). Besides what every
/// rank's own link must carry (the one-level bounds above, with rank_link), node N's card must
/// receive every byte that rank of N needs and only ranks outside N hold: from the later of
/// the byte's release outside and the earliest arrival in N (a rank of N that has arrived may
/// take it in and hand it on inside the node). Every rank of N needs all of them, so none is
/// done before the card is: rank i's bound is the later of its one-level bound and its node's
/// card finish, less a_i. The card's sending side binds only the last rank of the node to
/// leave (what the node holds may leave through any of its ranks), so it is left out of the
/// per-rank bounds. With one rank per node and card_link == rank_link it is the one-level bound.
/// In the background model the card receives each byte from its release outside (a rank's agent
/// takes it in before any rank of the node has arrived), and the one-level part is background too.
/// `node_of_rank[i]`: rank i's node (any numbering).
namespace two_level {
std::vector<double> allgather(std::span<const double> arrivals, double block_bytes, std::span<const int> node_of_rank,
                              Link rank_link, Link card_link, Model model = Model::foreground);
std::vector<double> allreduce(std::span<const double> arrivals, double bytes, std::span<const int> node_of_rank,
                              Link rank_link, Link card_link, Model model = Model::foreground);
std::vector<double> bcast(std::span<const double> arrivals, int root, double bytes, std::span<const int> node_of_rank,
                          Link rank_link, Link card_link, Model model = Model::foreground);
std::vector<double> alltoall(std::span<const double> arrivals, double block_bytes, std::span<const int> node_of_rank,
                             Link rank_link, Link card_link, Model model = Model::foreground);

/// A bound on the mean of the ranks' elapsed times that also counts each node's memory
/// (docs/bounds.md, "A node's memory"): every byte that enters a core of a node crosses the
/// node's memory system, `node_beta` seconds a byte for all of its ranks together. Rank i must
/// take in `demand_bytes[i]` bytes that exist only from `release[i]` on; a node's ranks, served
/// one after the other from the earliest release among them, finish no earlier than the k
/// smallest demands allow the k-th of them to finish. Matching those times, in order, to those
/// ranks' own bounds (a_i + per_rank[i], sorted; a rank with no demand keeps its own) gives a
/// sum of finishes no schedule beats; it returns that, less the arrivals, over P. A mean, not a bound per
/// rank: which rank of a node finishes first is the schedule's choice. node_beta <= 0 (unknown)
/// or no demand: mean(per_rank).
double node_memory_mean(std::span<const double> arrivals, std::span<const double> per_rank,
                        std::span<const int> node_of_rank, std::span<const double> demand_bytes,
                        std::span<const double> release, double node_beta);
/// node_memory_mean over the two-level bounds above, with each collective's demand: allreduce,
/// the n bytes that depend on the latest rank L, from a_L, at every rank but L; bcast, the root's
/// n bytes from a_root at every rank but the root; allgather, the P - 1 other blocks from the
/// earliest arrival; alltoall, the P - 1 blocks sent to it, from the earliest arrival.
double allreduce_mean(std::span<const double> arrivals, double bytes, std::span<const int> node_of_rank, Link rank_link,
                      Link card_link, double node_beta, Model model = Model::foreground);
double bcast_mean(std::span<const double> arrivals, int root, double bytes, std::span<const int> node_of_rank,
                  Link rank_link, Link card_link, double node_beta, Model model = Model::foreground);
double allgather_mean(std::span<const double> arrivals, double block_bytes, std::span<const int> node_of_rank,
                      Link rank_link, Link card_link, double node_beta, Model model = Model::foreground);
double alltoall_mean(std::span<const double> arrivals, double block_bytes, std::span<const int> node_of_rank,
                     Link rank_link, Link card_link, double node_beta, Model model = Model::foreground);
}  // namespace two_level

}  // namespace ragged::bound
