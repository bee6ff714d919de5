#include "ragged/registry.hpp"

#include <gtest/gtest.h>

#include "ragged/error.hpp"

namespace ragged {
namespace test_registry_test {

TEST(Registry, KnowsEveryBaselineByName) {
  const Registry& r = Registry::instance();
  for (const char* name : {"ring", "nex", "lnbc", "bruck"})
    EXPECT_TRUE(r.contains(Collective::allgather, name)) << name;
  for (const char* name : {"ring", "rabenseifner", "recursive_doubling", "pipelined_linear"}) {
    EXPECT_TRUE(r.contains(Collective::allreduce, name)) << name;
  }
  EXPECT_TRUE(r.contains(Collective::bcast, "binomial"));
  EXPECT_TRUE(r.contains(Collective::bcast, "linear"));
  EXPECT_TRUE(r.contains(Collective::reduce, "binomial"));
  for (Collective c : {Collective::gather, Collective::scatter}) {
    EXPECT_TRUE(r.contains(c, "linear"));
    EXPECT_TRUE(r.contains(c, "binomial"));
  }
}

TEST(Registry, UnknownNameIsAnInvalidArgumentNamingTheAlgorithm) {
  try {
    (void)Registry::instance().find(Collective::allgather, "no-such");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "algorithm");
    EXPECT_NE(std::string(e.what()).find("ring"), std::string::npos) << "lists the known names";
  }
}

TEST(Registry, ParsesCollectiveNames) {
  EXPECT_EQ(parse_collective("allreduce"), Collective::allreduce);
  EXPECT_EQ(parse_collective("alltoallw"), Collective::alltoallw);
  EXPECT_THROW((void)parse_collective("neighbor_alltoallw"), InvalidArgument);
}

}  // namespace test_registry_test
}  // namespace ragged
