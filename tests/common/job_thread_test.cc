// common/job_thread.h: jobs run one at a time in the order handed over,
// wait() gives the first error among them, and the thread takes jobs again
// after a wait.
#include "common/job_thread.h"

#include <gtest/gtest.h>

#include <vector>

namespace mallat {
namespace {

TEST(JobThread, RunsJobsInOrderAndGivesTheFirstError) {
  JobThread thread;
  std::vector<int> order;  // written by the job thread only, read after wait()
  for (int i = 0; i < 5; ++i)
    thread.start([&order, i]() -> Status {
      order.push_back(i);
      return i == 2 ? internal_error("two") : i == 3 ? internal_error("three") : Status::Ok();
    });
  const Status first = thread.wait();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(first.message(), "two");
  thread.start([&order]() -> Status {
    order.push_back(5);
    return Status::Ok();
  });
  EXPECT_TRUE(thread.wait().ok());
  EXPECT_EQ(order.size(), 6u);
  EXPECT_TRUE(thread.wait().ok());  // nothing handed over
}

}  // namespace
}  // namespace mallat
