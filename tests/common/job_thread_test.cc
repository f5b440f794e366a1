// common/job_thread.h: jobs run one at a time in the order handed over,
// wait() gives the first error among them, and the thread takes jobs again
// after a wait.
#include "common/job_thread.h"
#include "common/release_job.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
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

// What release_on is given goes on the job thread, not the caller's.
TEST(JobThread, ReleaseOnLetsGoOnTheJobThread) {
  struct Held {
    std::thread::id* freed_on;
    ~Held() { *freed_on = std::this_thread::get_id(); }
  };
  std::thread::id freed_on;
  JobThread thread;
  release_on(thread, std::make_shared<Held>(&freed_on));  // the job's the one reference
  EXPECT_TRUE(thread.wait().ok());
  EXPECT_NE(freed_on, std::thread::id());
  EXPECT_NE(freed_on, std::this_thread::get_id());
}

}  // namespace
}  // namespace mallat
