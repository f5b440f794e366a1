#include "common/thread_pool.h"

#include <algorithm>

namespace mallat {

int ThreadPool::hardware_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = hardware_threads();
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  take_help_from(nullptr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

// Takes items one at a time under the lock; items are coarse (a code-block,
// a tile), so the lock is not the bottleneck.
void ThreadPool::run_items() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (job_ != nullptr && next_ < count_) {
    int64_t i = next_++;
    const auto* job = job_;
    lock.unlock();
    (*job)(i);
    lock.lock();
    if (++finished_ == count_) done_.notify_all();
  }
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    run_items();
  }
}

void ThreadPool::take_help_from(HelpBoard* board) {
  if (!workers_.empty() || board == board_) return;
  if (board_ != nullptr) board_->leave(&posted_);
  board_ = board;
  if (board_ != nullptr) board_->join(&posted_);
}

void ThreadPool::parallel_for_in_pieces(int64_t count, int64_t at_once, const std::function<void(int64_t)>& fn) {
  if (count <= 0) return;
  at_once = std::max<int64_t>(1, at_once);
  parallel_for((count + at_once - 1) / at_once, [&](int64_t piece) {
    const int64_t end = std::min(count, (piece + 1) * at_once);
    for (int64_t i = piece * at_once; i < end; ++i) fn(i);
  });
}

Status ThreadPool::parallel_for_status(int64_t count, const std::function<Status(int64_t)>& fn) {
  std::mutex lowest_mutex;
  int64_t lowest = count;  // the lowest failed item so far; count: none
  Status error;
  parallel_for(count, [&](int64_t i) {
    Status s = fn(i);
    if (s.ok()) return;
    std::lock_guard<std::mutex> lock(lowest_mutex);
    if (i < lowest) {
      lowest = i;
      error = std::move(s);
    }
  });
  return error;
}

void ThreadPool::parallel_for(int64_t count, const std::function<void(int64_t)>& fn) {
  if (count <= 0) return;
  if (workers_.empty() || count == 1) {
    if (count > 1 && board_ != nullptr && board_->run(posted_, count, fn)) return;
    for (int64_t i = 0; i < count; ++i) fn(i);
    return;
  }
  const std::lock_guard<std::mutex> call(call_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &fn;
    count_ = count;
    next_ = 0;
    finished_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  run_items();
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return finished_ == count_; });
  job_ = nullptr;
}

ThreadPool& PoolOnDemand::get() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!pool_) pool_.emplace(threads_);
  return *pool_;
}

bool PoolOnDemand::started() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return pool_.has_value();
}

}  // namespace mallat
