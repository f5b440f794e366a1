#include "common/release_job.h"

#include <utility>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace mallat {

void release_on(JobThread& thread, std::shared_ptr<void> held) {
  thread.start([held = std::move(held)]() mutable {
#ifdef __linux__
    // A thread's own nice value (Linux keeps one a thread); raising it needs
    // no privilege, and again it changes nothing.
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
#endif
    held.reset();
    return Status::Ok();
  });
}

}  // namespace mallat
