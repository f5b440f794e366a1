#include "common/release_job.h"

#include <utility>

namespace mallat {

void release_on(JobThread& thread, std::shared_ptr<void> held) {
  thread.start([held = std::move(held)]() mutable {
    held.reset();
    return Status::Ok();
  });
}

}  // namespace mallat
