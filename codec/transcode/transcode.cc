// codec::transcode: the container, the main header with its code-block
// styles and capabilities changed, each tile through transcode_tile
// (tile_transcoder.h), and the codestream written again with one tile-part
// per tile.
#include "codec/api/transcode.h"

#include <map>
#include <optional>

#include "codec/codestream/capabilities.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/marker_writer.h"
#include "codec/jp2/jp2_boxes.h"
#include "codec/transcode/tile_transcoder.h"
#include "common/thread_pool.h"

namespace mallat::codec {

namespace {

// COD and every COC of a header (main or tile-part) with the target's style.
void restyle(std::optional<CodingStyle>* cod, std::map<int, ComponentCoding>& coc, BlockCoder target) {
  if (cod && *cod) (*cod)->component.style = transcoded_style((*cod)->component.style, target);
  for (auto& [c, cc] : coc) cc.style = transcoded_style(cc.style, target);
}

// What the output's main header says: the input's, with the code-block
// styles and capabilities of the target coder (15444-15 A.2, A.3), without
// what the writer makes again (TLM, PPM) or leaves out (PLM, CPF).
MainHeader output_main_header(const Codestream& cs, BlockCoder target, std::vector<CodingOverrides>& overrides,
                              std::vector<std::string>& warnings) {
  MainHeader main = cs.main;
  main.cod.component.style = transcoded_style(main.cod.component.style, target);
  restyle(nullptr, main.coc, target);
  for (CodingOverrides& o : overrides) restyle(&o.cod, o.coc, target);
  if (target == BlockCoder::kHt) {
    set_ht_capabilities(main, ht_capabilities_of(main, overrides));
  } else {
    set_ht_capabilities(main, std::nullopt);
  }
  main.tlm.clear();
  main.ppm.clear();
  if (!main.plm.empty()) warnings.push_back("PLM left out: the packet lengths change and are not written again");
  main.plm.clear();
  if (!main.cpf.empty()) warnings.push_back("CPF left out: its profile was the input's");
  main.cpf.clear();
  return main;
}

Result<std::vector<uint8_t>> transcode_codestream(std::span<const uint8_t> stream, const TranscodeOptions& options,
                                                  TranscodeReport& report) {
  MALLAT_ASSIGN_OR_RETURN(const Codestream cs, parse_codestream(stream));
  report.warnings.insert(report.warnings.end(), cs.warnings.begin(), cs.warnings.end());
  // Packed headers stay where they were: PPM, or PPT in the tiles that had it.
  const bool ppm = !cs.main.ppm.empty();
  ThreadPool pool(options.threads);
  std::vector<TranscodedTile> tiles;
  std::vector<const Tile*> kept;
  std::vector<CodingOverrides> overrides;
  for (const Tile& tile : cs.tiles) {
    if (tile.parts.empty()) {
      report.warnings.push_back("tile " + std::to_string(tile.index) + " is missing and stays so");
      continue;
    }
    bool ppt = false, plt = false, comments = false;
    for (const TilePartHeader& part : tile.parts) {
      ppt = ppt || !part.ppt.empty();
      plt = plt || !part.plt.empty();
      comments = comments || !part.comments.empty();
    }
    if (comments) report.warnings.push_back("tile " + std::to_string(tile.index) + ": its COM segments left out");
    MALLAT_ASSIGN_OR_RETURN(TranscodedTile t,
                            transcode_tile(cs, tile, stream, options.target, ppm || ppt, pool, report.warnings));
    report.code_blocks += t.code_blocks;
    report.mid_plane_code_blocks += t.mid_plane_code_blocks;
    // PLT again where the input had it (A.7.3), for the new packets.
    if (!plt) t.packets.clear();
    tiles.push_back(std::move(t));
    kept.push_back(&tile);
    overrides.push_back(tile.overrides);
  }
  MainHeader main = output_main_header(cs, options.target, overrides, report.warnings);

  std::vector<TilePartToWrite> parts;
  std::vector<std::vector<uint8_t>> ppm_headers;
  for (size_t i = 0; i < tiles.size(); ++i) {
    TilePartToWrite part;
    part.tile = kept[i]->index;
    part.num_parts = 1;
    part.overrides = &overrides[i];
    for (const PacketBytes& p : tiles[i].packets) part.plt.push_back(p.data);
    part.data = tiles[i].data;
    if (ppm) {
      ppm_headers.push_back(tiles[i].headers);
    } else {
      part.ppt = tiles[i].headers;
    }
    parts.push_back(part);
  }
  if (ppm) {
    MALLAT_ASSIGN_OR_RETURN(main.ppm, ppm_payloads(ppm_headers));
  }
  return write_codestream(main, parts, !cs.main.tlm.empty());
}

}  // namespace

Result<std::vector<uint8_t>> transcode(std::span<const uint8_t> input, const TranscodeOptions& options,
                                       TranscodeReport* report) {
  TranscodeReport local;
  TranscodeReport& r = report ? *report : local;
  const Container in = detect_container(input);
  if (in == Container::kUnknown) return corrupt_data("neither a JPEG 2000 codestream nor a JP2 file");
  Container out = options.container;
  if (out == Container::kUnknown) {
    out = in == Container::kCodestream         ? Container::kCodestream
          : options.target == BlockCoder::kHt ? Container::kJph
                                               : Container::kJp2;
  }
  const uint32_t brand = out == Container::kJph ? box::kBrandJph : box::kBrandJp2;
  std::span<const uint8_t> stream = input;
  std::optional<Jp2File> jp2;
  if (in == Container::kJp2) {
    // Its warnings (boxes a decoder skips) are not repeated: every box but
    // ftyp and the first jp2c is copied as it is.
    MALLAT_ASSIGN_OR_RETURN(jp2, parse_jp2(input));
    stream = input.subspan(jp2->codestream_offset, jp2->codestream_length);
  }
  auto codestream = transcode_codestream(stream, options, r);
  if (!codestream.ok()) {
    if (!jp2) return codestream.status();
    return codestream.status().with_context("codestream starting at byte " + std::to_string(jp2->codestream_offset));
  }
  if (out == Container::kCodestream) return codestream;
  // A JP2 input keeps its boxes; a codestream gets the minimal JP2 header
  // the encoder writes (I.2).
  if (jp2) return replace_jp2_codestream(input, *codestream, brand);
  MALLAT_ASSIGN_OR_RETURN(const MainHeader main, parse_main_header(*codestream));
  Jp2Description description;
  description.brand = brand;
  return write_jp2(main.siz, *codestream, description);
}

}  // namespace mallat::codec
