// Freeing what a call is done with on a thread kept for it (a streamed
// encode's strips, band buffers and coded blocks: TileCodingSetup::release)
// at that thread's lowest priority, so that it takes only time that no other
// thread of the process wants: above all not the caller's, which goes on to
// close and rename the file, and which a freeing thread woken beside it on
// a busy machine would otherwise take turns with.
#pragma once

#include <memory>

#include "common/job_thread.h"

namespace mallat {

// Lets `held` go in a job on `thread`, which first lowers its own priority
// (Linux: nice 19 for that thread alone; elsewhere it stays as it is).
void release_on(JobThread& thread, std::shared_ptr<void> held);

}  // namespace mallat
