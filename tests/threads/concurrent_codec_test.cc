// The public API called from many threads at once, as the Python module does
// with the GIL released: each call owns its options, pools and buffers, so
// eight threads encoding and decoding together must give the bytes and
// samples of one call at a time. tools/tsan_check.sh builds and runs this
// test under ThreadSanitizer, which reports any data race between the calls.
#include <gtest/gtest.h>

#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include "codec/codec.h"
#include "tests/interop/generated.h"

namespace mallat::codec {
namespace {

constexpr int kCallers = 8;

struct Job {
  Image image;
  EncodeOptions encode;
  std::vector<uint8_t> bytes;  // one call at a time
  Image decoded;
};

// Eight different jobs: lossless and lossy, tiles, JP2, 1..4 components,
// each call with its own pool of two threads.
std::vector<Job> make_jobs() {
  std::vector<Job> jobs(kCallers);
  for (int i = 0; i < kCallers; ++i) {
    Job& job = jobs[i];
    job.image = testing::generated_image(40 + 8 * i, 36 + 4 * i, 1 + i % 4, i % 2 ? 8 : 12, i % 3 == 2, i + 1);
    job.encode.threads = 2;
    job.encode.resolutions = 3 + i % 3;
    if (i % 4 == 1) {
      job.encode.reversible = false;
      job.encode.rate_kind = EncodeOptions::RateKind::kBitsPerPixel;
      job.encode.rate_values = {1.5};
    }
    if (i % 4 == 2) job.encode.tile_width = job.encode.tile_height = 24;
    if (i % 4 == 3) job.encode.container = Container::kJp2;
  }
  return jobs;
}

DecodeOptions decode_options() {
  DecodeOptions o;
  o.threads = 2;
  return o;
}

TEST(ConcurrentCodec, EightCallersGetTheResultsOfOneAtATime) {
  std::vector<Job> jobs = make_jobs();
  for (Job& job : jobs) {
    auto bytes = encode(job.image, job.encode);
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    job.bytes = std::move(bytes).value();
    auto decoded = decode(job.bytes, decode_options());
    ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
    job.decoded = std::move(decoded).value();
  }

  std::vector<std::string> failures(kCallers);
  std::barrier start(kCallers);
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] {
      const Job& job = jobs[i];
      start.arrive_and_wait();  // all eight begin together
      for (int round = 0; round < 2; ++round) {
        auto bytes = encode(job.image, job.encode);
        if (!bytes.ok() || *bytes != job.bytes) {
          failures[i] = "encode differs: " + bytes.status().to_string();
          return;
        }
        auto decoded = decode(*bytes, decode_options());
        if (!decoded.ok()) {
          failures[i] = "decode failed: " + decoded.status().to_string();
          return;
        }
        for (int c = 0; c < job.decoded.num_components(); ++c)
          if (decoded->components[c].samples != job.decoded.components[c].samples) failures[i] = "decode differs";
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int i = 0; i < kCallers; ++i) EXPECT_EQ(failures[i], "") << "caller " << i;
}

}  // namespace
}  // namespace mallat::codec
