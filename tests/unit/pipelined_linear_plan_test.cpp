// The chain plan of allreduce "pipelined_linear": segments cover the vector,
// and the per-rank programs that the algorithm runs (blocking waits, sends
// that do not block) complete for every P and segment count: no deadlock,
// every result reaches every rank.
#include "plans/pipelined_linear_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

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

// One rank's program, as allreduce_pipelined_linear runs it.
enum class Op { wait_partial, send_partial, wait_result, send_result };
struct Step {
  Op op;
  std::size_t segment;
};

std::vector<Step> program(int rank, int procs, std::size_t n) {
  std::vector<Step> out;
  if (rank == procs - 1) {
    for (std::size_t t = 0; t < n; ++t) out.push_back({Op::send_partial, t});
    for (std::size_t t = 0; t < n; ++t) out.push_back({Op::wait_result, t});
    return out;
  }
  if (rank == 0) {
    for (std::size_t t = 0; t < n; ++t) {
      out.push_back({Op::wait_partial, t});
      out.push_back({Op::send_result, t});
    }
    return out;
  }
  std::size_t forwarded = 0;
  const auto forward = [&](std::size_t upto) {
    for (; forwarded < upto; ++forwarded) {
      out.push_back({Op::wait_result, forwarded});
      out.push_back({Op::send_result, forwarded});
    }
  };
  for (std::size_t t = 0; t < n; ++t) {
    out.push_back({Op::wait_partial, t});
    out.push_back({Op::send_partial, t});
    forward(chain::forwarded_after(rank, t, n));
  }
  forward(n);
  return out;
}

TEST(PipelinedLinearPlan, ChainProgramsCompleteWithoutDeadlock) {
  for (int p = 2; p <= 64; ++p) {
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{17}, std::size_t{130}}) {
      const auto up = static_cast<std::size_t>(p);
      std::vector<std::vector<Step>> programs;
      for (int r = 0; r < p; ++r) programs.push_back(program(r, p, n));
      // partial_at[r][t]: partial t delivered to r; result_at[r][t]: result t delivered to r
      std::vector<std::vector<int>> partial_at(up, std::vector<int>(n, 0));
      std::vector<std::vector<int>> result_at(up, std::vector<int>(n, 0));
      std::vector<std::size_t> pc(up, 0);
      bool progress = true;
      while (progress) {
        progress = false;
        for (std::size_t r = 0; r < up; ++r) {
          while (pc[r] < programs[r].size()) {
            const Step s = programs[r][pc[r]];
            if (s.op == Op::wait_partial && partial_at[r][s.segment] == 0) break;
            if (s.op == Op::wait_result && result_at[r][s.segment] == 0) break;
            if (s.op == Op::send_partial) ++partial_at[r - 1][s.segment];
            if (s.op == Op::send_result) ++result_at[r + 1][s.segment];
            ++pc[r];
            progress = true;
          }
        }
      }
      for (std::size_t r = 0; r < up; ++r) {
        ASSERT_EQ(pc[r], programs[r].size()) << "deadlock: p=" << p << " n=" << n << " rank " << r;
        for (std::size_t t = 0; t < n; ++t) {
          EXPECT_EQ(partial_at[r][t], r + 1 < up ? 1 : 0);
          EXPECT_EQ(result_at[r][t], r > 0 ? 1 : 0);
        }
      }
    }
  }
}

}  // namespace
