// Streamed encode on the command line: `mallat encode` streams a single binary PNM
// or raw file (tools/encode_streamed.h) and writes the bytes --whole-image
// writes; its errors leave no output; and its peak memory, measured on a
// child process, stays well under the image's int32 size while the
// whole-image path on the same file exceeds the same bound (so the test
// fails if streaming silently falls back), untiled and tiled (-t).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/file.h"
#include "io/strip_reader.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"
#ifdef MALLAT_HAVE_TIFF
#include "tests/io/tiff_maker.h"
#endif

namespace mallat {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mallat_stream_encode_" + name + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

// A binary PNM of w x h, `channels` 1 or 3, maxval 255 or 65535: ramps
// with a little noise; `smooth` ones compress as photos do.
void write_pnm(const fs::path& path, int64_t w, int64_t h, int channels, int maxval, uint32_t seed,
               bool smooth = false) {
  std::ofstream out(path, std::ios::binary);
  out << (channels == 3 ? "P6" : "P5") << "\n" << w << " " << h << "\n" << maxval << "\n";
  std::mt19937 rng(seed);
  std::vector<uint8_t> row;
  for (int64_t y = 0; y < h; ++y) {
    row.clear();
    for (int64_t x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) {
        const uint32_t v =
            smooth ? static_cast<uint32_t>(((x + 2 * y) / 8 + c * 40 + rng() % 2) % (maxval + 1))
                   : static_cast<uint32_t>((x * (2 + c) + y * 3 + (x * y) / 64 + rng() % 3) % (maxval + 1));
        if (maxval > 255) row.push_back(static_cast<uint8_t>(v >> 8));
        row.push_back(static_cast<uint8_t>(v));
      }
    out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size()));
  }
}

std::vector<uint8_t> bytes_of(const fs::path& p) {
  auto b = io::read_file(p);
  EXPECT_TRUE(b.ok()) << p;
  return b.ok() ? *b : std::vector<uint8_t>();
}

void expect_same_as_whole(const std::string& in, const std::string& extra, const fs::path& dir) {
  std::string out;
  ASSERT_EQ(testing::run_mallat("encode -i " + in + " -o " + (dir / "s.j2k").string() + " " + extra, &out, dir), 0)
      << out;
  ASSERT_EQ(testing::run_mallat("encode --whole-image -i " + in + " -o " + (dir / "w.j2k").string() + " " + extra,
                                &out, dir),
            0)
      << out;
  EXPECT_TRUE(bytes_of(dir / "s.j2k") == bytes_of(dir / "w.j2k")) << in << " " << extra;
}

TEST(StreamEncodeCli, SameBytesAsTheWholeImage) {
  const fs::path dir = temp_dir("same");
  write_pnm(dir / "rgb.ppm", 173, 131, 3, 255, 1);
  write_pnm(dir / "grey16.pgm", 99, 150, 1, 65535, 2);
  for (const char* f : {"rgb.ppm", "grey16.pgm"})
    for (const char* extra : {"", "-I", "-I -r 20", "-n 1", "-n 4 -d 3,1 -c [32,32] -b 16,16", "-M 64", "-r 40,10 -TLM -PLT",
                              "-t 64,48", "-I -t 40,40 -d 3,5 -T 1,2", "-t 32,32 -r 20 -PLT", "--ht -I -r 20",
                              "--ht --bpp 1 -t 64,64"})
      expect_same_as_whole((dir / f).string(), extra, dir);
  // Raw planes, sub-sampled chroma, read a component at a time.
  {
    std::ofstream raw(dir / "planes.raw", std::ios::binary);
    std::mt19937 rng(3);
    for (int64_t n : {int64_t{77} * 61, int64_t{39} * 31, int64_t{39} * 31})
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t v = static_cast<uint16_t>((i * 7 + rng() % 9) % 4096);
        raw.put(static_cast<char>(v >> 8)).put(static_cast<char>(v & 0xFF));
      }
  }
  expect_same_as_whole((dir / "planes.raw").string(), "-F 77,61,3,12,u@1x1:2x2:2x2", dir);
  expect_same_as_whole((dir / "planes.raw").string(), "-F 77,61,3,12,u@1x1:2x2:2x2 -t 25,15", dir);
  fs::remove_all(dir);
}

// PGX, PAM, TIFF (strips, tiles, planar, BigTIFF) and lists of
// per-component files are read in strips too.
TEST(StreamEncodeCli, PgxAndTiffSameBytesAsTheWholeImage) {
  const fs::path dir = temp_dir("pgx_tiff");
  write_pnm(dir / "grey16.pgm", 99, 150, 1, 65535, 7);
  std::vector<fs::path> files = {dir / "grey16.pgx"};
  std::string out;
  ASSERT_EQ(testing::run_mallat("convert " + (dir / "grey16.pgm").string() + " " + files[0].string(), &out, dir), 0)
      << out;
  // PAM (P7): RGB with alpha, read in strips as P6 is.
  {
    std::ofstream pam(dir / "rgba.pam", std::ios::binary);
    pam << "P7\nWIDTH 83\nHEIGHT 71\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n";
    for (int i = 0; i < 83 * 71 * 4; ++i) pam.put(static_cast<char>((i * 7 + i / 332 * 3) % 256));
  }
  files.push_back(dir / "rgba.pam");
#ifdef MALLAT_HAVE_TIFF
  for (const char* name : {"flower-rgb-planar-08.tif", "flower-rgb-contig-16.tif", "flower-minisblack-12.tif"})
    files.push_back(testing::testdata_dir() / "images" / name);
  for (const auto& [name, shape] : testing::test_tiff_shapes()) {
    ASSERT_TRUE(testing::write_test_tiff(dir / name, shape)) << name;
    files.push_back(dir / name);
  }
#endif
  for (const fs::path& f : files) {
    EXPECT_TRUE(io::reads_in_strips(f)) << f;
    for (const char* extra : {"", "-I -n 3", "-r 20,5 -b 16,16", "-t 40,32"})
      expect_same_as_whole(f.string(), extra, dir);
  }
  // One PGX per component, chroma sub-sampled: each read in strips.
  const int64_t sizes[3][2] = {{77, 61}, {39, 31}, {39, 31}};
  std::string list;
  for (int c = 0; c < 3; ++c) {
    const fs::path f = dir / ("c" + std::to_string(c) + ".pgx");
    std::ofstream out(f, std::ios::binary);
    out << "PG ML + 12 " << sizes[c][0] << " " << sizes[c][1] << "\n";
    for (int64_t i = 0; i < sizes[c][0] * sizes[c][1]; ++i) {
      const uint16_t v = static_cast<uint16_t>((i * (5 + c) + i / sizes[c][0] * 3) % 4096);
      out.put(static_cast<char>(v >> 8)).put(static_cast<char>(v & 0xFF));
    }
    list += (c ? "," : "") + f.string();
  }
  for (const char* extra : {"", "-F @1x1:2x2:2x2 -I", "-F 77,61,3,12,u@1x1:2x2:2x2"})
    expect_same_as_whole(list, extra, dir);
  fs::remove_all(dir);
}

TEST(StreamEncodeCli, ErrorsLeaveNoOutput) {
  const fs::path dir = temp_dir("errors");
  // A sample above maxval in the last rows: found after the first strips.
  write_pnm(dir / "high.pgm", 40, 300, 1, 255, 4);
  {
    std::fstream f(dir / "high.pgm", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f << "P5\n40 300\n200\n";  // the same length as maxval 255's header
  }
  write_pnm(dir / "short.ppm", 50, 40, 3, 255, 5);
  fs::resize_file(dir / "short.ppm", fs::file_size(dir / "short.ppm") - 10);
  for (const char* name : {"high.pgm", "short.ppm"}) {
    std::string streamed, whole;
    const fs::path out = dir / "x.j2k";
    EXPECT_EQ(testing::run_mallat("encode -i " + (dir / name).string() + " -o " + out.string(), &streamed, dir), 1);
    EXPECT_FALSE(fs::exists(out)) << name;
    EXPECT_EQ(testing::run_mallat("encode --whole-image -i " + (dir / name).string() + " -o " + out.string(), &whole,
                                  dir),
              1);
    EXPECT_FALSE(fs::exists(out)) << name;
    if (std::string(name) == "short.ppm") {
      EXPECT_EQ(streamed, whole);
    } else {
      // The whole-image reader names the largest sample of the image, the
      // streamed one the largest of the first strip that has one too large.
      for (const std::string& m : {streamed, whole}) {
        EXPECT_NE(m.find("high.pgm (PNM): sample "), std::string::npos) << m;
        EXPECT_NE(m.find(" exceeds maxval 200"), std::string::npos) << m;
      }
    }
  }
  fs::remove_all(dir);
}

// The peak resident set of `mallat args` run as a child, in KiB.
long peak_kib(const std::string& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", (testing::kMallat + " " + args + " >/dev/null 2>&1").c_str(), nullptr);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss;
}

// The streamed peak (KiB) below `bound` and the whole-image one above it.
void expect_on_either_side(long streamed, long whole, long bound, const std::string& what) {
  ASSERT_GT(streamed, 0) << what;
  ASSERT_GT(whole, 0) << what;
  std::printf("peak RSS, %s: streamed %ld KiB, whole image %ld KiB, bound %ld KiB\n", what.c_str(), streamed, whole,
              bound);
  EXPECT_LT(streamed, bound) << what << ": streamed peak " << streamed << " KiB";
  EXPECT_GT(whole, bound) << what << ": whole-image peak " << whole << " KiB";
}

TEST(StreamEncodeCli, PeakMemoryStaysFarBelowTheImage) {
  const fs::path dir = temp_dir("memory");
  const int64_t w = 3200, h = 3000;
  write_pnm(dir / "big.ppm", w, h, 3, 255, 6, /*smooth=*/true);
  const long int32_kib = static_cast<long>(w * h * 3 * 4 / 1024);  // 112,500 KiB
  const long bound = int32_kib / 2;
  const std::string in = (dir / "big.ppm").string(), out = (dir / "big.j2k").string();
  const long streamed = peak_kib("encode -threads 2 -i " + in + " -o " + out);
  const long whole = peak_kib("encode -threads 2 --whole-image -i " + in + " -o " + out);
  const std::string int32_size = "the image's int32 samples " + std::to_string(int32_kib) + " KiB";
  expect_on_either_side(streamed, whole, bound, "untiled, " + int32_size);
  // Tiled (-t): one row of tiles is held, at the samples' width, so the peak
  // stays as far below the image; the whole-image path reads every sample
  // as int32.
  const std::string tiles = " -t 512,512 -threads 2 -i " + in;
  const long streamed_tiles = peak_kib("encode -o " + (dir / "s.j2k").string() + tiles);
  const long whole_tiles = peak_kib("encode --whole-image -o " + (dir / "w.j2k").string() + tiles);
  expect_on_either_side(streamed_tiles, whole_tiles, bound, "tiles 512x512, " + int32_size);
  EXPECT_TRUE(bytes_of(dir / "s.j2k") == bytes_of(dir / "w.j2k"));
#ifdef MALLAT_HAVE_TIFF
  // The same image as a TIFF (mallat's writer: strips), read in strips too.
  std::string said;
  ASSERT_EQ(testing::run_mallat("convert " + in + " " + (dir / "big.tif").string(), &said, dir), 0) << said;
  const long tiff = peak_kib("encode -threads 2 -i " + (dir / "big.tif").string() + " -o " + out);
  ASSERT_GT(tiff, 0);
  std::printf("peak RSS from TIFF: streamed %ld KiB\n", tiff);
  EXPECT_LT(tiff, bound) << "streamed peak from TIFF " << tiff << " KiB";
#endif
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
