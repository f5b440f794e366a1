// `mallat encode`'s streamed writer (tools/encode_streamed.h): a source
// given a way to reopen its file rewinds to the first row, so that an
// encode that fed its rows to a device that failed reads them again
// (codec::RowSource::rewind); without one the source cannot rewind.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/file.h"
#include "io/image_io.h"
#include "io/strip_reader.h"
#include "tools/encode_streamed.h"

namespace mallat::tools {
namespace {

namespace fs = std::filesystem;

// A 3-component 8-bit PPM of w x h with a ramp, at `path`.
void write_ppm(const fs::path& path, int64_t w, int64_t h) {
  Image image;
  for (int c = 0; c < 3; ++c) {
    Component comp;
    comp.width = w;
    comp.height = h;
    comp.precision = 8;
    for (int64_t i = 0; i < w * h; ++i) comp.samples.push_back(static_cast<int32_t>((i * (c + 3) + i / w) % 256));
    image.components.push_back(std::move(comp));
  }
  image.x1 = w;
  image.y1 = h;
  image.color_space = ColorSpace::kRgb;
  ASSERT_TRUE(io::write_image(image, path).ok());
}

// Reads every row of every component by read_rows; the first row's samples.
Result<std::vector<int32_t>> read_all(const codec::RowSource& source) {
  std::vector<int32_t> first;
  for (int c = 0; c < static_cast<int>(source.layout.components.size()); ++c) {
    const Component& comp = source.layout.components[static_cast<size_t>(c)];
    std::vector<int32_t> rows(static_cast<size_t>(comp.width * comp.height));
    MALLAT_RETURN_IF_ERROR(source.read_rows(c, comp.height, rows.data()));
    first.insert(first.end(), rows.begin(), rows.begin() + comp.width);
  }
  return first;
}

TEST(EncodeStreamedReopen, ARewoundSourceReadsItsRowsAgainFromTheFirst) {
  const fs::path dir = fs::temp_directory_path() / ("mallat_reopen_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path in = dir / "in.ppm";
  write_ppm(in, 40, 30);
  auto reader = io::open_strips(in);
  ASSERT_TRUE(reader.ok() && *reader);
  int reopened = 0;
  const ReopenStrips reopen = [&]() -> Result<std::unique_ptr<io::StripReader>> {
    ++reopened;
    return io::open_strips(in);
  };
  std::vector<int32_t> before, after;
  const Status s = write_streamed_encode(
      BatchFile{in, dir / "out.j2k"}, **reader,
      [&](const codec::RowSource& source, const codec::FileSink& sink, const codec::FileSizeHint*) -> Status {
        EXPECT_TRUE(static_cast<bool>(source.rewind));
        MALLAT_ASSIGN_OR_RETURN(before, read_all(source));
        MALLAT_RETURN_IF_ERROR(source.rewind());
        MALLAT_ASSIGN_OR_RETURN(after, read_all(source));
        const uint8_t bytes[] = {1, 2, 3};
        return sink(bytes);
      },
      reopen);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(reopened, 1);
  EXPECT_EQ(before, after);
  EXPECT_EQ(fs::file_size(dir / "out.j2k"), 3u);

  // Without a way to reopen, the source has no rewind.
  auto again = io::open_strips(in);
  ASSERT_TRUE(again.ok() && *again);
  const Status none = write_streamed_encode(
      BatchFile{in, dir / "out2.j2k"}, **again,
      [&](const codec::RowSource& source, const codec::FileSink& sink, const codec::FileSizeHint*) -> Status {
        EXPECT_FALSE(static_cast<bool>(source.rewind));
        const uint8_t bytes[] = {1};
        return sink(bytes);
      });
  EXPECT_TRUE(none.ok()) << none.message();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat::tools
