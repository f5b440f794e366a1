// `mallat decode` strip by strip: the PNM, TIFF, PNG, PGX and raw files are
// the bytes the whole-image path (--whole-image) writes, on the shared
// conformance streams and on generated ones; and the peak memory of a decode, measured
// in a child process, stays under the image's int32 size where the
// whole-image path's exceeds it, so the test cannot pass by accident.
#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "io/file.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

extern char** environ;

namespace mallat {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> bytes_of(const fs::path& p) {
  auto b = io::read_file(p);
  EXPECT_TRUE(b.ok()) << p;
  return b.ok() ? *b : std::vector<uint8_t>{};
}

// Decodes `in` to `stem`.s.EXT (streamed when it can be) and `stem`.w.EXT
// (--whole-image) and expects the same bytes.
void expect_same_files(const fs::path& in, const std::string& args, const fs::path& dir, const std::string& ext) {
  std::string out;
  const fs::path s = dir / ("s" + ext), w = dir / ("w" + ext);
  ASSERT_EQ(testing::run_mallat("decode -i " + in.string() + " -o " + s.string() + " --streamed " + args, &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in.string() + " -o " + w.string() + " --whole-image " + args, &out, dir),
            0)
      << out;
  EXPECT_TRUE(bytes_of(s) == bytes_of(w)) << in << " " << args;
  fs::remove(s);
  fs::remove(w);
}

// A size x size grey PGM of smooth gradients and texture.
void write_pgm(const fs::path& path, int size, int bits, int shift = 0) {
  std::ofstream f(path, std::ios::binary);
  f << "P5\n" << size << " " << size << "\n" << ((1 << bits) - 1) << "\n";
  std::vector<uint8_t> row(static_cast<size_t>(size) * (bits > 8 ? 2 : 1));
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const int v = ((x * 3 + y * 5 + shift) ^ (x * y >> 6)) & ((1 << bits) - 1);
      if (bits > 8) {
        row[2 * x] = static_cast<uint8_t>(v >> 8);
        row[2 * x + 1] = static_cast<uint8_t>(v);
      } else {
        row[x] = static_cast<uint8_t>(v);
      }
    }
    f.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size()));
  }
}

// Runs mallat with `args` in a child process; its peak resident set in bytes
// (wait4's ru_maxrss, this child alone), or -1 when it failed.
int64_t peak_rss_of(const std::vector<std::string>& args) {
  std::vector<std::string> all = {testing::kMallat};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

TEST(DecodeStreamedCli, PnmFilesAreTheWholeImagePathsBytes) {
  const fs::path dir = testing::make_temp_dir("decode-streamed-files");
  std::string out;
  const fs::path pgm8 = dir / "a.pgm", pgm16 = dir / "b.pgm";
  write_pgm(pgm8, 301, 8);
  write_pgm(pgm16, 190, 12);
  struct Encode {
    const fs::path& in;
    std::string name, args;
  };
  const Encode encodes[] = {{pgm8, "l53.j2k", ""},
                            {pgm8, "i97.j2k", "-I"},
                            {pgm8, "ht.jhc", "--ht -I"},
                            {pgm16, "p16.j2k", "-d 3,7 -c [64,64],[32,32] -b 16,16 -p RPCL"},
                            {pgm8, "lay.jp2", "-I -r 40,10,1"}};
  for (const Encode& e : encodes) {
    ASSERT_EQ(testing::run_mallat("encode -i " + e.in.string() + " -o " + (dir / e.name).string() + " " + e.args, &out,
                                  dir),
              0)
        << out;
    // -p 8 leaves 8-bit samples as they are (the raster written from bytes),
    // -p 6 and -force-rgb change them (from samples).
    for (const std::string args : {"", "-r 2 -l 1 -threads 1", "-p 8", "-p 6", "-threads 1 -p 5S"})
      expect_same_files(dir / e.name, args, dir, ".pgm");
    expect_same_files(dir / e.name, "-force-rgb -threads 1", dir, ".ppm");
    expect_same_files(dir / e.name, "-r 1", dir, ".tif");
    expect_same_files(dir / e.name, "-c 0", dir, ".png");
  }
  // The shared conformance streams that the streamed path takes.
  MALLAT_REQUIRE_TESTDATA("conformance");
  for (const auto& entry : fs::directory_iterator(testing::testdata_dir() / "conformance")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".j2k" && ext != ".jp2") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    expect_same_files(entry.path(), "", dir, ".ppm");
  }
}

// The planar formats: PGX (one file per component, <stem>_<c>.pgx for
// several) and raw planes, big- and little-endian, with decode's -F line.
TEST(DecodeStreamedCli, PgxAndRawFilesAreTheWholeImagePathsBytes) {
  const fs::path dir = testing::make_temp_dir("decode-streamed-planar");
  std::string out;
  for (int c = 0; c < 3; ++c) write_pgm(dir / ("c" + std::to_string(c) + ".pgm"), 133, 12, 40 * c);
  const std::string three = (dir / "c0.pgm").string() + "," + (dir / "c1.pgm").string() + "," + (dir / "c2.pgm").string();
  ASSERT_EQ(testing::run_mallat("encode -i " + three + " -o " + (dir / "rgb.j2k").string() + " -d 3,7", &out, dir), 0)
      << out;
  ASSERT_EQ(testing::run_mallat("encode -i " + (dir / "c1.pgm").string() + " -o " + (dir / "grey.j2k").string() +
                                    " -I -r 30",
                                &out, dir),
            0)
      << out;
  for (const char* stream : {"rgb.j2k", "grey.j2k"}) {
    SCOPED_TRACE(stream);
    const fs::path in = dir / stream;
    for (const char* ext : {".raw", ".rawl", ".pgx"})
      for (const std::string args : {"", "-r 1"}) {
        std::string streamed, whole;
        const fs::path s = dir / (std::string("s") + ext), w = dir / (std::string("w") + ext);
        ASSERT_EQ(testing::run_mallat("decode --streamed -i " + in.string() + " -o " + s.string() + " " + args,
                                      &streamed, dir),
                  0)
            << streamed;
        ASSERT_EQ(testing::run_mallat("decode --whole-image -i " + in.string() + " -o " + w.string() + " " + args,
                                      &whole, dir),
                  0)
            << whole;
        std::vector<std::pair<fs::path, fs::path>> files = {{s, w}};
        if (std::string(ext) == ".pgx" && std::string(stream) == "rgb.j2k") {
          files.clear();
          for (int c = 0; c < 3; ++c)
            files.push_back({dir / ("s_" + std::to_string(c) + ".pgx"), dir / ("w_" + std::to_string(c) + ".pgx")});
          EXPECT_FALSE(fs::exists(s));
        }
        for (const auto& [a, b] : files) {
          ASSERT_TRUE(fs::exists(a)) << a;
          EXPECT_TRUE(bytes_of(a) == bytes_of(b)) << a << " " << args;
          fs::remove(a);
          fs::remove(b);
        }
        // The messages (raw: the -F line) name s.EXT where the other names w.EXT.
        for (size_t at; (at = whole.find("w" + std::string(ext))) != std::string::npos;) whole[at] = 's';
        EXPECT_EQ(streamed, whole) << ext << " " << args;
        if (std::string(ext) != ".pgx") {
          EXPECT_NE(streamed.find("read it back with -F "), std::string::npos) << streamed;
        }
      }
  }
  // No temporary file is left beside the outputs.
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_NE(entry.path().filename().string()[0], '.') << entry.path();
}

// A batch on the CPU decodes its files strip by strip where one file would
// be: the same files and messages as every file decoded whole, a damaged
// file failing alone, in each format written in strips.
TEST(DecodeStreamedCli, ABatchWritesTheWholeImagePathsFilesAndMessages) {
  const fs::path dir = testing::make_temp_dir("decode-streamed-batch");
  const fs::path in = dir / "in";
  fs::create_directories(in);
  std::string out;
  write_pgm(dir / "a.pgm", 150, 8);
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
           {"l53.j2k", ""}, {"i97.j2k", "-I"}, {"ht.jhc", "--ht"}, {"lay.jp2", "-I -r 40,10,1"}}) {
    ASSERT_EQ(testing::run_mallat("encode -i " + (dir / "a.pgm").string() + " -o " + (in / name).string() + " " + args,
                                  &out, dir),
              0)
        << out;
  }
  // A stream cut short: a warning and a file all the same; and a stream
  // whose header is cut: an error, for that file alone.
  std::vector<uint8_t> cut = bytes_of(in / "l53.j2k");
  cut.resize(cut.size() * 2 / 3);
  ASSERT_TRUE(io::write_file_atomically(in / "short.j2k", cut).ok());
  cut.resize(40);
  ASSERT_TRUE(io::write_file_atomically(in / "torn.j2k", cut).ok());
  for (const std::string format : {"pgm", "pgx", "raw", "png"}) {
    SCOPED_TRACE(format);
    const fs::path s = dir / ("s_" + format), w = dir / ("w_" + format);
    std::string streamed, whole;
    EXPECT_EQ(testing::run_mallat("decode -threads 2 -i " + in.string() + " -o " + s.string() + " -OutFor " + format,
                                  &streamed, dir),
              1);
    EXPECT_EQ(testing::run_mallat("decode -threads 2 --whole-image -i " + in.string() + " -o " + w.string() +
                                      " -OutFor " + format,
                                  &whole, dir),
              1);
    EXPECT_EQ(testing::without_summary(streamed, s.string(), "OUT"), testing::without_summary(whole, w.string(), "OUT"));
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(w)) {
      ++files;
      EXPECT_TRUE(bytes_of(entry.path()) == bytes_of(s / entry.path().filename())) << entry.path();
    }
    EXPECT_GE(files, 5u);
    EXPECT_EQ(files, static_cast<size_t>(std::distance(fs::directory_iterator(s), fs::directory_iterator())));
  }
  fs::remove_all(dir);
}

TEST(DecodeStreamedCli, PeakMemoryStaysUnderTheImagesInt32Size) {
  const fs::path dir = testing::make_temp_dir("decode-streamed-memory");
  std::string out;
  const int size = 4000;  // 16 M samples: 64 MB as int32
  write_pgm(dir / "big.pgm", size, 8);
  ASSERT_EQ(testing::run_mallat("encode -i " + (dir / "big.pgm").string() + " -o " + (dir / "big.j2k").string() +
                                    " -threads 2",
                                &out, dir),
            0)
      << out;
  fs::remove(dir / "big.pgm");
  const int64_t bound = int64_t{size} * size * 4;
  const int64_t streamed =
      peak_rss_of({"decode", "-i", (dir / "big.j2k").string(), "-o", (dir / "s.pgm").string(), "-threads", "2", "--streamed"});
  const int64_t whole = peak_rss_of(
      {"decode", "-i", (dir / "big.j2k").string(), "-o", (dir / "w.pgm").string(), "-threads", "2", "--whole-image"});
  ASSERT_GT(streamed, 0);
  ASSERT_GT(whole, 0);
  EXPECT_LT(streamed, bound) << "streamed decode peak " << streamed << " bytes";
  EXPECT_GT(whole, bound) << "whole-image decode peak " << whole << " bytes";
  EXPECT_TRUE(bytes_of(dir / "s.pgm") == bytes_of(dir / "w.pgm"));
  // Raw planes and PGX, written strip by strip too.
  for (const char* planar : {"s.raw", "s.pgx"}) {
    const int64_t peak =
        peak_rss_of({"decode", "-i", (dir / "big.j2k").string(), "-o", (dir / planar).string(), "-threads", "2", "--streamed"});
    ASSERT_GT(peak, 0) << planar;
    EXPECT_LT(peak, bound) << planar << " streamed decode peak " << peak << " bytes";
    std::printf("peak RSS to %s: %.1f MB\n", planar, peak / 1e6);
  }
  // Without --streamed a 5/3 stream takes the streamed path at any thread
  // count (tools/decode_streamed.h, streamed_by_default).
  for (const char* threads : {"1", "4"}) {
    const fs::path out = dir / (std::string("t") + threads + ".pgm");
    const int64_t by_default =
        peak_rss_of({"decode", "-i", (dir / "big.j2k").string(), "-o", out.string(), "-threads", threads});
    EXPECT_LT(by_default, bound) << "-threads " << threads << " default decode peak " << by_default << " bytes";
    EXPECT_TRUE(bytes_of(out) == bytes_of(dir / "w.pgm")) << threads;
  }
  // A 9/7 stream this small (16 M samples, under 64 M) takes the whole-image
  // path from 3 threads (the faster there), the streamed one on 2.
  write_pgm(dir / "big.pgm", size, 8);
  ASSERT_EQ(testing::run_mallat("encode -i " + (dir / "big.pgm").string() + " -o " + (dir / "i.j2k").string() +
                                    " -I -threads 2",
                                &out, dir),
            0)
      << out;
  fs::remove(dir / "big.pgm");
  const int64_t irreversible_whole =
      peak_rss_of({"decode", "-i", (dir / "i.j2k").string(), "-o", (dir / "i4.pgm").string(), "-threads", "4"});
  EXPECT_GT(irreversible_whole, bound) << "9/7 -threads 4 default decode peak " << irreversible_whole << " bytes";
  const int64_t irreversible_streamed =
      peak_rss_of({"decode", "-i", (dir / "i.j2k").string(), "-o", (dir / "i2.pgm").string(), "-threads", "2"});
  EXPECT_LT(irreversible_streamed, bound) << "9/7 -threads 2 default decode peak " << irreversible_streamed << " bytes";
  EXPECT_TRUE(bytes_of(dir / "i4.pgm") == bytes_of(dir / "i2.pgm"));
  std::printf("peak RSS: streamed %.1f MB, whole image %.1f MB, image as int32 %.1f MB\n", streamed / 1e6, whole / 1e6,
              bound / 1e6);
}

}  // namespace
}  // namespace mallat
