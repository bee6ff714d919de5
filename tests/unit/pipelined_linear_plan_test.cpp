// The chain plan of allreduce "pipelined_linear": segments cover the vector,
// and the per-rank programs that the algorithm runs (blocking receives, sends
// that complete once matched, the send window) complete for every P up to 48
// and several segment counts: no deadlock, every segment sent once per hop.
#include "plans/pipelined_linear_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace test_pipelined_linear_plan_test {

namespace chain = ragged::plans::chain;

namespace {

TEST(PipelinedLinearPlan, SegmentsCoverTheVector) {
  for (std::size_t esize : {std::size_t{1}, std::size_t{4}, std::size_t{8}}) {
    const std::size_t per = chain::segment_elements(esize);
    EXPECT_EQ(per * esize, chain::segment_bytes);
    for (std::size_t count : {std::size_t{1}, per - 1, per, per + 1, 10 * per + 3, std::size_t{100003}}) {
      const std::size_t n = chain::segments(count, per);
      std::size_t next = 0;
      for (std::size_t t = 0; t < n; ++t) {
        EXPECT_EQ(chain::segment_first(t, per), next);
        const std::size_t len = chain::segment_size(count, t, per);
        EXPECT_GT(len, 0U);
        EXPECT_LE(len, per);
        next += len;
      }
      EXPECT_EQ(next, count);
    }
  }
  EXPECT_EQ(chain::segment_elements(chain::segment_bytes * 2), 1U);
}

TEST(PipelinedLinearPlan, ForwardingStartsAfterTheRoundTrip) {
  EXPECT_EQ(chain::forwarded_after(1, 0, 10), 0U);
  EXPECT_EQ(chain::forwarded_after(1, 1, 10), 0U);
  EXPECT_EQ(chain::forwarded_after(1, 2, 10), 1U);
  EXPECT_EQ(chain::forwarded_after(3, 9, 10), 4U);
  EXPECT_EQ(chain::forwarded_after(0, 20, 10), 10U);
}

// One rank's program, step for step as allreduce_pipelined_linear runs it. Receives of partial
// segments are posted up front (every rank but P-1); a receive of a result is posted by the
// post_result_recv step. A message arrives once its send and its receive are both posted, and a
// send completes then too (rendezvous).
enum class Op { wait_partial, send_partial, partial_sent, post_result_recv, wait_result, send_result, result_sent };
struct Step {
  Op op;
  std::size_t segment;
};

std::vector<Step> program(int rank, int procs, std::size_t n) {
  std::vector<Step> out;
  const std::size_t w = chain::send_window;
  const auto send = [&](Op op, Op sent, std::size_t t) {
    if (t >= w) out.push_back({sent, t - w});
    out.push_back({op, t});
  };
  const auto drain = [&](Op sent) {
    for (std::size_t t = 0; t < n; ++t) out.push_back({sent, t});
  };
  if (rank == procs - 1) {
    for (std::size_t t = 0; t < n; ++t) {
      send(Op::send_partial, Op::partial_sent, t);
      out.push_back({Op::post_result_recv, t});
    }
    drain(Op::partial_sent);
    for (std::size_t t = 0; t < n; ++t) out.push_back({Op::wait_result, t});
    return out;
  }
  if (rank == 0) {
    for (std::size_t t = 0; t < n; ++t) {
      out.push_back({Op::wait_partial, t});
      send(Op::send_result, Op::result_sent, t);
    }
    drain(Op::result_sent);
    return out;
  }
  std::size_t forwarded = 0;
  const auto forward = [&](std::size_t upto) {
    for (; forwarded < upto; ++forwarded) {
      out.push_back({Op::wait_result, forwarded});
      send(Op::send_result, Op::result_sent, forwarded);
    }
  };
  for (std::size_t t = 0; t < n; ++t) {
    out.push_back({Op::wait_partial, t});
    send(Op::send_partial, Op::partial_sent, t);
    out.push_back({Op::post_result_recv, t});
    forward(chain::forwarded_after(rank, t, n));
  }
  forward(n);
  drain(Op::partial_sent);
  drain(Op::result_sent);
  return out;
}

TEST(PipelinedLinearPlan, ChainProgramsCompleteWithoutDeadlock) {
  for (int p = 2; p <= 48; ++p) {
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{17}, std::size_t{130}}) {
      const auto up = static_cast<std::size_t>(p);
      std::vector<std::vector<Step>> programs;
      programs.reserve(up);
      for (int r = 0; r < p; ++r) programs.push_back(program(r, p, n));
      using Flags = std::vector<std::vector<char>>;
      Flags partial_sent(up, std::vector<char>(n, 0));   // [sender][t] posted
      Flags partial_recvd(up, std::vector<char>(n, 0));  // [receiver][t] posted
      Flags result_sent(up, std::vector<char>(n, 0));
      Flags result_recvd(up, std::vector<char>(n, 0));
      for (std::size_t r = 0; r + 1 < up; ++r) partial_recvd[r].assign(n, 1);
      std::vector<std::size_t> pc(up, 0);
      bool progress = true;
      while (progress) {
        progress = false;
        for (std::size_t r = 0; r < up; ++r) {
          while (pc[r] < programs[r].size()) {
            const auto [op, t] = programs[r][pc[r]];
            bool ready = true;
            switch (op) {
              case Op::wait_partial:
                ready = partial_sent[r + 1][t] != 0;
                break;
              case Op::partial_sent:
                ready = partial_recvd[r - 1][t] != 0;
                break;
              case Op::wait_result:
                ready = result_recvd[r][t] != 0 && result_sent[r - 1][t] != 0;
                break;
              case Op::result_sent:
                ready = result_recvd[r + 1][t] != 0;
                break;
              case Op::send_partial:
                partial_sent[r][t] = 1;
                break;
              case Op::send_result:
                result_sent[r][t] = 1;
                break;
              case Op::post_result_recv:
                result_recvd[r][t] = 1;
                break;
            }
            if (!ready) break;
            ++pc[r];
            progress = true;
          }
        }
      }
      for (std::size_t r = 0; r < up; ++r) {
        ASSERT_EQ(pc[r], programs[r].size()) << "deadlock: p=" << p << " n=" << n << " rank " << r;
        for (std::size_t t = 0; t < n; ++t) {
          EXPECT_EQ(partial_sent[r][t], r > 0 ? 1 : 0) << "every rank but 0 sends each partial once";
          EXPECT_EQ(result_sent[r][t], r + 1 < up ? 1 : 0) << "every rank but P-1 sends each result once";
        }
      }
    }
  }
}

}  // namespace

}  // namespace test_pipelined_linear_plan_test
