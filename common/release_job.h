// Freeing what a call is done with on a thread kept for it (a streamed
// encode's last strips, band buffers and coded blocks:
// TileCodingSetup::release), so that the caller goes on to close and rename
// the file meanwhile.
#pragma once

#include <memory>

#include "common/job_thread.h"

namespace mallat {

// Lets `held` go in a job on `thread`: the job holds the one reference
// where the caller kept none.
void release_on(JobThread& thread, std::shared_ptr<void> held);

}  // namespace mallat
