// opj_compress lossy streams -> mallat decode, against opj_decompress of the
// same stream: irreversible 9/7 streams agree
// within 1 in every sample; truncated reversible 5/3 streams (fewer passes
// than bit-planes, or fewer layers decoded) give identical samples, since
// both decoders reconstruct at the same mid-points (E.1.1.2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "common/metrics.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/interop/generated.h"
#include "tests/interop/opj.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

struct LossyCase {
  std::string compress;  // opj_compress options
  int reduce = 0;        // -r on both sides
  int layers = 0;        // -l on both sides; 0 = all
};

// Every sample of every component (bar those marked in `skip`) within
// max_difference of opj_decompress's.
void expect_within(const Image& ours, const Image& theirs, int max_difference, const std::string& what,
                   const std::vector<bool>& skip = {}) {
  for (int k = 0; k < ours.num_components(); ++k) {
    if (k < static_cast<int>(skip.size()) && skip[k]) continue;
    const Component& a = ours.components[k];
    const Component& b = theirs.components[k];
    ASSERT_EQ(a.width, b.width) << what;
    ASSERT_EQ(a.height, b.height) << what;
    int64_t worst = 0, differing = 0;
    for (size_t i = 0; i < a.samples.size(); ++i) {
      const int64_t d = std::llabs(int64_t{a.samples[i]} - b.samples[i]);
      worst = std::max(worst, d);
      differing += d != 0;
    }
    EXPECT_LE(worst, max_difference) << what << " component " << k << ": " << differing << " of "
                                     << a.samples.size() << " samples differ";
  }
}

// Encodes `input` with opj_compress, decodes with opj_decompress and with
// codec::decode, and checks every sample of every component: |ours -
// theirs| <= max_difference.
void expect_matches_opj_decompress(const fs::path& input, const LossyCase& c, int max_difference) {
  ASSERT_TRUE(testing::have_program("opj_compress")) << "opj_compress is not installed";
  ASSERT_TRUE(testing::have_program("opj_decompress")) << "opj_decompress is not installed";
  const std::string what = input.filename().string() + " '" + c.compress + "' -r " +
                           std::to_string(c.reduce) + " -l " + std::to_string(c.layers);
  const fs::path dir = testing::make_temp_dir("o2m-lossy");
  const fs::path stream = dir / "x.j2k";
  ASSERT_EQ(testing::run_command("opj_compress -i " + input.string() + " -o " + stream.string() + " " +
                                     c.compress, dir / "log.txt"), 0) << what;
  std::string args = " -r " + std::to_string(c.reduce);
  if (c.layers > 0) args += " -l " + std::to_string(c.layers);
  ASSERT_EQ(testing::run_command("opj_decompress -i " + stream.string() + " -o " +
                                     (dir / "o.pgx").string() + args, dir / "log.txt"), 0) << what;
  auto data = io::read_file(stream);
  ASSERT_TRUE(data.ok());
  codec::DecodeOptions options;
  options.reduce = c.reduce;
  options.layers = c.layers;
  auto ours = codec::decode(*data, options);
  ASSERT_TRUE(ours.ok()) << what << ": " << ours.status().to_string();
  auto theirs = testing::read_pgx_components(dir, "o", ours->num_components());
  ASSERT_TRUE(theirs.ok()) << what << ": " << theirs.status().to_string();
  expect_within(*ours, *theirs, max_difference, what);
  fs::remove_all(dir);
}

fs::path image(const char* name) { return testing::testdata_dir() / "images" / name; }

TEST(OpjLossyToMallat, IrreversibleWithinOne) {
  MALLAT_REQUIRE_TESTDATA("images");
  for (const LossyCase& c : {LossyCase{"-I"}, LossyCase{"-I -r 20"}, LossyCase{"-I -r 40,20,10"},
                             LossyCase{"-I -n 3"}, LossyCase{"-I -t 256,200 -r 30"},
                             LossyCase{"-I -r 40,20,10", 0, 1}, LossyCase{"-I -r 20", 1, 0},
                             LossyCase{"-I -r 40,20,10 -p RPCL -t 300,300", 2, 2},
                             LossyCase{"-I -r 20,10 -M 63", 0, 1}}) {
    expect_matches_opj_decompress(image("Bretagne1.ppm"), c, 1);
  }
  for (const char* name : {"flower-minisblack-12.tif", "Rome.bmp"}) {
    expect_matches_opj_decompress(image(name), LossyCase{"-I -r 15"}, 1);
  }
}

// At 16 bits single precision runs out: OpenJPEG's float pipeline is itself
// up to 2 away from the exact result (measured on flower-minisblack-16.tif
// coded with -I: opj_decompress peak 2, MSE 0.30 against the original;
// mallat peak 1, MSE 0.08). There the bound is 2, and mallat must be at
// least as close to the original as opj_decompress.
TEST(OpjLossyToMallat, IrreversibleSixteenBits) {
  MALLAT_REQUIRE_TESTDATA("images");
  for (const char* name : {"flower-minisblack-16.tif", "flower-rgb-contig-16.tif"}) {
    expect_matches_opj_decompress(image(name), LossyCase{"-I -r 15"}, 2);
    const fs::path dir = testing::make_temp_dir("o2m-16");
    const fs::path stream = dir / "x.j2k";
    ASSERT_EQ(testing::run_command("opj_compress -I -i " + image(name).string() + " -o " + stream.string(),
                                   dir / "log.txt"), 0);
    ASSERT_EQ(testing::run_command("opj_decompress -i " + stream.string() + " -o " + (dir / "o.pgx").string(),
                                   dir / "log.txt"), 0);
    auto original = io::read_image(image(name));
    ASSERT_TRUE(original.ok());
    auto data = io::read_file(stream);
    ASSERT_TRUE(data.ok());
    auto ours = codec::decode(*data, codec::DecodeOptions{});
    ASSERT_TRUE(ours.ok()) << ours.status().to_string();
    auto theirs = testing::read_pgx_components(dir, "o", original->num_components());
    ASSERT_TRUE(theirs.ok()) << theirs.status().to_string();
    for (Image* im : {&*ours, &*theirs}) im->color_space = original->color_space;
    auto our_error = compare_images(*ours, *original);
    auto their_error = compare_images(*theirs, *original);
    ASSERT_TRUE(our_error.ok() && their_error.ok());
    EXPECT_LE(our_error->overall.mse, their_error->overall.mse) << name;
    EXPECT_LE(our_error->overall.peak_error, their_error->overall.peak_error) << name;
    fs::remove_all(dir);
  }
}

TEST(OpjLossyToMallat, TruncatedReversibleIdentical) {
  MALLAT_REQUIRE_TESTDATA("images");
  for (const LossyCase& c : {LossyCase{"-r 10"}, LossyCase{"-r 40,20,10"}, LossyCase{"-r 40,20,10", 0, 1},
                             LossyCase{"-r 40,20,10", 0, 2}, LossyCase{"-r 10 -t 200,200", 1, 0},
                             LossyCase{"-r 60,30,1 -p RLCP", 0, 2}, LossyCase{"-r 20 -M 7"},
                             LossyCase{"-r 40,20 -M 63", 0, 1}}) {
    expect_matches_opj_decompress(image("Cevennes2.ppm"), c, 0);
  }
  for (const char* name : {"flower-minisblack-12.tif", "flower-rgb-contig-16.tif"}) {
    expect_matches_opj_decompress(image(name), LossyCase{"-r 15"}, 0);
  }
}

}  // namespace
}  // namespace mallat

namespace mallat {
namespace {

// Every shared conformance codestream decodes as opj_decompress decodes it,
// at full resolution and one level down (where a stream has a level):
// identically where every component is reversible (ROI, truncated layers
// and all), within 1 where any is irreversible. Except irreversible
// components with a region of interest: OpenJPEG tests the ROI threshold on
// its doubled magnitudes (one fractional bit) and drops the mid-point of the
// shifted ones, where H.1 tests the magnitude itself; on p0_06 component 0
// that puts opj_decompress further from the ISO reference (MSE 2645.8) than
// mallat (2514.7), both within the limit of 11287 (conformance_test checks it).
void expect_conformance_streams_match_opj(int reduce) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  ASSERT_TRUE(testing::have_program("opj_decompress")) << "opj_decompress is not installed";
  const fs::path dir = testing::make_temp_dir("o2m-conf-r" + std::to_string(reduce));
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(testing::testdata_dir() / "conformance")) {
    const fs::path stream = entry.path();
    if (stream.extension() != ".j2k") continue;
    auto data = io::read_file(stream);
    ASSERT_TRUE(data.ok());
    auto cs = codec::parse_codestream(*data);
    ASSERT_TRUE(cs.ok()) << stream << ": " << cs.status().to_string();
    bool reversible = cs->main.cod.component.reversible;
    int min_levels = cs->main.cod.component.levels;
    auto note = [&](const codec::ComponentCoding& cc) {
      reversible = reversible && cc.reversible;
      min_levels = std::min(min_levels, cc.levels);
    };
    for (const auto& [c, coc] : cs->main.coc) note(coc);
    std::vector<bool> roi(cs->main.siz.components.size(), false);
    for (const auto& r : cs->main.rgn) roi[r.component] = true;
    for (const codec::Tile& t : cs->tiles) {
      if (t.overrides.cod) note(t.overrides.cod->component);
      for (const auto& [c, coc] : t.overrides.coc) note(coc);
      for (const auto& r : t.overrides.rgn) roi[r.component] = true;
    }
    if (reduce > min_levels) continue;
    std::vector<bool> skip(roi.size(), false);
    if (!reversible) skip = roi;
    const std::string what = stream.filename().string() + " -r " + std::to_string(reduce);
    fs::remove_all(dir);
    fs::create_directories(dir);
    ASSERT_EQ(testing::run_command("opj_decompress -i " + stream.string() + " -r " + std::to_string(reduce) +
                                       " -o " + (dir / "o.pgx").string(), dir / "log.txt"), 0) << what;
    codec::DecodeOptions options;
    options.reduce = reduce;
    auto ours = codec::decode(*data, options);
    ASSERT_TRUE(ours.ok()) << what << ": " << ours.status().to_string();
    auto theirs = testing::read_pgx_components(dir, "o", ours->num_components());
    ASSERT_TRUE(theirs.ok()) << what << ": " << theirs.status().to_string();
    expect_within(*ours, *theirs, reversible ? 0 : 1, what, skip);
    ++checked;
  }
  EXPECT_GE(checked, 18);
  fs::remove_all(dir);
}

TEST(OpjLossyToMallat, ConformanceStreamsMatchOpjDecompress) { expect_conformance_streams_match_opj(0); }

TEST(OpjLossyToMallat, ConformanceStreamsReducedMatchOpjDecompress) { expect_conformance_streams_match_opj(1); }

}  // namespace
}  // namespace mallat

namespace mallat {
namespace {

// Precision beyond 16 bits (unsigned; OpenJPEG 2.5's PGX reader misreads
// signed ones): opj_compress's lossless streams decode exactly at 20 and 24
// bits, and its 9/7 stream at 20 bits decodes at least as close to the
// original as opj_decompress gets (measured: mallat peak 1, MSE 0.099;
// opj_decompress peak 9, MSE 7.2 — its single-precision pipeline runs out
// of bits). At 24 bits opj_compress's own 9/7 output is already far from
// the original (both decoders MSE 1.2e13), so that case says nothing.
TEST(OpjLossyToMallat, HighPrecision) {
  ASSERT_TRUE(testing::have_program("opj_compress")) << "opj_compress is not installed";
  const fs::path dir = testing::make_temp_dir("o2m-precision");
  for (int precision : {20, 24}) {
    const Image original = testing::generated_image(61, 37, 1, precision, false, precision);
    const fs::path pgx = dir / "in.pgx";
    ASSERT_TRUE(io::write_pgx_component(original.components[0], pgx).ok());
    for (const char* options : {"", "-I"}) {
      if (precision > 20 && *options != '\0') continue;
      const std::string what = std::to_string(precision) + " bits '" + options + "'";
      const fs::path stream = dir / "x.j2k";
      ASSERT_EQ(testing::run_command("opj_compress -i " + pgx.string() + " -o " + stream.string() + " " + options,
                                     dir / "log.txt"), 0) << what;
      ASSERT_EQ(testing::run_command("opj_decompress -i " + stream.string() + " -o " + (dir / "o.pgx").string(),
                                     dir / "log.txt"), 0) << what;
      auto data = io::read_file(stream);
      ASSERT_TRUE(data.ok());
      auto ours = codec::decode(*data, codec::DecodeOptions{});
      ASSERT_TRUE(ours.ok()) << what << ": " << ours.status().to_string();
      auto theirs = testing::read_pgx_components(dir, "o", 1);
      ASSERT_TRUE(theirs.ok()) << theirs.status().to_string();
      ASSERT_EQ(ours->components[0].precision, precision);
      auto our_error = compare_images(*ours, original);
      auto their_error = compare_images(*theirs, original);
      ASSERT_TRUE(our_error.ok() && their_error.ok()) << what;
      if (*options == '\0') {
        EXPECT_EQ(our_error->overall.peak_error, 0) << what;
      } else {
        std::printf("%s: mallat peak %lld MSE %.3f, opj_decompress peak %lld MSE %.3f\n", what.c_str(),
                    static_cast<long long>(our_error->overall.peak_error), our_error->overall.mse,
                    static_cast<long long>(their_error->overall.peak_error), their_error->overall.mse);
        EXPECT_LE(our_error->overall.mse, their_error->overall.mse) << what;
        EXPECT_LE(our_error->overall.peak_error, their_error->overall.peak_error) << what;
      }
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
