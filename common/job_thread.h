// A thread of its own that runs jobs one at a time while the caller goes
// on: a streamed decode's strip writer, its block decoding ahead of the
// inverse DWT. std::async would start a thread per job.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "common/status.h"

namespace mallat {

// One thread, started at the first job, that runs the jobs handed to it one
// at a time, in the order given.
class JobThread {
 public:
  JobThread() = default;
  JobThread(const JobThread&) = delete;
  JobThread& operator=(const JobThread&) = delete;
  ~JobThread() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;  // after the job in hand, if any; the others are dropped
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  // Hands `job` over, to run after those handed over before it.
  void start(std::function<Status()> job) {
    const std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    changed_.notify_all();
  }

  // Waits for every job handed over: the first error among them, or OK.
  Status wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return jobs_.empty() && !running_; });
    return std::exchange(result_, Status::Ok());
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      std::function<Status()> job = std::move(jobs_.front());
      jobs_.pop_front();
      running_ = true;
      lock.unlock();
      Status s = job();
      lock.lock();
      running_ = false;
      if (result_.ok()) result_ = std::move(s);
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<Status()>> jobs_;  // handed over, not started
  bool running_ = false;
  Status result_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace mallat
