// Batch mode of mallat encode and decode (tools/batch.h), --device, and
// mallat bench codec, on small generated images: the outputs of a batch are
// byte for byte those of the single-file command, a bad file is named and the
// others go on, and the progress and summary lines keep their format.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/image.h"
#include "io/image_io.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

int run(const std::string& args, std::string* output, const fs::path& dir) {
  return testing::run_mallat(args, output, dir);
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// A w x h image of n components with a pattern that gives every coding pass
// something to do.
void write_generated(const fs::path& path, int64_t w, int64_t h, int n, int seed) {
  auto image = make_image(w, h, n, 8, false);
  ASSERT_TRUE(image.ok()) << image.status().message();
  image->color_space = n >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;
  for (int c = 0; c < n; ++c)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        image->components[c].samples[y * w + x] =
            static_cast<int32_t>((x * (c + 1) + y * 3 + seed * 17 + ((x ^ y) & 15) * 5) & 255);
  ASSERT_TRUE(io::write_image(*image, path).ok());
}

// A folder of three generated images, a file that claims to be a PPM but is
// not, and a text file the encoder does not read.
fs::path make_inputs(const fs::path& dir) {
  const fs::path in = dir / "in";
  fs::create_directories(in);
  write_generated(in / "a.ppm", 96, 64, 3, 1);
  write_generated(in / "b.pgm", 80, 50, 1, 2);
  write_generated(in / "c.png", 64, 72, 3, 3);
  std::ofstream(in / "bad.ppm") << "this is not a PPM file";
  std::ofstream(in / "notes.txt") << "not an image";
  return in;
}

const std::string kOptions = " -n 4 -b 32,32 -threads 2";

// A batch on the CPU encodes the files that one file's rule reads in strips
// (PNM here, not PNG) strip by strip: the same files and messages as every
// file read whole (--whole-image), under a lossless, a rate and a PSNR
// target (-q is never streamed).
TEST(BatchCli, EncodeFolderStripByStripWritesTheWholeImagesFiles) {
  const fs::path dir = testing::make_temp_dir("batch-encode-streamed");
  const fs::path in = make_inputs(dir);
  write_generated(in / "d.ppm", 150, 90, 3, 4);
  for (const std::string options : {"", " --ht -I -r 20", " -I -r 30", " -I -q 40"}) {
    SCOPED_TRACE(options);
    const fs::path s = dir / "s", w = dir / "w";
    std::string streamed, whole;
    EXPECT_EQ(run("encode -i " + in.string() + " -o " + s.string() + " -OutFor j2k" + kOptions + options, &streamed,
                  dir),
              1);
    EXPECT_EQ(run("encode -i " + in.string() + " -o " + w.string() + " -OutFor j2k --whole-image" + kOptions +
                      options,
                  &whole, dir),
              1);
    EXPECT_EQ(testing::without_summary(streamed, s.string(), "OUT"), testing::without_summary(whole, w.string(), "OUT"));
    EXPECT_EQ(names_in(s), names_in(w));
    EXPECT_EQ(names_in(w).size(), 4u);
    for (const std::string& name : names_in(w)) EXPECT_EQ(bytes_of(s / name), bytes_of(w / name)) << name;
    fs::remove_all(s);
    fs::remove_all(w);
  }
  // The timeline says which files went strip by strip: the PNM files' strips
  // are spans, the PNG file's stages too.
  const fs::path timeline = dir / "timeline.csv";
  ASSERT_EQ(setenv("MALLAT_TIMELINE", timeline.string().c_str(), 1), 0);
  std::string out;
  run("encode -i " + in.string() + " -o " + (dir / "t").string() + " -OutFor j2k -quiet" + kOptions, &out, dir);
  unsetenv("MALLAT_TIMELINE");
  const std::string spans = bytes_of(timeline);
  EXPECT_NE(spans.find(",strip_blocks,"), std::string::npos) << spans.substr(0, 400);
  EXPECT_NE(spans.find(",dwt,"), std::string::npos) << spans.substr(0, 400);
  fs::remove_all(dir);
}

TEST(BatchCli, EncodeFolderMatchesSingleFilesAndNamesTheBadOne) {
  const fs::path dir = testing::make_temp_dir("batch-encode");
  const fs::path in = make_inputs(dir);
  std::string out;
  EXPECT_EQ(run("encode -i " + in.string() + " -o " + (dir / "out").string() + kOptions, &out, dir), 1) << out;
  EXPECT_NE(out.find("bad.ppm"), std::string::npos) << out;
  EXPECT_NE(out.find("left out 1 file(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("notes.txt"), std::string::npos) << out;
  // The good files written, nothing else: no output for the bad one, no temporaries.
  EXPECT_EQ(names_in(dir / "out"), (std::set<std::string>{"a.j2k", "b.j2k", "c.j2k"}));
  for (const std::string stem : {"a", "b", "c"}) {
    const std::string source = stem == "a" ? "a.ppm" : stem == "b" ? "b.pgm" : "c.png";
    const fs::path single = dir / (stem + "-single.j2k");
    ASSERT_EQ(run("encode -i " + (in / source).string() + " -o " + single.string() + kOptions, &out, dir), 0) << out;
    EXPECT_EQ(bytes_of(dir / "out" / (stem + ".j2k")), bytes_of(single)) << stem;
  }
  fs::remove_all(dir);
}

TEST(BatchCli, DecodeFolderMatchesSingleFiles) {
  const fs::path dir = testing::make_temp_dir("batch-decode");
  const fs::path in = make_inputs(dir);
  fs::remove(in / "bad.ppm");
  std::string out;
  // Several -i files and -OutFor with the dot, in capitals (as opj_compress).
  ASSERT_EQ(run("encode -i " + (in / "a.ppm").string() + " -i " + (in / "b.pgm").string() + " -i " +
                    (in / "c.png").string() + " -o " + (dir / "coded").string() + " -OutFor .JP2" + kOptions,
                &out, dir),
            0)
      << out;
  EXPECT_EQ(names_in(dir / "coded"), (std::set<std::string>{"a.jp2", "b.jp2", "c.jp2"}));
  std::ofstream(dir / "coded" / "readme.txt") << "left out";
  // .jpc, a codestream name other codecs write, is read too (by its content).
  fs::copy_file(dir / "coded" / "a.jp2", dir / "coded" / "d.JPC");
  ASSERT_EQ(run("decode -i " + (dir / "coded").string() + " -o " + (dir / "dec").string() + " -OutFor png -threads 2",
                &out, dir),
            0)
      << out;
  EXPECT_EQ(names_in(dir / "dec"), (std::set<std::string>{"a.png", "b.png", "c.png", "d.png"}));
  EXPECT_EQ(bytes_of(dir / "dec" / "d.png"), bytes_of(dir / "dec" / "a.png"));
  for (const std::string stem : {"a", "b", "c"}) {
    const fs::path single = dir / (stem + "-single.png");
    ASSERT_EQ(run("decode -i " + (dir / "coded" / (stem + ".jp2")).string() + " -o " + single.string(), &out, dir), 0)
        << out;
    EXPECT_EQ(bytes_of(dir / "dec" / (stem + ".png")), bytes_of(single)) << stem;
  }
  // Lossless: the batch's decode of a.ppm is the image generated.
  auto original = io::read_image(in / "a.ppm");
  auto decoded = io::read_image(dir / "dec" / "a.png");
  ASSERT_TRUE(original.ok() && decoded.ok());
  EXPECT_EQ(original->components[1].samples, decoded->components[1].samples);
  // A batch decode needs -OutFor: a usage error, nothing written.
  EXPECT_EQ(run("decode -i " + (dir / "coded").string() + " -o " + (dir / "dec2").string(), &out, dir), 2) << out;
  EXPECT_NE(out.find("-OutFor"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "dec2"));
  fs::remove_all(dir);
}

// --batch-files K codes K files at once (engine/placement.h): the same
// files as one at a time, a bad file failing alone among them.
TEST(BatchCli, SeveralFilesAtOnceWriteTheSameFiles) {
  const fs::path dir = testing::make_temp_dir("batch-files");
  const fs::path in = make_inputs(dir);
  write_generated(in / "d.ppm", 130, 70, 3, 4);
  std::string out;
  const std::string encode = "encode -i " + in.string() + kOptions + " -quiet -o ";
  EXPECT_EQ(run(encode + (dir / "one").string() + " --batch-files 1", &out, dir), 1) << out;
  EXPECT_EQ(run(encode + (dir / "three").string() + " --batch-files 3", &out, dir), 1) << out;
  EXPECT_NE(out.find("bad.ppm"), std::string::npos) << out;
  const std::set<std::string> coded{"a.j2k", "b.j2k", "c.j2k", "d.j2k"};
  EXPECT_EQ(names_in(dir / "three"), coded);
  for (const std::string& name : coded) EXPECT_EQ(bytes_of(dir / "one" / name), bytes_of(dir / "three" / name)) << name;
  const std::string decode = "decode -i " + (dir / "one").string() + " -OutFor ppm -threads 2 -quiet -o ";
  ASSERT_EQ(run(decode + (dir / "dec-one").string(), &out, dir), 0) << out;
  ASSERT_EQ(run(decode + (dir / "dec-four").string() + " --batch-files 4", &out, dir), 0) << out;
  for (const char* name : {"a.ppm", "b.ppm", "c.ppm", "d.ppm"})
    EXPECT_EQ(bytes_of(dir / "dec-one" / name), bytes_of(dir / "dec-four" / name)) << name;
  EXPECT_EQ(run(decode + (dir / "dec-x").string() + " --batch-files 0", &out, dir), 2) << out;
  EXPECT_NE(out.find("--batch-files must be a whole number from 1 to 256, got '0'"), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(BatchCli, ImgDirWritesBesideTheInputs) {
  const fs::path dir = testing::make_temp_dir("batch-imgdir");
  const fs::path in = make_inputs(dir);
  fs::remove(in / "bad.ppm");
  std::string out;
  ASSERT_EQ(run("encode -ImgDir " + in.string() + " -OutFor jp2 -quiet" + kOptions, &out, dir), 0) << out;
  EXPECT_TRUE(fs::exists(in / "a.jp2") && fs::exists(in / "b.jp2") && fs::exists(in / "c.jp2"));
  // -ImgDir with -i, and two inputs that would write one output: usage errors.
  EXPECT_EQ(run("encode -ImgDir " + in.string() + " -i " + (in / "a.ppm").string(), &out, dir), 2) << out;
  // -OutFor with one file and a file name after -o: a usage error, no folder made.
  EXPECT_EQ(run("encode -i " + (in / "a.ppm").string() + " -o " + (dir / "one.j2k").string() + " -OutFor jp2", &out,
                dir),
            2)
      << out;
  EXPECT_FALSE(fs::exists(dir / "one.j2k"));
  // One file into an existing folder: a batch of one.
  fs::create_directories(dir / "folder");
  ASSERT_EQ(run("encode -i " + (in / "a.ppm").string() + " -o " + (dir / "folder").string() + " -OutFor jp2 -quiet" +
                    kOptions,
                &out, dir),
            0)
      << out;
  EXPECT_EQ(bytes_of(dir / "folder" / "a.jp2"), bytes_of(in / "a.jp2"));
  write_generated(in / "a.pgm", 16, 16, 1, 4);
  EXPECT_EQ(run("encode -i " + in.string() + " -o " + (dir / "out").string(), &out, dir), 2) << out;
  EXPECT_NE(out.find("would both write"), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(BatchCli, QuietProgressAndSummary) {
  const fs::path dir = testing::make_temp_dir("batch-progress");
  const fs::path in = make_inputs(dir);
  std::string out;
  // -quiet: only the bad file's error.
  EXPECT_EQ(run("encode -i " + in.string() + " -o " + (dir / "q").string() + " -quiet" + kOptions, &out, dir), 1);
  EXPECT_EQ(out.find("left out"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("bad.ppm"), std::string::npos) << out;
  fs::remove(in / "bad.ppm");
  EXPECT_EQ(run("encode -i " + in.string() + " -o " + (dir / "q2").string() + " -quiet" + kOptions, &out, dir), 0);
  EXPECT_EQ(out, "");
  // Not a terminal: plain progress lines, the last at the end, then the summary.
  EXPECT_EQ(run("encode -i " + in.string() + " -o " + (dir / "p").string() + kOptions, &out, dir), 0);
  EXPECT_TRUE(std::regex_search(out, std::regex("mallat encode: 3/3 files, [0-9]+\\.[0-9] MP/s\n"))) << out;
  EXPECT_TRUE(std::regex_search(
      out, std::regex("mallat encode: 3 done, 0 failed, [0-9]+\\.[0-9]{2} s, [0-9]+\\.[0-9] MP/s\n$")))
      << out;
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(BatchCli, DeviceNamesTheDwtChoice) {
  const fs::path dir = testing::make_temp_dir("batch-device");
  write_generated(dir / "a.ppm", 96, 64, 3, 5);
  std::string out;
  const std::string in = " -i " + (dir / "a.ppm").string() + " -I -r 10" + kOptions;
  ASSERT_EQ(run("encode" + in + " -o " + (dir / "dwt.j2k").string() + " --dwt cpu", &out, dir), 0) << out;
  ASSERT_EQ(run("encode" + in + " -o " + (dir / "device.j2k").string() + " --device cpu", &out, dir), 0) << out;
  EXPECT_EQ(bytes_of(dir / "dwt.j2k"), bytes_of(dir / "device.j2k"));
  // auto: CUDA where there is a device, the CPU elsewhere, with no note; the same file either way.
  ASSERT_EQ(run("encode" + in + " -o " + (dir / "auto.j2k").string() + " --device auto", &out, dir), 0) << out;
  EXPECT_EQ(out, "");
  EXPECT_EQ(bytes_of(dir / "auto.j2k"), bytes_of(dir / "dwt.j2k"));
  ASSERT_EQ(run("decode -i " + (dir / "auto.j2k").string() + " -o " + (dir / "auto.ppm").string() + " --device auto",
                &out, dir),
            0)
      << out;
  EXPECT_EQ(run("encode" + in + " -o " + (dir / "x.j2k").string() + " --device gpu", &out, dir), 2) << out;
  EXPECT_NE(out.find("--device"), std::string::npos) << out;
  fs::remove_all(dir);
}

// --device cuda (engine/placement.h): Tier-1 on the GPU and the CPU
// with the CPU's DWT, the device started in the background; a file done
// before it is up is coded on the CPU and the process does not wait for it.
// Without CUDA in the build it is an error; with CUDA and no device, a note.
// Whatever ran where, the files are --device cpu's, one file or a batch;
// and decoding them, the images are.
TEST(BatchCli, DeviceCudaWritesTheCpuPathsFiles) {
  const fs::path dir = testing::make_temp_dir("batch-cuda");
  fs::create_directories(dir / "in");
  write_generated(dir / "in" / "a.ppm", 96, 64, 3, 5);
  write_generated(dir / "in" / "b.ppm", 200, 120, 3, 6);
  std::string out;
  const std::string in = " -i " + (dir / "in" / "a.ppm").string() + kOptions;
  ASSERT_EQ(run("encode" + in + " -o " + (dir / "cpu.j2k").string() + " --device cpu", &out, dir), 0) << out;
  EXPECT_EQ(run("encode" + in + " -o " + (dir / "x.j2k").string() + " --device cuda --device-share 1.5", &out, dir), 2);
  EXPECT_NE(out.find("--device-share must be a number from 0 to 1, got '1.5'"), std::string::npos) << out;
  const int status = run("encode" + in + " -o " + (dir / "cuda.j2k").string() + " --device cuda", &out, dir);
  if (status == 1) {
    EXPECT_NE(out.find("--device cuda: Tier-1 on the GPU: this build has no CUDA"), std::string::npos) << out;
    EXPECT_FALSE(fs::exists(dir / "cuda.j2k"));
    fs::remove_all(dir);
    return;
  }
  ASSERT_EQ(status, 0) << out;
  // One small file is coded on the CPU, CUDA not started, and says so.
  EXPECT_NE(out.find("note: one file of this size is coded on the CPU (same output)"), std::string::npos) << out;
  EXPECT_EQ(bytes_of(dir / "cpu.j2k"), bytes_of(dir / "cuda.j2k"));
  ASSERT_EQ(run("decode -i " + (dir / "cuda.j2k").string() + " -o " + (dir / "cuda.ppm").string() + " --device cuda",
                &out, dir),
            0)
      << out;
  // One file is decoded on the CPU, CUDA not started, and says so.
  EXPECT_NE(out.find("note: one file is decoded on the CPU (same output)"), std::string::npos) << out;
  ASSERT_EQ(run("decode -i " + (dir / "cuda.j2k").string() + " -o " + (dir / "cpu.ppm").string(), &out, dir), 0)
      << out;
  EXPECT_EQ(bytes_of(dir / "cuda.ppm"), bytes_of(dir / "cpu.ppm"));
  const std::string batch = " -i " + (dir / "in").string() + kOptions + " -OutFor j2k -quiet";
  ASSERT_EQ(run("encode" + batch + " -o " + (dir / "out-cpu").string() + " --device cpu", &out, dir), 0) << out;
  ASSERT_EQ(run("encode" + batch + " -o " + (dir / "out-cuda").string() + " --device cuda", &out, dir), 0) << out;
  for (const char* name : {"a.j2k", "b.j2k"})
    EXPECT_EQ(bytes_of(dir / "out-cpu" / name), bytes_of(dir / "out-cuda" / name)) << name;
  // Files at once share the device's launches: still the CPU's files.
  ASSERT_EQ(run("encode" + batch + " -o " + (dir / "out-k2").string() + " --device cuda --batch-files 2", &out, dir), 0)
      << out;
  for (const char* name : {"a.j2k", "b.j2k"})
    EXPECT_EQ(bytes_of(dir / "out-cpu" / name), bytes_of(dir / "out-k2" / name)) << name;
  for (const char* share : {"0", "1"}) {
    ASSERT_EQ(run("encode" + batch + " -o " + (dir / "out-share").string() + " --device cuda --device-share " + share,
                  &out, dir),
              0)
        << out;
    for (const char* name : {"a.j2k", "b.j2k"})
      EXPECT_EQ(bytes_of(dir / "out-cpu" / name), bytes_of(dir / "out-share" / name)) << name << " share " << share;
  }
  // Two device slots, rounds that close when a slot is free, every block
  // on the device, three files at once: still the CPU's files and images.
  const std::string rounds = " --device cuda --device-share 1 --device-slots 2 --device-rounds free --batch-files 3";
  ASSERT_EQ(run("encode" + batch + " -o " + (dir / "out-rounds").string() + rounds, &out, dir), 0) << out;
  for (const char* name : {"a.j2k", "b.j2k"})
    EXPECT_EQ(bytes_of(dir / "out-cpu" / name), bytes_of(dir / "out-rounds" / name)) << name;
  // A batch decodes Part 1 blocks on the device and the CPU: the CPU's images.
  const std::string decode_batch = "decode -i " + (dir / "out-cpu").string() + " -OutFor ppm -quiet -o ";
  ASSERT_EQ(run(decode_batch + (dir / "dec-cpu").string() + " --device cpu", &out, dir), 0) << out;
  ASSERT_EQ(run(decode_batch + (dir / "dec-cuda").string() + " --device cuda", &out, dir), 0) << out;
  ASSERT_EQ(run(decode_batch + (dir / "dec-rounds").string() + rounds, &out, dir), 0) << out;
  for (const char* name : {"a.ppm", "b.ppm"}) {
    EXPECT_EQ(bytes_of(dir / "dec-cpu" / name), bytes_of(dir / "dec-cuda" / name)) << name;
    EXPECT_EQ(bytes_of(dir / "dec-cpu" / name), bytes_of(dir / "dec-rounds" / name)) << name;
  }
  fs::remove_all(dir);
}

// --device-share (encode and decode), --device-slots and --device-rounds
// (tools/engine_options.h): bad values are named.
TEST(BatchCli, DeviceRoundOptionsNameBadValues) {
  const fs::path dir = testing::make_temp_dir("batch-device-options");
  std::string out;
  const std::string encode = "encode -i " + (dir / "in").string() + " -o " + (dir / "out").string() + " ";
  EXPECT_EQ(run(encode + "--device-slots 5", &out, dir), 2);
  EXPECT_NE(out.find("--device-slots must be a whole number from 1 to 4, got '5'"), std::string::npos) << out;
  EXPECT_EQ(run(encode + "--device-rounds soon", &out, dir), 2);
  EXPECT_NE(out.find("--device-rounds must be 'window', 'free' or 'idle', got 'soon'"), std::string::npos) << out;
  EXPECT_EQ(run("decode -i x.j2k -o x.ppm --device-share 2", &out, dir), 2);
  EXPECT_NE(out.find("--device-share must be a number from 0 to 1, got '2'"), std::string::npos) << out;
  fs::remove_all(dir);
}

// MALLAT_TIMELINE=FILE (common/timeline.h): every file's read, stages,
// code and write, each with its file and lane, as CSV.
TEST(BatchCli, TimelineHoldsEveryFilesSteps) {
  const fs::path dir = testing::make_temp_dir("batch-timeline");
  fs::create_directories(dir / "in");
  for (int i = 0; i < 3; ++i) write_generated(dir / "in" / ("f" + std::to_string(i) + ".ppm"), 90, 60, 3, i);
  std::string out;
  const auto steps_of = [&](const std::string& args, const fs::path& csv) {
    setenv("MALLAT_TIMELINE", csv.c_str(), 1);
    const int status = run(args, &out, dir);
    unsetenv("MALLAT_TIMELINE");
    EXPECT_EQ(status, 0) << out;
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "file,lane,what,start_ms,end_ms,detail");
    std::set<std::string> seen;  // "file what"
    const std::regex row(R"((-?\d+),(-?\d+),(\w+),([\d.]+),([\d.]+),.*)");
    while (std::getline(in, line)) {
      std::smatch m;
      EXPECT_TRUE(std::regex_match(line, m, row)) << line;
      if (m.empty()) continue;
      EXPECT_LE(std::stod(m[4]), std::stod(m[5])) << line;
      // A helper that has coded on no lane yet records its help on lane -1.
      if (m[3] != "read" && m[3] != "lane_wait" && m[3] != "help") {
        EXPECT_TRUE(m[2] == "0" || m[2] == "1") << line;
      }
      seen.insert(m[1].str() + " " + m[3].str());
    }
    return seen;
  };
  const std::set<std::string> encoded =
      steps_of("encode -i " + (dir / "in").string() + kOptions + " -OutFor j2k -quiet --batch-files 2 --whole-image -o " +
                   (dir / "enc").string(),
               dir / "encode.csv");
  // By default PNM files are encoded strip by strip: their strips are spans.
  const std::set<std::string> encoded_in_strips =
      steps_of("encode -i " + (dir / "in").string() + kOptions + " -OutFor j2k -quiet --batch-files 2 -o " +
                   (dir / "enc_strips").string(),
               dir / "encode_strips.csv");
  const std::set<std::string> decoded = steps_of("decode -i " + (dir / "enc").string() +
                                                     " -OutFor ppm -threads 2 -quiet --batch-files 2 --whole-image -o " +
                                                     (dir / "dec").string(),
                                                 dir / "decode.csv");
  // By default the files are decoded strip by strip: each row of
  // code-blocks a span.
  const std::set<std::string> streamed = steps_of(
      "decode -i " + (dir / "enc").string() + " -OutFor ppm -threads 2 -quiet --batch-files 2 -o " + (dir / "str").string(),
      dir / "streamed.csv");
  for (int i = 0; i < 3; ++i) {
    const std::string f = std::to_string(i) + " ";
    for (const char* what : {"read", "code", "colour", "dwt", "quant_tier1", "tier2", "write"})
      EXPECT_TRUE(encoded.count(f + what)) << f << what;
    for (const char* what : {"read", "code", "tier2", "tier1_dequant", "idwt", "output", "write"})
      EXPECT_TRUE(decoded.count(f + what)) << f << what;
    for (const char* what : {"read", "code", "row_blocks", "write"})
      EXPECT_TRUE(streamed.count(f + what)) << f << what;
    for (const char* what : {"read", "code", "strip_blocks", "tier2", "write"})
      EXPECT_TRUE(encoded_in_strips.count(f + what)) << f << what;
  }
  fs::remove_all(dir);
}

TEST(BatchCli, BenchCodecPrintsEveryStage) {
  const fs::path dir = testing::make_temp_dir("bench-codec");
  write_generated(dir / "a.ppm", 96, 64, 3, 6);
  write_generated(dir / "b.pgm", 64, 40, 1, 7);
  std::string out;
  ASSERT_EQ(run("bench codec " + (dir / "a.ppm").string() + " " + (dir / "b.pgm").string() +
                    " --runs 2 --warmup 0 -threads 2 -I -r 20 --device cpu",
                &out, dir),
            0)
      << out;
  EXPECT_NE(out.find("2 files"), std::string::npos) << out;
  for (const char* stage : {"read", "colour transform", "DWT", "quantisation + Tier-1", "rate allocation", "Tier-2",
                            "write", "Tier-1 + dequantisation", "inverse DWT", "inverse colour transform"})
    EXPECT_NE(out.find(stage), std::string::npos) << stage << "\n" << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("encode: [0-9.]+ ms a round: [0-9.]+ images/s, [0-9.]+ MP/s"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("decode: [0-9.]+ ms a round: [0-9.]+ images/s, [0-9.]+ MP/s"))) << out;
  // The files as one batch a round: its wall time and its share an image.
  ASSERT_EQ(run("bench codec " + (dir / "a.ppm").string() + " " + (dir / "b.pgm").string() +
                    " --batch --runs 2 --warmup 0 -threads 2 -I -r 20 --device cpu",
                &out, dir),
            0)
      << out;
  EXPECT_NE(out.find("--batch: 2 files"), std::string::npos) << out;
  EXPECT_NE(out.find("the device not used"), std::string::npos) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("encode: [0-9.]+ ms a round, [0-9.]+ ms an image"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("decode: [0-9.]+ ms a round, [0-9.]+ ms an image"))) << out;
  EXPECT_EQ(run("bench codec --runs 2", &out, dir), 2) << out;
  EXPECT_EQ(run("bench codec " + (dir / "a.ppm").string() + " -o x.j2k", &out, dir), 2) << out;
  // Whole tiles on the device where there is one (its steps then listed),
  // else the CPU's coders: a lossless round either way.
  ASSERT_EQ(run("bench codec " + (dir / "a.ppm").string() + " --runs 1 --warmup 0 -threads 2 --device auto "
                "--device-stages all",
                &out, dir),
            0)
      << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("encode: [0-9.]+ ms a round"))) << out;
  EXPECT_NE(out.find("1 files"), std::string::npos) << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
