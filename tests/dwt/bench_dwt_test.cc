// A smoke test of `mallat bench dwt` (tools/bench_dwt.cc), so that the
// benchmark keeps working: a tiny grid, CSV rows for each combination.
#include "tools/bench_dwt.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/testdata.h"

namespace mallat::tools {
namespace {

TEST(DwtBench, WritesOneCsvRowPerCombination) {
  const auto dir = mallat::testing::make_temp_dir("bench-dwt");
  const std::string csv = (dir / "dwt.csv").string();
  const int rc = bench_dwt_main({"--backend", "cpu", "--size", "64x48", "--size", "7x1", "--levels", "1",
                                 "--levels", "3", "--runs", "2", "--warmup", "0", "--threads", "2",
                                 "--csv", csv});
  ASSERT_EQ(rc, 0);
  std::ifstream in(csv);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 1 + 2 * 2 * 2 * 2);  // header + sizes x levels x wavelets x directions
}

TEST(DwtBench, RejectsBadOptions) {
  EXPECT_EQ(bench_dwt_main({"--size", "64"}), 2);
  EXPECT_EQ(bench_dwt_main({"--levels", "40"}), 2);
  EXPECT_EQ(bench_dwt_main({"--frobnicate", "1"}), 2);
}

}  // namespace
}  // namespace mallat::tools
