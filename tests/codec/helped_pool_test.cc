// A pool of one thread helped by other threads (ThreadPool::take_help_from,
// common/help_board.h), as a batch's lanes are at its end: encode() and
// encode_streamed() write the bytes, decode() and decode_streamed() give the
// samples, of the same pool unhelped, for HT and Part 1, reversible and
// not, the helpers having run some of the calls' items.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "codec/decoder/decode_call.h"
#include "codec/encoder/encode_call.h"
#include "tests/common/helped_pool.h"
#include "tests/codec/encode_streamed_rows.h"
#include "tests/codec/joined_strips.h"

namespace mallat::codec {
namespace {

std::vector<EncodeOptions> variants() {
  std::vector<EncodeOptions> all;
  for (const bool ht : {true, false}) {
    for (const bool reversible : {true, false}) {
      EncodeOptions o;
      o.threads = 1;
      o.resolutions = 4;
      o.style.ht = ht;
      o.xcb = o.ycb = 5;  // more code-blocks to share
      o.reversible = reversible;
      if (!reversible) {
        o.rate_kind = EncodeOptions::RateKind::kRatio;
        o.rate_values = ht ? std::vector<double>{12} : std::vector<double>{20, 8};
      }
      all.push_back(o);
    }
  }
  return all;
}

std::string name_of(const EncodeOptions& o) {
  return std::string(o.style.ht ? "HT" : "Part 1") +
         (o.reversible ? " reversible" : " irreversible");
}

TEST(HelpedPool, EncodesAndDecodesAsThePoolAlone) {
  const Image image = test_image(517, 389, 3, 8, false, 7);
  DecodeOptions d;
  d.threads = 1;
  ThreadPool alone_pool(1);
  mallat::testing::HelpedPool helped_pool(3, 2);
  CallResources alone, helped;
  alone.pool = &alone_pool;
  helped.pool = &helped_pool.pool;
  for (const EncodeOptions& o : variants()) {
    const std::string what = name_of(o);
    const Result<std::vector<uint8_t>> want = encode(image, o, alone, nullptr);
    ASSERT_TRUE(want.ok()) << what << ": " << want.status().message();
    const Result<Image> want_image = decode(*want, d, alone, nullptr, nullptr);
    ASSERT_TRUE(want_image.ok()) << what;

    const Result<std::vector<uint8_t>> whole = encode(image, o, helped, nullptr);
    ASSERT_TRUE(whole.ok()) << what;
    EXPECT_TRUE(*whole == *want) << what << ": encode()";

    ImageRows rows{image, {}};
    std::vector<uint8_t> file;
    const FileSink sink = [&](std::span<const uint8_t> piece) {
      file.insert(file.end(), piece.begin(), piece.end());
      return Status::Ok();
    };
    ASSERT_TRUE(encode_streamed(rows.source(), o, helped, sink, nullptr).ok()) << what;
    EXPECT_TRUE(file == *want) << what << ": encode_streamed()";

    const Result<Image> decoded = decode(*want, d, helped, nullptr, nullptr);
    ASSERT_TRUE(decoded.ok()) << what;
    JoinedStrips strips;
    const Result<bool> streamed = decode_streamed(*want, d, helped, strips, nullptr);
    ASSERT_TRUE(streamed.ok() && *streamed) << what;
    for (size_t c = 0; c < want_image->components.size(); ++c) {
      EXPECT_TRUE(decoded->components[c].samples == want_image->components[c].samples) << what << " " << c;
      EXPECT_TRUE(strips.image.components[c].samples == want_image->components[c].samples) << what << " " << c;
    }
  }
  EXPECT_GT(helped_pool.board.items_helped(), 0);
}

}  // namespace
}  // namespace mallat::codec
