// Test support for the Träff tree tests: an in-memory network that drives one
// traff::Builder per rank level by level, as the algorithms drive them over Comm,
// and records every message so that the tests can check who talked to whom, how
// many dependent rounds it took and what each process ended up knowing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "plans/traff_tree.hpp"

namespace ragged::test {

struct Emulation {
  std::vector<plans::traff::Node> nodes;  ///< what each rank's Builder ended with
  int rounds = 0;                         ///< the longest chain of dependent messages
  int messages = 0;
  std::vector<int> sent_per_rank;
  std::vector<int> max_sent_per_level;  ///< the most messages one rank sent at one level
  std::vector<int> notices_received;    ///< per rank
};

/// Runs the distributed construction: rank i knows only sizes[i] and the messages it gets.
/// Throws std::logic_error when the protocol goes wrong (a message nobody expects, a
/// receive nobody answers, an exchange partner that does not answer in kind).
inline Emulation emulate(const std::vector<std::int64_t>& sizes, const plans::traff::Params& params) {
  namespace traff = plans::traff;
  const int p = params.procs;
  std::vector<traff::Builder> builders;
  builders.reserve(sizes.size());
  for (int i = 0; i < p; ++i) builders.emplace_back(i, sizes[static_cast<std::size_t>(i)], params);
  std::vector<int> clock(static_cast<std::size_t>(p), 0);
  Emulation out;
  out.sent_per_rank.assign(static_cast<std::size_t>(p), 0);
  out.notices_received.assign(static_cast<std::size_t>(p), 0);
  const auto fail = [](const std::string& what) { throw std::logic_error(what); };
  const int levels = traff::levels(p);
  for (int d = 0; d < levels; ++d) {
    // Roles are fixed before anything of this level happens.
    std::vector<int> exchange(static_cast<std::size_t>(p), -1);
    std::vector<int> notice(static_cast<std::size_t>(p), -1);
    for (int i = 0; i < p; ++i) {
      exchange[static_cast<std::size_t>(i)] = builders[static_cast<std::size_t>(i)].exchange_partner(d);
      if (exchange[static_cast<std::size_t>(i)] < 0)
        notice[static_cast<std::size_t>(i)] = builders[static_cast<std::size_t>(i)].notice_from(d);
    }
    std::vector<int> sent_now(static_cast<std::size_t>(p), 0);
    // Step 1: the exchanges (each message: the sender's info, one round after its clock).
    std::map<std::pair<int, int>, std::pair<traff::CubeInfo, int>> mail;
    for (int i = 0; i < p; ++i) {
      const int f = exchange[static_cast<std::size_t>(i)];
      if (f < 0) continue;
      if (exchange[static_cast<std::size_t>(f)] != i) {
        std::ostringstream os;
        os << "level " << d << ": rank " << i << " exchanges with " << f << " which exchanges with "
           << exchange[static_cast<std::size_t>(f)];
        fail(os.str());
      }
      mail[{i, f}] = {builders[static_cast<std::size_t>(i)].info(), clock[static_cast<std::size_t>(i)] + 1};
      ++sent_now[static_cast<std::size_t>(i)];
    }
    std::map<int, std::pair<int, std::pair<traff::CubeInfo, int>>> notices;  // to -> (from, (info, round))
    for (int i = 0; i < p; ++i) {
      const int f = exchange[static_cast<std::size_t>(i)];
      if (f < 0) continue;
      const auto& [info, round] = mail.at({f, i});
      int& c = clock[static_cast<std::size_t>(i)];
      c = std::max(c, round);
      const int g = builders[static_cast<std::size_t>(i)].on_exchange(d, info);
      if (g >= 0) {
        if (notices.count(g) != 0) fail("two notices to one rank at one level");
        notices[g] = {i, {info, c + 1}};
        ++sent_now[static_cast<std::size_t>(i)];
      }
    }
    // Step 2: the notices.
    for (int i = 0; i < p; ++i) {
      const int f = notice[static_cast<std::size_t>(i)];
      const auto it = notices.find(i);
      if (f < 0) {
        if (it != notices.end()) fail("a notice to a rank that expects none");
        continue;
      }
      if (it == notices.end() || it->second.first != f) {
        std::ostringstream os;
        os << "level " << d << ": rank " << i << " waits for a notice from " << f << " that never comes";
        fail(os.str());
      }
      int& c = clock[static_cast<std::size_t>(i)];
      c = std::max(c, it->second.second.second);
      builders[static_cast<std::size_t>(i)].on_notice(d, it->second.second.first);
      ++out.notices_received[static_cast<std::size_t>(i)];
    }
    int most = 0;
    for (int i = 0; i < p; ++i) {
      out.sent_per_rank[static_cast<std::size_t>(i)] += sent_now[static_cast<std::size_t>(i)];
      out.messages += sent_now[static_cast<std::size_t>(i)];
      most = std::max(most, sent_now[static_cast<std::size_t>(i)]);
    }
    out.max_sent_per_level.push_back(most);
    for (const auto& [key, value] : mail) out.rounds = std::max(out.rounds, value.second);
    for (const auto& [to, value] : notices) out.rounds = std::max(out.rounds, value.second.second);
  }
  for (const traff::Builder& b : builders) {
    if (b.gather_root() && b.rank() != params.root) fail("a rank other than the root is still a gather root");
    out.nodes.push_back(b.node());
  }
  return out;
}

/// The finish time of `v`'s gather in the 1-ported α-β model: v receives its children in
/// level order, each as soon as both are ready; with `copy`, v first copies its own block
/// at cost β m_v (lemma 4). Empty messages cost nothing.
inline double model_finish(const std::vector<plans::traff::Node>& tree, const std::vector<std::int64_t>& sizes, int v,
                           double alpha, double beta, bool copy) {
  double t = copy ? beta * static_cast<double>(sizes[static_cast<std::size_t>(v)]) : 0.0;
  for (const plans::traff::Child& c : tree[static_cast<std::size_t>(v)].children) {
    const double ready = model_finish(tree, sizes, c.rank, alpha, beta, copy);
    if (c.elements == 0) continue;
    t = std::max(t, ready) + alpha + beta * static_cast<double>(c.elements);
  }
  return t;
}

}  // namespace ragged::test

namespace ragged::plans::traff {

inline std::ostream& operator<<(std::ostream& os, const Child& c) {
  return os << "{rank " << c.rank << " level " << c.level << " elements " << c.elements
            << (c.below ? " below" : " above") << " [" << c.cube.first << "," << c.cube.last << "]}";
}

inline std::ostream& operator<<(std::ostream& os, const Node& n) {
  os << "{parent " << n.parent << " level " << n.level << (n.direct ? " direct" : "") << " carried " << n.carried
     << " children";
  for (const Child& c : n.children) os << " " << c;
  return os << "}";
}

}  // namespace ragged::plans::traff
