// The pieces the step schedules share (plans/step_program.hpp): booking the ring's transfers
// into per-rank programs gives every rank one send and one receive a step, for P up to 300;
// first_send() finds a program's first send; empty_schedule() rejects arrival times that are
// not finite; keep_only() keeps one rank's program.
#include "plans/step_program.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "ragged/error.hpp"

namespace ragged::plans::steps {
namespace test_step_program_test {

struct Step {
  int step = 0;
  int send_to = -1;
  int send_segment = -1;
  int recv_from = -1;
  int recv_segment = -1;
};

struct Schedule {
  int procs = 0;
  std::vector<std::vector<int>> steps;
  std::vector<std::vector<Step>> programs;
};

// keep_only leaves rank r's program as it was and nothing of the others' or of the steps.
TEST(StepProgram, KeepOnlyKeepsOneRanksProgram) {
  for (int procs : {1, 2, 7}) {
    for (int r = 0; r < procs; ++r) {
      Schedule s = empty_schedule<Schedule>(std::vector<double>(static_cast<std::size_t>(procs), 0.0));
      for (int j = 0; j + 1 < procs; ++j) {
        s.steps.emplace_back();
        for (int i = 0; i < procs; ++i) {
          (void)book(s.programs, j, i, (i + 1) % procs, ((i - j) % procs + procs) % procs);
          s.steps.back().push_back(i);
        }
      }
      const std::vector<Step> before = s.programs[static_cast<std::size_t>(r)];
      keep_only(s, r);
      EXPECT_TRUE(s.steps.empty());
      ASSERT_EQ(s.programs.size(), static_cast<std::size_t>(procs));
      const std::vector<Step>& after = s.programs[static_cast<std::size_t>(r)];
      ASSERT_EQ(after.size(), before.size());
      for (std::size_t k = 0; k < after.size(); ++k) {
        EXPECT_EQ(after[k].send_to, before[k].send_to);
        EXPECT_EQ(after[k].send_segment, before[k].send_segment);
        EXPECT_EQ(after[k].recv_from, before[k].recv_from);
        EXPECT_EQ(after[k].recv_segment, before[k].recv_segment);
      }
      for (int q = 0; q < procs; ++q) {
        if (q != r) EXPECT_TRUE(s.programs[static_cast<std::size_t>(q)].empty()) << q;
      }
    }
  }
}

TEST(StepProgram, TheRingBookedStepByStepGivesEveryRankEverySegment) {
  for (int procs = 1; procs <= 300; ++procs) {
    Schedule s = empty_schedule<Schedule>(std::vector<double>(static_cast<std::size_t>(procs), 0.0));
    ASSERT_EQ(s.procs, procs);
    ASSERT_EQ(s.programs.size(), static_cast<std::size_t>(procs));
    for (int j = 0; j + 1 < procs; ++j) {
      for (int i = 0; i < procs; ++i) {
        const Step& got = book(s.programs, j, i, (i + 1) % procs, ((i - j) % procs + procs) % procs);
        ASSERT_EQ(got.step, j);
        ASSERT_EQ(got.recv_from, i);
      }
    }
    for (int r = 0; r < procs; ++r) {
      const std::vector<Step>& program = s.programs[static_cast<std::size_t>(r)];
      ASSERT_EQ(program.size(), static_cast<std::size_t>(procs - 1));
      std::vector<char> have(static_cast<std::size_t>(procs), 0);
      have[static_cast<std::size_t>(r)] = 1;
      for (std::size_t k = 0; k < program.size(); ++k) {
        const Step& st = program[k];
        ASSERT_EQ(st.step, static_cast<int>(k));  // one entry a step, in order
        ASSERT_EQ(st.send_to, (r + 1) % procs);
        ASSERT_EQ(st.recv_from, (r - 1 + procs) % procs);
        ASSERT_TRUE(have[static_cast<std::size_t>(st.send_segment)]);  // forwards only what it holds
        have[static_cast<std::size_t>(st.recv_segment)] = 1;
      }
      for (char h : have) ASSERT_TRUE(h);
      ASSERT_EQ(first_send(program), 0U);  // every ring step sends
    }
  }
}

TEST(StepProgram, FirstSendSkipsReceiveOnlySteps) {
  std::vector<Step> program(3);
  EXPECT_EQ(first_send(program), 3U);
  program[1].send_to = 4;
  EXPECT_EQ(first_send(program), 1U);
  program[0].send_to = 2;
  EXPECT_EQ(first_send(program), 0U);
  EXPECT_EQ(first_send(std::vector<Step>{}), 0U);
}

TEST(StepProgram, ArrivalTimesMustBeFinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const std::vector<double>& bad : {std::vector<double>{0, nan}, std::vector<double>{inf, 0, 1}}) {
    try {
      (void)empty_schedule<Schedule>(bad);
      FAIL() << "accepted a time that is not finite";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), "arrivals");
    }
  }
  EXPECT_NO_THROW((void)empty_schedule<Schedule>(std::vector<double>{}));
}

}  // namespace test_step_program_test
}  // namespace ragged::plans::steps
