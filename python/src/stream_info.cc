#include "python/src/stream_info.h"

#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "python/src/errors.h"

namespace py = pybind11;

namespace mallat::python {
namespace {

// A.6.1, Table A.16, in the order of codec::ProgressionOrder.
const char* progression_name(codec::ProgressionOrder order) {
  static const char* const kNames[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  return kNames[static_cast<int>(order)];
}

py::dict jp2_header_info(const codec::Jp2File& jp2) {
  py::dict d;
  if (const codec::ColourSpecification* colr = codec::first_colour_specification(jp2)) {
    if (colr->method == 1)
      d["colour_space"] = codec::enumerated_colour_space(colr->enumerated).name;
    else if (colr->method == 2)
      d["colour_space"] = "ICC profile (" + std::to_string(colr->icc_profile.size()) + " bytes)";
  }
  d["palette"] = jp2.palette.has_value();
  py::list roles;
  for (const codec::ChannelDefinition& c : jp2.channel_definitions)
    roles.append(c.type == 0 ? "colour" : c.type == 1 ? "opacity" : c.type == 2 ? "premultiplied opacity"
                                                                                 : "unspecified");
  d["channel_roles"] = roles;
  return d;
}

}  // namespace

py::dict stream_info(std::span<const uint8_t> data) {
  py::dict d;
  std::span<const uint8_t> stream = data;
  const codec::Container container = codec::detect_container(data);
  if (container == codec::Container::kUnknown)
    throw CodecError(corrupt_data("neither a JP2 file nor a JPEG 2000 codestream (no SOC marker or JP2 signature "
                                  "box at byte 0)"));
  if (container == codec::Container::kJp2) {
    codec::Jp2File jp2 = value_or_throw(codec::parse_jp2(data));
    stream = data.subspan(jp2.codestream_offset, jp2.codestream_length);
    d["jp2"] = jp2_header_info(jp2);
  }
  const codec::MainHeader main = value_or_throw(codec::parse_main_header(stream));
  const codec::ImageAndTileSize& siz = main.siz;
  d["container"] = container == codec::Container::kJp2 ? "jp2" : "j2k";
  d["height"] = siz.ysiz - siz.yosiz;
  d["width"] = siz.xsiz - siz.xosiz;
  d["components"] = siz.components.size();
  d["origin"] = py::make_tuple(siz.yosiz, siz.xosiz);
  py::list precision, is_signed, subsampling;
  for (const codec::ComponentSize& c : siz.components) {
    precision.append(c.precision);
    is_signed.append(c.is_signed);
    subsampling.append(py::make_tuple(c.dy, c.dx));
  }
  d["bits"] = precision;
  d["signed"] = is_signed;
  d["subsampling"] = subsampling;
  d["tile_size"] = py::make_tuple(siz.ytsiz, siz.xtsiz);
  d["tile_origin"] = py::make_tuple(siz.ytosiz, siz.xtosiz);
  d["tiles"] = uint64_t{siz.tiles_x()} * siz.tiles_y();
  const codec::CodingStyle& cod = main.cod;
  d["levels"] = cod.component.levels;
  d["layers"] = cod.layers;
  d["progression"] = progression_name(cod.order);
  d["reversible"] = cod.component.reversible;
  d["mct"] = cod.multiple_component_transform;
  d["code_block_size"] = py::make_tuple(1 << cod.component.ycb, 1 << cod.component.xcb);
  // 15444-15: the HT bit of the code-block style (Table A.19's bit 6).
  d["ht"] = cod.component.style.ht;
  return d;
}

}  // namespace mallat::python
