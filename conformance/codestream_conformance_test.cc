// ISO/IEC 15444-4 class-1 decoding of the profile-0 and profile-1
// codestreams: each row of TOLERANCES.tsv whose reference is a set of PGX
// files (one per component) is one test, and each row of htj2k/
// TOLERANCES_HT.tsv (the same images with HT code-blocks, 15444-15). The stream is decoded at the row's
// reduction through codec::decode and each listed component is compared
// with its reference: peak absolute error and MSE must not exceed the row's
// limits (Table C.1 of 15444-4). Each stream transcoded to the other block
// coder (HT to Part 1, Part 1 to HT) must meet the same limits.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "common/metrics.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

struct ConformanceRow {
  std::string dir;        // the table's folder under testdata: files and references are relative to it
  std::string file;       // p0_01.j2k
  int reduce = 0;
  int components = 0;
  std::vector<double> peak, mse;  // per component
  std::string reference;  // reference/c1p0_01_<c>.pgx
};

// Names the row in gtest's messages instead of dumping its bytes.
void PrintTo(const ConformanceRow& row, std::ostream* os) { *os << row.file << " at reduce " << row.reduce; }

std::vector<double> split_numbers(const std::string& field) {
  std::vector<double> out;
  std::stringstream ss(field);
  std::string part;
  while (std::getline(ss, part, ':')) out.push_back(std::stod(part));
  return out;
}

// The codestream rows of a table: those whose reference is a per-component
// PGX. The TIFF rows (JP2 files) belong to conformance/jp2/.
std::vector<ConformanceRow> read_rows(const std::string& dir, const std::string& table) {
  std::vector<ConformanceRow> rows;
  std::ifstream in(testing::testdata_dir() / dir / table);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    ConformanceRow row;
    row.dir = dir;
    std::string reduce, components, peak, mse;
    if (!std::getline(ss, row.file, '\t') || !std::getline(ss, reduce, '\t') ||
        !std::getline(ss, components, '\t') || !std::getline(ss, peak, '\t') ||
        !std::getline(ss, mse, '\t') || !std::getline(ss, row.reference, '\t')) {
      continue;
    }
    if (row.reference.find("<c>.pgx") == std::string::npos) continue;
    row.reduce = std::stoi(reduce);
    row.components = std::stoi(components);
    row.peak = split_numbers(peak);
    row.mse = split_numbers(mse);
    rows.push_back(row);
  }
  return rows;
}

std::string reference_for(const ConformanceRow& row, int c) {
  std::string name = row.reference;
  name.replace(name.find("<c>"), 3, std::to_string(c));
  return name;
}

class Codestream : public ::testing::TestWithParam<ConformanceRow> {};

// Decodes `data` at the row's reduction and checks each listed component
// against its reference within the row's limits.
void expect_within_limits(const ConformanceRow& row, std::span<const uint8_t> data, const std::string& what) {
  ASSERT_EQ(row.peak.size(), static_cast<size_t>(row.components)) << row.file << ": peak limits";
  ASSERT_EQ(row.mse.size(), static_cast<size_t>(row.components)) << row.file << ": MSE limits";
  const fs::path dir = testing::testdata_dir() / row.dir;
  codec::DecodeOptions options;
  options.reduce = row.reduce;
  codec::DecodeReport report;
  auto decoded = codec::decode(data, options, &report);
  ASSERT_TRUE(decoded.ok()) << what << ": " << decoded.status().to_string();
  ASSERT_GE(decoded->num_components(), row.components) << what;
  for (int c = 0; c < row.components; ++c) {
    auto reference = io::read_image(dir / reference_for(row, c));
    ASSERT_TRUE(reference.ok()) << reference.status().to_string();
    Image ours;
    ours.components.push_back(decoded->components[c]);
    ASSERT_EQ(ours.components[0].width, reference->components[0].width) << what << " component " << c;
    ASSERT_EQ(ours.components[0].height, reference->components[0].height) << what << " component " << c;
    auto cmp = compare_images(ours, *reference);
    ASSERT_TRUE(cmp.ok()) << cmp.status().to_string();
    const ErrorStats& e = cmp->components[0];
    std::printf("%s component %d: peak %lld (limit %g), MSE %.4f (limit %g)\n", what.c_str(), c,
                static_cast<long long>(e.peak_error), row.peak[c], e.mse, row.mse[c]);
    EXPECT_LE(static_cast<double>(e.peak_error), row.peak[c]) << what << " component " << c;
    EXPECT_LE(e.mse, row.mse[c]) << what << " component " << c;
  }
}

TEST_P(Codestream, DecodesWithinLimits) {
  const ConformanceRow& row = GetParam();
  MALLAT_REQUIRE_TESTDATA(row.dir + "/" + row.file);
  auto data = io::read_file(testing::testdata_dir() / row.dir / row.file);
  ASSERT_TRUE(data.ok()) << data.status().to_string();
  expect_within_limits(row, *data, row.file);
}

// The stream transcoded to the other block coder (codec/api/transcode.h):
// HT streams to Part 1, Part 1 streams to HT. The coefficients are kept, so
// the same limits hold.
TEST_P(Codestream, TranscodedDecodesWithinLimits) {
  const ConformanceRow& row = GetParam();
  MALLAT_REQUIRE_TESTDATA(row.dir + "/" + row.file);
  auto data = io::read_file(testing::testdata_dir() / row.dir / row.file);
  ASSERT_TRUE(data.ok()) << data.status().to_string();
  codec::TranscodeOptions options;
  const bool ht = row.dir.find("htj2k") != std::string::npos;
  options.target = ht ? codec::BlockCoder::kPart1 : codec::BlockCoder::kHt;
  auto transcoded = codec::transcode(*data, options);
  ASSERT_TRUE(transcoded.ok()) << row.file << ": " << transcoded.status().to_string();
  expect_within_limits(row, *transcoded, row.file + (ht ? " as Part 1" : " as HT"));
}

std::string row_name(const ::testing::TestParamInfo<ConformanceRow>& info) {
  std::string name = info.param.file.substr(0, info.param.file.find('.'));
  if (info.param.reduce > 0) name += "_r" + std::to_string(info.param.reduce);
  return name;
}

INSTANTIATE_TEST_SUITE_P(Conformance, Codestream, ::testing::ValuesIn(read_rows("conformance", "TOLERANCES.tsv")),
                         row_name);
INSTANTIATE_TEST_SUITE_P(Htj2k, Codestream,
                         ::testing::ValuesIn(read_rows("conformance/htj2k", "TOLERANCES_HT.tsv")), row_name);

}  // namespace
}  // namespace mallat
