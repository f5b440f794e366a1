// The engine's batch: each item on one of `lanes + ahead` threads made for
// the batch (each takes the next item in order), read, wait for a
// free lane, code (on the lane's own thread, Lane::coder, the item's thread
// waiting), write, at most `lanes` coding at once and `lanes +
// ahead` started and not yet written, in whatever order they finish (so
// reading runs ahead of the lanes and no lane waits behind a slow item);
// each item is finished (reported) in order. A thread with no item left to
// start helps the lanes' pools of one thread with the items still coding
// (common/help_board.h), at most `lanes` threads coding at once. With
// MALLAT_TIMELINE each step is a span of its item and lane
// (common/timeline.h).
#pragma once

#include <cstddef>
#include <functional>

#include "common/status.h"
#include "engine/lanes.h"

namespace mallat::engine {

struct PipelineSteps {
  std::function<Status(size_t index)> read;
  std::function<Status(size_t index, Lane& lane)> code;
  std::function<Status(size_t index)> write;
  // After write (or the step that failed), on the item's thread: let go of
  // what the item held.
  std::function<void(size_t index)> release;
  // On the calling thread, in order.
  std::function<void(size_t index, const Status& status)> finished;
};

// Runs `count` items through `steps` on the first `lanes_used` of `lanes`;
// returns when every item is finished.
void run_pipeline(size_t count, LaneSet& lanes, int lanes_used, int ahead, const PipelineSteps& steps);

}  // namespace mallat::engine
