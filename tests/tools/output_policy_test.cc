// Every decodable image writes to every output format
// (tools/output_policy.h). Each image kind that a writer cannot hold as it
// is, through prepare_output and write_outputs as `mallat decode` runs them
// and read back: the file holds what the policy says, with a note.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/image_io.h"
#include "tests/testdata.h"
#include "tools/decode_output.h"

namespace mallat::tools {
namespace {

namespace fs = std::filesystem;

Component plane(int64_t w, int64_t h, int precision, bool is_signed, int seed) {
  Component c;
  c.width = w;
  c.height = h;
  c.precision = precision;
  c.is_signed = is_signed;
  for (int64_t i = 0; i < w * h; ++i) {
    const int64_t span = int64_t{1} << precision;
    c.samples.push_back(static_cast<int32_t>((i * 37 + seed * 101) % span + c.min_value()));
  }
  return c;
}

Image image_of(std::vector<Component> components, bool alpha) {
  Image image;
  image.components = std::move(components);
  image.has_alpha = alpha;
  image.color_space = image.num_components() >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;
  return image;
}

struct Written {
  Image image;                     // read back from the file
  std::vector<std::string> notes;  // what prepare_output said
};

// prepare_output + write_outputs to `name` in `dir`, then the file read back.
Written write_and_read(Image image, const fs::path& dir, const std::string& name, DecodeOutputOptions options = {}) {
  Written w;
  const fs::path out = dir / name;
  Status s = prepare_output(image, 0, out, options, &w.notes);
  EXPECT_TRUE(s.ok()) << name << ": " << s.to_string();
  s = write_outputs(image, out, options);
  EXPECT_TRUE(s.ok()) << name << ": " << s.to_string();
  const auto paths = output_paths(image, out, options);
  for (const fs::path& p : paths) {
    auto back = io::read_image(p);
    EXPECT_TRUE(back.ok()) << p << ": " << back.status().to_string();
    if (!back.ok()) continue;
    for (Component& c : back->components) w.image.components.push_back(std::move(c));
  }
  return w;
}

bool any_note(const std::vector<std::string>& notes, const std::string& text) {
  for (const std::string& n : notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

void expect_samples(const Component& got, const Component& want, const std::string& what) {
  ASSERT_EQ(got.width, want.width) << what;
  ASSERT_EQ(got.height, want.height) << what;
  EXPECT_TRUE(got.samples == want.samples) << what;
}

const char* const kInterleaved[] = {"x.ppm", "x.pam", "x.png", "x.tif", "x.bmp"};

// Grey + alpha and RGBA: PPM/PGM and BMP drop the alpha channel (a note
// says so, and what keeps it); PAM, PNG and TIFF keep it.
TEST(OutputPolicy, AlphaDroppedOnlyWhereTheFormatCannotHoldIt) {
  const fs::path dir = testing::make_temp_dir("policy-alpha");
  for (int colours : {1, 3}) {
    std::vector<Component> comps;
    for (int c = 0; c <= colours; ++c) comps.push_back(plane(7, 5, 8, false, c));
    const Image original = image_of(comps, true);
    for (const char* name : kInterleaved) {
      SCOPED_TRACE(std::string(name) + " with " + std::to_string(colours) + " colour channel(s)");
      const Written w = write_and_read(original, dir, name);
      const std::string ext = fs::path(name).extension().string();
      const bool keeps = ext == ".pam" || ext == ".png" || ext == ".tif";
      ASSERT_EQ(w.image.num_components(), keeps ? colours + 1 : colours);
      for (int c = 0; c < w.image.num_components(); ++c) expect_samples(w.image.components[c], original.components[c], "c");
      EXPECT_EQ(any_note(w.notes, "(alpha) not written"), !keeps);
    }
  }
  fs::remove_all(dir);
}

// Signed 12-bit samples: offset by 2^11 to unsigned where the format holds
// no sign (as opj_decompress), then BMP's 8 bits by a right shift; PGX keeps
// them signed.
TEST(OutputPolicy, SignedSamplesOffsetToUnsigned) {
  const fs::path dir = testing::make_temp_dir("policy-signed");
  const Image original = image_of({plane(9, 4, 12, true, 0)}, false);
  Component offset = original.components[0];
  for (int32_t& v : offset.samples) v += 2048;
  Component bmp = offset;
  for (int32_t& v : bmp.samples) v >>= 4;
  for (const char* name : {"x.ppm", "x.pam", "x.png", "x.tif", "x.bmp", "x.pgx"}) {
    SCOPED_TRACE(name);
    const Written w = write_and_read(original, dir, name);
    ASSERT_EQ(w.image.num_components(), 1);
    const std::string ext = fs::path(name).extension().string();
    if (ext == ".pgx") {
      expect_samples(w.image.components[0], original.components[0], "PGX keeps the sign");
      EXPECT_TRUE(w.image.components[0].is_signed);
      continue;
    }
    expect_samples(w.image.components[0], ext == ".bmp" ? bmp : offset, "offset");
    EXPECT_TRUE(any_note(w.notes, "offset by 2^(bits-1) to unsigned"));
  }
  // One PGM per component: each offset too.
  DecodeOutputOptions split;
  split.split_pnm = true;
  const Image two = image_of({plane(9, 4, 12, true, 0), plane(9, 4, 12, true, 1)}, false);
  const Written w = write_and_read(two, dir, "s.pgm", split);
  ASSERT_EQ(w.image.num_components(), 2);
  expect_samples(w.image.components[0], offset, "split");
  fs::remove_all(dir);
}

// Components all sub-sampled 2x2 are written at their size; components of
// different sizes are upsampled (a note each).
TEST(OutputPolicy, SubSampledComponentsAtTheirSizeOrUpsampled) {
  const fs::path dir = testing::make_temp_dir("policy-sub");
  std::vector<Component> comps;
  for (int c = 0; c < 3; ++c) {
    comps.push_back(plane(5, 4, 8, false, c));
    comps.back().dx = comps.back().dy = 2;
  }
  const Image alike = image_of(comps, false);
  for (const char* name : kInterleaved) {
    SCOPED_TRACE(name);
    const Written w = write_and_read(alike, dir, name);
    ASSERT_EQ(w.image.num_components(), 3);
    for (int c = 0; c < 3; ++c) expect_samples(w.image.components[c], alike.components[c], "at its size");
    EXPECT_TRUE(any_note(w.notes, "every component is sub-sampled 2x2: written at its size, 5x4"));
  }
  Image mixed = image_of({plane(10, 8, 8, false, 0), plane(5, 4, 8, false, 1), plane(5, 4, 8, false, 2)}, false);
  for (int c = 1; c < 3; ++c) mixed.components[c].dx = mixed.components[c].dy = 2;
  const Written w = write_and_read(mixed, dir, "m.ppm");
  ASSERT_EQ(w.image.num_components(), 3);
  EXPECT_EQ(w.image.components[1].width, 10);
  EXPECT_EQ(w.image.components[1].samples[3 * 10 + 7], mixed.components[1].samples[1 * 5 + 3]);
  EXPECT_TRUE(any_note(w.notes, "upsampled to the image grid"));
  fs::remove_all(dir);
}

// Five components: PPM keeps 3, PNG and TIFF 4, PAM all five. Precisions 8
// and 12 together become 12 (the 8-bit channel scaled as -p 12S).
TEST(OutputPolicy, ExtraComponentsAndMixedPrecisions) {
  const fs::path dir = testing::make_temp_dir("policy-extra");
  std::vector<Component> comps;
  for (int c = 0; c < 5; ++c) comps.push_back(plane(6, 3, 8, false, c));
  const Image five = image_of(comps, false);
  for (const auto& [name, kept] : {std::pair{"x.ppm", 3}, {"x.png", 4}, {"x.tif", 4}, {"x.pam", 5}, {"x.bmp", 3}}) {
    SCOPED_TRACE(name);
    const Written w = write_and_read(five, dir, name);
    ASSERT_EQ(w.image.num_components(), kept);
    for (int c = 0; c < kept; ++c) expect_samples(w.image.components[c], five.components[c], "kept");
    EXPECT_EQ(any_note(w.notes, "not written"), kept < 5);
  }
  const Image mixed = image_of({plane(6, 3, 8, false, 0), plane(6, 3, 12, false, 1), plane(6, 3, 12, false, 2)}, false);
  const Written w = write_and_read(mixed, dir, "p.ppm");
  ASSERT_EQ(w.image.num_components(), 3);
  EXPECT_EQ(w.image.components[0].precision, 12);
  for (size_t i = 0; i < mixed.components[0].samples.size(); ++i)
    EXPECT_EQ(w.image.components[0].samples[i], mixed.components[0].samples[i] * 4095 / 255);
  expect_samples(w.image.components[1], mixed.components[1], "12-bit unchanged");
  EXPECT_TRUE(any_note(w.notes, "one precision"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat::tools
