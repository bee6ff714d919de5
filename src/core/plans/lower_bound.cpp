// Lower bounds on each rank's elapsed time from what its links must carry (lower_bound.hpp).
#include "plans/lower_bound.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace ragged::bound {

const char* name_of(Model model) { return model == Model::background ? "background" : "foreground"; }

double link_finish(std::span<const Transfer> transfers, Link link) {
  struct Ready {
    double at;
    double bytes;
  };
  std::vector<Ready> t;
  t.reserve(transfers.size());
  for (const Transfer& x : transfers) {
    if (x.bytes > 0) t.push_back({x.release_s + (x.latency_s >= 0 ? x.latency_s : link.alpha), x.bytes});
  }
  if (t.empty()) return -std::numeric_limits<double>::infinity();
  // Latest ready time first: the suffix sums of formula (1) accumulate as t goes down.
  std::sort(t.begin(), t.end(), [](const Ready& a, const Ready& b) { return a.at > b.at; });
  double finish = -std::numeric_limits<double>::infinity();
  double bytes = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    bytes += t[k].bytes;
    // Evaluate at each distinct ready time, once all transfers ready then are counted.
    if (k + 1 == t.size() || t[k + 1].at != t[k].at) finish = std::max(finish, t[k].at + link.beta * bytes);
  }
  return finish;
}

namespace {

/// Rank i's bound: the later of its links' finishes, minus its arrival, at least 0.
double elapsed(double arrival, double receive_finish, double send_finish) {
  const double f = std::max(receive_finish, send_finish);
  return std::isfinite(f) ? std::max(0.0, f - arrival) : 0.0;
}

/// The earliest arrival among the ranks other than i (infinity for P = 1).
double earliest_other(std::span<const double> a, std::size_t i) {
  double e = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (j != i) e = std::min(e, a[j]);
  }
  return e;
}

/// The latest arrival among the ranks other than i (-infinity for P = 1).
double latest_other(std::span<const double> a, std::size_t i) {
  double l = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (j != i) l = std::max(l, a[j]);
  }
  return l;
}

/// When data released at `release` may start into a rank that arrives at `arrival`: in the
/// foreground model not before the rank is there, in the background model at once (its agent).
double into(double arrival, double release, Model model) {
  return model == Model::background ? release : std::max(arrival, release);
}

/// When rank i's own data may start to leave it: from its arrival, and in the foreground model
/// not before some other rank is there to take it.
double out_from(std::span<const double> a, std::size_t i, Model model) {
  return model == Model::background ? a[i] : std::max(a[i], earliest_other(a, i));
}

enum class Toward { root, ranks };

/// The bound of a rooted irregular call: toward the root (gatherv) every other rank j sends its
/// block and the root receives them all, toward the ranks (scatterv) the reverse. Block j reaches
/// its receiver from the later of the two ends' arrivals on; it may leave its sender through any
/// rank that has arrived (a binomial tree's inner ranks), so from the later of the sender's
/// arrival and the earliest other one.
std::vector<double> rooted(std::span<const double> arrivals, int root, std::span<const double> block_bytes, Link link,
                           Toward toward, Model model, std::span<const double> latency_s) {
  const std::size_t p = arrivals.size();
  assert(block_bytes.size() == p && root >= 0 && static_cast<std::size_t>(root) < p);
  assert(latency_s.empty() || latency_s.size() == p);
  const auto latency = [&](std::size_t j) { return latency_s.empty() ? -1.0 : std::max(latency_s[j], link.alpha); };
  const auto r = static_cast<std::size_t>(root);
  constexpr double none = -std::numeric_limits<double>::infinity();
  std::vector<double> out(p, 0.0);
  if (p < 2) return out;
  std::vector<Transfer> at_root;
  for (std::size_t j = 0; j < p; ++j) {
    if (j == r) continue;
    if (toward == Toward::root) {
      at_root.push_back({into(arrivals[r], arrivals[j], model), block_bytes[j], latency(j)});
      const Transfer own{out_from(arrivals, j, model), block_bytes[j]};
      out[j] = elapsed(arrivals[j], none, link_finish({&own, 1}, link));
    } else {
      at_root.push_back({out_from(arrivals, r, model), block_bytes[j]});
      const Transfer met{into(arrivals[j], arrivals[r], model), block_bytes[j], latency(j)};
      out[j] = elapsed(arrivals[j], link_finish({&met, 1}, link), none);
    }
  }
  const double finish = link_finish(at_root, link);
  out[r] = toward == Toward::root ? elapsed(arrivals[r], finish, none) : elapsed(arrivals[r], none, finish);
  return out;
}

}  // namespace

std::vector<double> allgatherv(std::span<const double> arrivals, std::span<const double> block_bytes, Link link,
                               Model model) {
  assert(arrivals.size() == block_bytes.size());
  const std::size_t p = arrivals.size();
  std::vector<double> out(p, 0.0);
  if (p < 2) return out;
  std::vector<Transfer> in;
  for (std::size_t i = 0; i < p; ++i) {
    in.clear();
    for (std::size_t j = 0; j < p; ++j) {
      if (j != i) in.push_back({into(arrivals[i], arrivals[j], model), block_bytes[j]});
    }
    const Transfer own{out_from(arrivals, i, model), block_bytes[i]};
    out[i] = elapsed(arrivals[i], link_finish(in, link), link_finish({&own, 1}, link));
  }
  return out;
}

std::vector<double> allgather(std::span<const double> arrivals, double block_bytes, Link link, Model model) {
  const std::vector<double> blocks(arrivals.size(), block_bytes);
  return allgatherv(arrivals, blocks, link, model);
}

std::vector<double> allreduce(std::span<const double> arrivals, double bytes, Link link, Model model) {
  const std::size_t p = arrivals.size();
  std::vector<double> out(p, 0.0);
  if (p < 2) return out;
  for (std::size_t i = 0; i < p; ++i) {
    const Transfer in{into(arrivals[i], latest_other(arrivals, i), model), bytes};
    const Transfer own{out_from(arrivals, i, model), bytes};
    out[i] = elapsed(arrivals[i], link_finish({&in, 1}, link), link_finish({&own, 1}, link));
  }
  return out;
}

std::vector<double> bcast(std::span<const double> arrivals, int root, double bytes, Link link, Model model) {
  const std::size_t p = arrivals.size();
  assert(root >= 0 && static_cast<std::size_t>(root) < p);
  const auto r = static_cast<std::size_t>(root);
  std::vector<double> out(p, 0.0);
  if (p < 2) return out;
  for (std::size_t i = 0; i < p; ++i) {
    if (i == r) {
      const Transfer sent{out_from(arrivals, r, model), bytes};
      out[i] = elapsed(arrivals[r], -std::numeric_limits<double>::infinity(), link_finish({&sent, 1}, link));
    } else {
      const Transfer in{into(arrivals[i], arrivals[r], model), bytes};
      out[i] = elapsed(arrivals[i], link_finish({&in, 1}, link), -std::numeric_limits<double>::infinity());
    }
  }
  return out;
}

std::vector<double> alltoallv_clusters(std::span<const double> arrivals, const std::vector<std::vector<double>>& bytes,
                                       std::span<const int> cluster, const std::vector<std::vector<double>>& latency_s,
                                       Link link, Model model) {
  const std::size_t p = arrivals.size();
  assert(bytes.size() == p && cluster.size() == p);
  const auto latency = [&](std::size_t from, std::size_t to) {
    const double l = latency_s[static_cast<std::size_t>(cluster[from])][static_cast<std::size_t>(cluster[to])];
    return std::max(l, link.alpha);
  };
  std::vector<double> out(p, 0.0);
  std::vector<Transfer> in;
  std::vector<Transfer> sent;
  for (std::size_t i = 0; i < p; ++i) {
    in.clear();
    sent.clear();
    // What i sends may go through any rank that has arrived (Bruck forwards), not only its
    // destination: it can leave from the earliest other arrival on.
    const double leaves = out_from(arrivals, i, model);
    for (std::size_t j = 0; j < p; ++j) {
      if (j == i) continue;
      in.push_back({into(arrivals[i], arrivals[j], model), bytes[j][i], latency(j, i)});
      // What i sends occupies its own link from the start: the latency is the far end's.
      sent.push_back({leaves, bytes[i][j]});
    }
    out[i] = elapsed(arrivals[i], link_finish(in, link), link_finish(sent, link));
  }
  return out;
}

std::vector<double> alltoallv(std::span<const double> arrivals, const std::vector<std::vector<double>>& bytes,
                              Link link, Model model) {
  // One cluster: every message the link's latency.
  const std::vector<int> one(arrivals.size(), 0);
  return alltoallv_clusters(arrivals, bytes, one, {{link.alpha}}, link, model);
}

std::vector<double> alltoall(std::span<const double> arrivals, double block_bytes, Link link, Model model) {
  const std::size_t p = arrivals.size();
  const std::vector<std::vector<double>> bytes(p, std::vector<double>(p, block_bytes));
  return alltoallv(arrivals, bytes, link, model);
}

std::vector<double> gatherv(std::span<const double> arrivals, int root, std::span<const double> block_bytes, Link link,
                            Model model, std::span<const double> latency_s) {
  return rooted(arrivals, root, block_bytes, link, Toward::root, model, latency_s);
}

std::vector<double> scatterv(std::span<const double> arrivals, int root, std::span<const double> block_bytes, Link link,
                             Model model, std::span<const double> latency_s) {
  return rooted(arrivals, root, block_bytes, link, Toward::ranks, model, latency_s);
}

namespace two_level {

namespace {

/// What node `n`'s card receives when every rank of the node needs `bytes_from(j)` bytes that
/// only rank j outside the node holds, each released at `release(j)` outside: the transfers, at
/// the later of that release and the earliest arrival in the node (background: at the release).
template <class Bytes, class Release>
double card_receive_finish(std::span<const double> a, std::span<const int> node, int n, Bytes bytes_from,
                           Release release, Link card, Model model) {
  double first_in = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (node[k] == n) first_in = std::min(first_in, a[k]);
  }
  std::vector<Transfer> in;
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (node[j] != n) in.push_back({into(first_in, release(j), model), bytes_from(j)});
  }
  return link_finish(in, card);
}

/// Rank i's bound: the later of its one-level bound and its node's card finish (from `card_of`).
template <class CardFinish>
std::vector<double> combine(std::span<const double> a, std::span<const int> node, std::vector<double> one_level,
                            CardFinish card_of) {
  assert(node.size() == a.size());
  std::vector<std::pair<int, double>> known;  // node, card finish
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto it = std::find_if(known.begin(), known.end(), [&](const auto& k) { return k.first == node[i]; });
    const double card = it != known.end() ? it->second : known.emplace_back(node[i], card_of(node[i])).second;
    if (std::isfinite(card)) one_level[i] = std::max(one_level[i], card - a[i]);
  }
  return one_level;
}

}  // namespace

std::vector<double> allgather(std::span<const double> arrivals, double block_bytes, std::span<const int> node_of_rank,
                              Link rank_link, Link card_link, Model model) {
  return combine(arrivals, node_of_rank, bound::allgather(arrivals, block_bytes, rank_link, model), [&](int n) {
    return card_receive_finish(
        arrivals, node_of_rank, n, [&](std::size_t) { return block_bytes; }, [&](std::size_t j) { return arrivals[j]; },
        card_link, model);
  });
}

std::vector<double> allreduce(std::span<const double> arrivals, double bytes, std::span<const int> node_of_rank,
                              Link rank_link, Link card_link, Model model) {
  return combine(arrivals, node_of_rank, bound::allreduce(arrivals, bytes, rank_link, model), [&](int n) {
    // Every element of the result depends on the latest rank outside the node, L: the node takes
    // in the n bytes once, from a_L on (one transfer of n bytes from L's side).
    double latest = -std::numeric_limits<double>::infinity();
    std::size_t l = 0;
    for (std::size_t j = 0; j < arrivals.size(); ++j) {
      if (node_of_rank[j] != n && arrivals[j] > latest) {
        latest = arrivals[j];
        l = j;
      }
    }
    if (!std::isfinite(latest)) return -std::numeric_limits<double>::infinity();
    return card_receive_finish(
        arrivals, node_of_rank, n, [&](std::size_t j) { return j == l ? bytes : 0.0; },
        [&](std::size_t) { return latest; }, card_link, model);
  });
}

std::vector<double> bcast(std::span<const double> arrivals, int root, double bytes, std::span<const int> node_of_rank,
                          Link rank_link, Link card_link, Model model) {
  const auto r = static_cast<std::size_t>(root);
  return combine(arrivals, node_of_rank, bound::bcast(arrivals, root, bytes, rank_link, model), [&](int n) {
    return card_receive_finish(
        arrivals, node_of_rank, n, [&](std::size_t j) { return j == r ? bytes : 0.0; },
        [&](std::size_t) { return arrivals[r]; }, card_link, model);
  });
}

std::vector<double> alltoall(std::span<const double> arrivals, double block_bytes, std::span<const int> node_of_rank,
                             Link rank_link, Link card_link, Model model) {
  return combine(arrivals, node_of_rank, bound::alltoall(arrivals, block_bytes, rank_link, model), [&](int n) {
    // The ranks of the node each need one block from every rank outside it.
    double inside = 0;
    for (const int k : node_of_rank) inside += k == n ? 1 : 0;
    return card_receive_finish(
        arrivals, node_of_rank, n, [&](std::size_t) { return inside * block_bytes; },
        [&](std::size_t j) { return arrivals[j]; }, card_link, model);
  });
}

double node_memory_mean(std::span<const double> arrivals, std::span<const double> per_rank,
                        std::span<const int> node_of_rank, std::span<const double> demand_bytes,
                        std::span<const double> release, double node_beta) {
  assert(per_rank.size() == arrivals.size() && node_of_rank.size() == arrivals.size());
  assert(demand_bytes.size() == arrivals.size() && release.size() == arrivals.size());
  if (arrivals.empty()) return 0;
  if (!(node_beta > 0)) return mean(per_rank);
  double sum = 0;  // of the finishes, absolute
  std::vector<int> nodes(node_of_rank.begin(), node_of_rank.end());
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  for (const int n : nodes) {
    std::vector<double> own;      // a_i + per_rank[i] of the node's ranks with a demand
    std::vector<double> demands;  // theirs
    double first = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
      if (node_of_rank[i] != n) continue;
      if (!(demand_bytes[i] > 0)) {
        sum += arrivals[i] + per_rank[i];  // nothing to take in: its own bound
        continue;
      }
      own.push_back(arrivals[i] + per_rank[i]);
      demands.push_back(demand_bytes[i]);
      first = std::min(first, release[i]);
    }
    std::sort(own.begin(), own.end());
    std::sort(demands.begin(), demands.end());
    // The k-th of them to finish is done no earlier than the k smallest demands served from
    // `first`; the k-th smallest own bound with the k-th served time is the least matching.
    double served = first;
    for (std::size_t k = 0; k < own.size(); ++k) {
      served += demands[k] * node_beta;
      sum += std::max(own[k], served);
    }
  }
  for (const double a : arrivals) sum -= a;
  return sum / static_cast<double>(arrivals.size());
}

double allreduce_mean(std::span<const double> arrivals, double bytes, std::span<const int> node_of_rank, Link rank_link,
                      Link card_link, double node_beta, Model model) {
  const std::vector<double> per_rank = allreduce(arrivals, bytes, node_of_rank, rank_link, card_link, model);
  if (arrivals.empty()) return 0;
  const auto last = static_cast<std::size_t>(std::max_element(arrivals.begin(), arrivals.end()) - arrivals.begin());
  std::vector<double> demand(arrivals.size(), bytes);
  demand[last] = 0;
  const std::vector<double> release(arrivals.size(), arrivals[last]);
  return node_memory_mean(arrivals, per_rank, node_of_rank, demand, release, node_beta);
}

double bcast_mean(std::span<const double> arrivals, int root, double bytes, std::span<const int> node_of_rank,
                  Link rank_link, Link card_link, double node_beta, Model model) {
  const std::vector<double> per_rank = bcast(arrivals, root, bytes, node_of_rank, rank_link, card_link, model);
  if (arrivals.empty()) return 0;
  const auto r = static_cast<std::size_t>(root);
  std::vector<double> demand(arrivals.size(), bytes);
  demand[r] = 0;
  const std::vector<double> release(arrivals.size(), arrivals[r]);
  return node_memory_mean(arrivals, per_rank, node_of_rank, demand, release, node_beta);
}

namespace {
/// Every rank takes in the P - 1 blocks of `block_bytes` the others hold (allgather: their own;
/// alltoall: the one each sends it), none before the earliest arrival.
double others_blocks_mean(std::span<const double> arrivals, const std::vector<double>& per_rank, double block_bytes,
                          std::span<const int> node_of_rank, double node_beta) {
  if (arrivals.empty()) return 0;
  const double others = static_cast<double>(arrivals.size() - 1) * block_bytes;
  const std::vector<double> demand(arrivals.size(), others);
  const std::vector<double> release(arrivals.size(), *std::min_element(arrivals.begin(), arrivals.end()));
  return node_memory_mean(arrivals, per_rank, node_of_rank, demand, release, node_beta);
}
}  // namespace

double allgather_mean(std::span<const double> arrivals, double block_bytes, std::span<const int> node_of_rank,
                      Link rank_link, Link card_link, double node_beta, Model model) {
  return others_blocks_mean(arrivals, allgather(arrivals, block_bytes, node_of_rank, rank_link, card_link, model),
                            block_bytes, node_of_rank, node_beta);
}

double alltoall_mean(std::span<const double> arrivals, double block_bytes, std::span<const int> node_of_rank,
                     Link rank_link, Link card_link, double node_beta, Model model) {
  return others_blocks_mean(arrivals, alltoall(arrivals, block_bytes, node_of_rank, rank_link, card_link, model),
                            block_bytes, node_of_rank, node_beta);
}

}  // namespace two_level

double mean(std::span<const double> bounds) {
  if (bounds.empty()) return 0;
  double s = 0;
  for (double b : bounds) s += b;
  return s / static_cast<double>(bounds.size());
}

}  // namespace ragged::bound
