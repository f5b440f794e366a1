// One JP2 conformance check (15444-4, the JP2 rows of TOLERANCES.tsv): decode
// the file as `mallat decode -force-rgb -p 8S --icc-to-srgb` does (palette
// expanded, channels ordered, sYCC and restricted ICC converted to sRGB,
// greyscale replicated, precision brought to 8 bits by a right shift, which
// is how the reference TIFFs were made: 12-bit file6 matches them exactly),
// and compare it with the reference TIFF against the row's per-component
// peak-error and MSE limits.
//
// usage: jp2_conformance CONFORMANCE_DIR FILE.jp2   (exit 0 pass, 1 fail)
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/jp2/jp2_colour.h"
#include "common/metrics.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tools/decode_output.h"

namespace {

using namespace mallat;

struct Row {
  int reduce = 0;
  int components = 0;
  std::vector<double> peak, mse;
  std::string reference;
};

std::vector<double> split_numbers(const std::string& s) {
  std::vector<double> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ':')) out.push_back(std::stod(item));
  return out;
}

// The row of TOLERANCES.tsv for `file`: file, reduce, components,
// peak:peak:..., mse:mse:..., reference path.
Result<Row> find_row(const std::string& table, const std::string& file) {
  std::ifstream in(table);
  if (!in) return io_error(table + ": cannot open");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream fields(line);
    std::vector<std::string> f;
    std::string item;
    while (std::getline(fields, item, '\t')) f.push_back(item);
    if (f.empty() || f[0] != file) continue;
    if (f.size() < 6) return corrupt_data(table + ": the row of " + file + " has " + std::to_string(f.size()) + " fields, not 6");
    Row row;
    try {
      row.reduce = std::stoi(f[1]);
      row.components = std::stoi(f[2]);
      row.peak = split_numbers(f[3]);
      row.mse = split_numbers(f[4]);
    } catch (const std::exception&) {
      return corrupt_data(table + ": the row of " + file + " has a field that is not a number");
    }
    row.reference = f[5];
    if (static_cast<int>(row.peak.size()) != row.components || static_cast<int>(row.mse.size()) != row.components)
      return corrupt_data(table + ": the row of " + file + " does not give one limit per component");
    return row;
  }
  return invalid_argument(table + ": no row for " + file);
}

int check(const std::string& dir, const std::string& file) {
  auto row = find_row(dir + "/TOLERANCES.tsv", file);
  if (!row.ok()) {
    std::fprintf(stderr, "%s\n", row.status().message().c_str());
    return 1;
  }
  auto data = io::read_file(dir + "/" + file);
  if (!data.ok()) {
    std::fprintf(stderr, "%s\n", data.status().message().c_str());
    return 1;
  }
  codec::DecodeOptions options;
  options.reduce = row->reduce;
  codec::DecodeReport report;
  auto image = codec::decode(*data, options, &report);
  for (const auto& w : report.warnings) std::printf("warning: %s\n", w.c_str());
  if (!image.ok()) {
    std::fprintf(stderr, "%s: %s\n", file.c_str(), image.status().message().c_str());
    return 1;
  }
  tools::DecodeOutputOptions output;
  output.force_rgb = true;
  output.icc_to_srgb = true;
  output.precision = {{8, true}};
  Status s = tools::prepare_output(*image, row->reduce, "decoded.tif", output, nullptr);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", file.c_str(), s.message().c_str());
    return 1;
  }
  auto reference = io::read_image(dir + "/" + row->reference);
  if (!reference.ok()) {
    std::fprintf(stderr, "%s\n", reference.status().message().c_str());
    return 1;
  }
  if (image->num_components() < row->components || reference->num_components() < row->components) {
    std::fprintf(stderr, "%s: %d components decoded, %d in the reference, %d to compare\n", file.c_str(),
                 image->num_components(), reference->num_components(), row->components);
    return 1;
  }
  image->components.resize(row->components);
  reference->components.resize(row->components);
  auto cmp = compare_images(*image, *reference);
  if (!cmp.ok()) {
    std::fprintf(stderr, "%s vs %s: %s\n", file.c_str(), row->reference.c_str(), cmp.status().message().c_str());
    return 1;
  }
  bool pass = true;
  for (int c = 0; c < row->components; ++c) {
    const ErrorStats& e = cmp->components[c];
    const bool ok = static_cast<double>(e.peak_error) <= row->peak[c] && e.mse <= row->mse[c];
    pass = pass && ok;
    std::printf("%s component %d: peak %lld (limit %g), MSE %.4f (limit %g) %s\n", file.c_str(), c,
                static_cast<long long>(e.peak_error), row->peak[c], e.mse, row->mse[c], ok ? "ok" : "FAIL");
  }
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: jp2_conformance CONFORMANCE_DIR FILE.jp2\n");
    return 2;
  }
  return check(argv[1], argv[2]);
}
