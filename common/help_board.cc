#include "common/help_board.h"

#include <algorithm>
#include <utility>

#include "common/timeline.h"

namespace mallat {
namespace {

// A call's state: its number above, its next item in the low 32 bits, all
// ones there once the call is closed (no count reaches it).
constexpr uint64_t kItemBits = 0xFFFFFFFFu;
constexpr int64_t kMostItems = 0x7FFFFFFF;

int64_t item_of(uint64_t state) { return static_cast<int64_t>(state & kItemBits); }

}  // namespace

HelpBoard::HelpBoard(int threads) : threads_(std::max(threads, 1)) {}

void HelpBoard::join(Call* call) {
  std::lock_guard<std::mutex> lock(mutex_);
  calls_.push_back(call);
}

void HelpBoard::leave(Call* call) {
  std::lock_guard<std::mutex> lock(mutex_);
  calls_.erase(std::remove(calls_.begin(), calls_.end(), call), calls_.end());
}

bool HelpBoard::run(Call& call, int64_t count, const std::function<void(int64_t)>& fn) {
  if (count > kMostItems || call.posted_.exchange(true)) return false;
  // No helper holds an item of the call before (the last call waited for
  // them) and none can take one until the state below opens it.
  call.helped_.store(0);
  call.tag_ = timeline::current_tag();
  call.fn_.store(&fn);
  call.count_.store(count);
  const uint64_t number = (call.state_.load() >> 32) + 1;
  call.state_.store(number << 32);
  // After the state is open: a helper that counted itself idle after this
  // load finds the call when it looks next (claim), those that did before
  // are woken, as many as the call has items besides the caller's first.
  if (const int idle = idle_.load(); idle > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int64_t k = std::min<int64_t>(idle, count - 1); k > 0; --k) items_posted_.notify_one();
  }
  int64_t own = 0;
  std::exception_ptr failed;
  for (;;) {
    const int64_t i = item_of(call.state_.fetch_add(1));
    if (i >= count) break;
    ++own;
    try {
      fn(i);
    } catch (...) {
      failed = std::current_exception();
      break;
    }
  }
  // Closed, no item is taken any more; the helpers' items are those taken
  // and not the caller's.
  const int64_t taken = std::min(count, item_of(call.state_.exchange(number << 32 | kItemBits)));
  for (int64_t h = call.helped_.load(); h != taken - own; h = call.helped_.load()) call.helped_.wait(h);
  std::exception_ptr helper_failed;
  {
    std::lock_guard<std::mutex> lock(call.error_mutex_);
    helper_failed = std::exchange(call.error_, nullptr);
  }
  call.posted_.store(false);
  if (failed) std::rethrow_exception(failed);
  if (helper_failed) std::rethrow_exception(helper_failed);
  return true;
}

// The next item of some posted call, the calls taken in turn so that
// helpers spread over the files in flight. A call's count and function
// read after its state are that state's call: a later call changes the
// state first, and the exchange then fails.
HelpBoard::Claim HelpBoard::claim() {
  const size_t n = calls_.size();
  for (size_t k = 0; k < n; ++k) {
    const size_t at = (next_call_ + k) % n;
    Call* call = calls_[at];
    uint64_t state = call->state_.load();
    while (item_of(state) < call->count_.load()) {
      if (call->state_.compare_exchange_weak(state, state + 1)) {
        next_call_ = (at + 1) % n;
        return {call, item_of(state)};
      }
    }
  }
  return {};
}

void HelpBoard::run_claimed(const Claim& claim) {
  Call& call = *claim.call;
  // The item's spans are its file's, on its lane, whichever thread runs it.
  const timeline::Tag own = timeline::current_tag();
  timeline::set_tag(call.tag_);
  try {
    (*call.fn_.load())(claim.item);
  } catch (...) {
    std::lock_guard<std::mutex> lock(call.error_mutex_);
    if (!call.error_) call.error_ = std::current_exception();
  }
  timeline::set_tag(own);
  items_helped_.fetch_add(1);
  call.helped_.fetch_add(1);
  call.helped_.notify_all();
}

void HelpBoard::coding_begins() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++coding_;
}

void HelpBoard::coding_ends() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --coding_;
  }
  threads_free_.notify_all();
}

void HelpBoard::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  items_posted_.notify_all();
  threads_free_.notify_all();
}

void HelpBoard::help() {
  // With MALLAT_TIMELINE, each stretch of items without a sleep between is
  // a span "help" of no file and of the lane the thread last coded on.
  timeline::Clock::time_point stretch{};
  bool helping = false;
  const auto stretch_ends = [&] {
    if (helping && timeline::enabled())
      timeline::record("help", stretch, timeline::Clock::now(), {-1, timeline::current_tag().lane});
    helping = false;
  };
  std::unique_lock<std::mutex> lock(mutex_);
  while (!finished_) {
    if (coding_ + helping_ >= threads_) {
      stretch_ends();
      threads_free_.wait(lock);
      continue;
    }
    // Idle before looking: an owner that posts after the look sees it and
    // wakes this thread (run).
    idle_.fetch_add(1);
    const Claim claimed = claim();
    if (!claimed.call) {
      stretch_ends();
      items_posted_.wait(lock);
      idle_.fetch_sub(1);
      continue;
    }
    idle_.fetch_sub(1);
    if (!helping && timeline::enabled()) stretch = timeline::Clock::now();
    helping = true;
    ++helping_;
    lock.unlock();
    run_claimed(claimed);
    lock.lock();
    --helping_;
  }
  stretch_ends();
}

}  // namespace mallat
