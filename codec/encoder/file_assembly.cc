#include "codec/encoder/file_assembly.h"

#include <functional>
#include <span>
#include <string>
#include <utility>

#include "codec/codestream/marker_writer.h"
#include "codec/tier2/tile_parts.h"
#include "common/timeline.h"

namespace mallat::codec {

namespace {

// The bytes of each tile-part's header (SOT to SOD) in a codestream written
// without its packet data, whose Psot then counts the header alone (A.4.2).
std::vector<uint32_t> tile_part_header_bytes(std::span<const uint8_t> s) {
  auto u16 = [&](size_t at) -> uint32_t { return at + 2 <= s.size() ? (uint32_t{s[at]} << 8) | s[at + 1] : 0u; };
  size_t at = 2;   // after SOC: the main header's marker segments up to the first SOT
  while (at + 4 <= s.size() && u16(at) != 0xFF90) at += 2 + u16(at + 2);
  std::vector<uint32_t> out;
  while (at + 10 <= s.size() && u16(at) == 0xFF90) {
    const uint32_t psot = (u16(at + 6) << 16) | u16(at + 8);
    if (psot == 0) break;
    out.push_back(psot);
    at += psot;
  }
  return out;
}

}  // namespace

FileAssembler::FileAssembler(const MainHeader& main, const EncodeOptions& options, const TileCodingSetup& setup,
                             const Jp2Description& jp2, const std::vector<std::unique_ptr<TileEncoder>>& tiles,
                             const std::vector<size_t>& first_block, ThreadPool& pool)
    : main_(main), options_(options), jp2_(jp2), tiles_(tiles), first_block_(first_block), pool_(pool) {
  for (const auto& [tile, changes] : setup.tile_progression_changes) overrides_[tile].poc = changes;
}

Result<uint64_t> FileAssembler::size(const LayerPasses& layers) const {
  MALLAT_ASSIGN_OR_RETURN(const LayerBytes b, bytes(layers, false));
  return b.file;
}

uint64_t FileAssembler::points_listed() const {
  uint64_t n = 0;
  for (const auto& tile : tiles_) n += tile->points_listed();
  return n;
}

Result<LayerBytes> FileAssembler::bytes(const LayerPasses& layers, bool per_component) const {
  const uint64_t listed = points_listed();
  for (const Sizing& s : sized_)
    if (s.points_listed == listed && s.per_component == per_component && s.layers == layers) return s.bytes;
  const timeline::Span span("sizing");  // with MALLAT_TIMELINE
  uint64_t left_out = 0;
  LayerBytes b;
  if (per_component) b.component.assign(main_.siz.components.size(), 0);
  MALLAT_ASSIGN_OR_RETURN(Assembly a, gather(layers, false, &left_out, per_component ? &b.component : nullptr));
  MALLAT_ASSIGN_OR_RETURN(const std::vector<uint8_t> stream,
                          assemble(a, false, per_component ? &b.component : nullptr));
  b.file = stream.size() + left_out + container_overhead();
  constexpr size_t kSizingsKept = 4;
  if (sized_.size() == kSizingsKept) sized_.erase(sized_.begin());
  sized_.push_back({layers, listed, per_component, b, std::make_shared<const Assembly>(std::move(a))});
  return b;
}

Status FileAssembler::write(const LayerPasses& layers, const FileSink& sink, const FileSizeHint* size_hint) const {
  std::shared_ptr<const Assembly> sized;
  const uint64_t listed = points_listed();
  for (const Sizing& s : sized_)
    if (s.points_listed == listed && s.layers == layers) sized = s.assembly;
  if (!sized) {
    const timeline::Span span("t2_sizes");  // with MALLAT_TIMELINE
    uint64_t left_out = 0;
    MALLAT_ASSIGN_OR_RETURN(Assembly gathered, gather(layers, false, &left_out, nullptr));
    sized = std::make_shared<const Assembly>(std::move(gathered));
  }
  const timeline::Span span("t2_data");  // with MALLAT_TIMELINE
  const Assembly& a = *sized;
  MALLAT_ASSIGN_OR_RETURN(const CodestreamPieces pieces,
                          codestream_pieces(a.ppm ? a.with_ppm : main_, a.parts, options_.tlm));
  std::vector<uint8_t> before;  // the JP2 boxes before the codestream's
  if (in_jp2_boxes()) {
    MALLAT_ASSIGN_OR_RETURN(before, jp2_before_codestream(main_.siz, pieces.total, jp2_));
  }
  if (size_hint && *size_hint) (*size_hint)(before.size() + pieces.total);
  MALLAT_RETURN_IF_ERROR(sink(before));
  MALLAT_RETURN_IF_ERROR(sink(pieces.main));
  size_t part = 0;
  for (size_t t = 0; t < tiles_.size(); ++t) {
    // This tile's parts and where each starts in its packet data.
    std::vector<uint64_t> start;
    uint64_t all = 0;
    for (size_t p = part; p < a.parts.size() && a.parts[p].tile == static_cast<int>(t); ++p) {
      start.push_back(all);
      all += a.parts[p].data_bytes;
    }
    uint64_t written = 0;
    size_t next = 0;
    const auto headers_up_to = [&](uint64_t offset) -> Status {
      for (; next < start.size() && start[next] <= offset; ++next)
        MALLAT_RETURN_IF_ERROR(sink(pieces.part_headers[part + next]));
      return Status::Ok();
    };
    // A piece may run over the start of a tile-part (the packets' data in
    // chunks): it is cut there, for the tile-part's header to go between.
    const std::function<Status(std::span<const uint8_t>)> data = [&](std::span<const uint8_t> piece) -> Status {
      MALLAT_RETURN_IF_ERROR(headers_up_to(written));
      while (next < start.size() && start[next] - written < piece.size()) {
        const size_t before = static_cast<size_t>(start[next] - written);
        MALLAT_RETURN_IF_ERROR(sink(piece.first(before)));
        written += before;
        piece = piece.subspan(before);
        MALLAT_RETURN_IF_ERROR(headers_up_to(written));
      }
      written += piece.size();
      return sink(piece);
    };
    const bool packed = options_.packed_headers != EncodeOptions::PackedHeaders::kNone;
    PacketOutput out{packed, nullptr, nullptr, nullptr};
    out.data_sink = &data;
    MALLAT_RETURN_IF_ERROR(
        tiles_[t]->packet_data(layers, first_block_[t], a.out[t].packets, packed ? nullptr : &a.out[t].kept, out,
                               &pool_));
    MALLAT_RETURN_IF_ERROR(headers_up_to(UINT64_MAX));
    if (written != all) return internal_error("tile " + std::to_string(t) + ": its packets changed between passes");
    part += start.size();
  }
  return sink(pieces.end);
}

Result<std::vector<uint8_t>> FileAssembler::file(const LayerPasses& layers) const {
  MALLAT_ASSIGN_OR_RETURN(const Assembly a, gather(layers, true, nullptr, nullptr));
  MALLAT_ASSIGN_OR_RETURN(std::vector<uint8_t> stream, assemble(a, true, nullptr));
  if (in_jp2_boxes()) return write_jp2(main_.siz, stream, jp2_);
  return stream;
}

Result<std::vector<uint8_t>> FileAssembler::assemble(const Assembly& a, bool with_data,
                                                     std::vector<uint64_t>* component_bytes) const {
  // Without the data, each Psot counts its header alone (A.4.2 as
  // tile_part_header_bytes reads it), not the data written apart.
  std::vector<TilePartToWrite> parts = a.parts;
  for (TilePartToWrite& part : parts) part.data_bytes = 0;
  MALLAT_ASSIGN_OR_RETURN(std::vector<uint8_t> stream,
                          write_codestream(a.ppm ? a.with_ppm : main_, parts, options_.tlm));
  if (component_bytes && !with_data) {
    const std::vector<uint32_t> headers = tile_part_header_bytes(stream);
    for (size_t i = 0; i < a.part_component.size() && i < headers.size(); ++i)
      if (a.part_component[i] >= 0) (*component_bytes)[a.part_component[i]] += headers[i];
  }
  return stream;
}

Result<FileAssembler::Assembly> FileAssembler::gather(const LayerPasses& layers, bool with_data, uint64_t* left_out,
                                                      std::vector<uint64_t>* component_bytes) const {
  using Packed = EncodeOptions::PackedHeaders;
  const bool packed = options_.packed_headers != Packed::kNone;
  Assembly a;
  std::vector<TileOutput>& out = a.out;
  out.resize(tiles_.size());
  // The tiles at once on the pool; one tile alone gives the pool to its
  // precincts instead.
  const auto tile_packets = [&](size_t t, ThreadPool* precincts_pool) {
    PacketOutput sink{packed, with_data ? &out[t].data : nullptr, &out[t].headers, &out[t].packets};
    if (!with_data) sink.kept_headers = &out[t].kept;
    return tiles_[t]->packets(layers, first_block_[t], sink, precincts_pool).status();
  };
  if (tiles_.size() == 1) {
    MALLAT_RETURN_IF_ERROR(tile_packets(0, &pool_));
  } else {
    MALLAT_RETURN_IF_ERROR(pool_.parallel_for_status(
        static_cast<int64_t>(tiles_.size()), [&](int64_t t) { return tile_packets(static_cast<size_t>(t), nullptr); }));
  }

  std::vector<TilePartToWrite>& parts = a.parts;
  std::vector<int>& part_component = a.part_component;
  std::vector<std::vector<uint8_t>> ppm;
  for (size_t t = 0; t < tiles_.size(); ++t) {
    const std::vector<PacketBytes>& packets = out[t].packets;
    std::vector<PacketId> ids;
    ids.reserve(packets.size());
    for (const PacketBytes& p : packets) ids.push_back(p.id);
    MALLAT_ASSIGN_OR_RETURN(const std::vector<size_t> starts, tile_part_starts(ids, options_.tile_parts));
    const auto own = overrides_.find(static_cast<int>(t));
    size_t data_at = 0, header_at = 0;
    int ppt_index = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
      const size_t end = i + 1 < starts.size() ? starts[i + 1] : packets.size();
      TilePartToWrite part;
      part.tile = static_cast<int>(t);
      part.part = static_cast<int>(i);
      part.num_parts = static_cast<int>(starts.size());
      if (i == 0 && own != overrides_.end()) part.overrides = &own->second;
      size_t data_bytes = 0, header_bytes = 0;
      int only = end > starts[i] ? packets[starts[i]].id.component : -1;
      for (size_t k = starts[i]; k < end; ++k) {
        data_bytes += packets[k].data;
        header_bytes += packets[k].header;
        if (options_.plt) part.plt.push_back(packets[k].data);
        if (packets[k].id.component != only) only = -1;
        if (component_bytes) (*component_bytes)[packets[k].id.component] += packets[k].data + packets[k].header;
      }
      part_component.push_back(only);
      if (with_data) {
        part.data = std::span<const uint8_t>(out[t].data).subspan(data_at, data_bytes);
      } else {
        *left_out += data_bytes;
        part.data_bytes = data_bytes;
      }
      const auto headers = std::span<const uint8_t>(out[t].headers).subspan(header_at, header_bytes);
      if (options_.packed_headers == Packed::kPpt) {
        part.ppt = headers;
        part.ppt_index = ppt_index;
        ppt_index += static_cast<int>(ppt_segments(headers.size()));
      }
      if (options_.packed_headers == Packed::kPpm) ppm.emplace_back(headers.begin(), headers.end());
      data_at += data_bytes;
      header_at += header_bytes;
      parts.push_back(std::move(part));
    }
  }
  if (options_.packed_headers == Packed::kPpm) {
    a.ppm = true;
    a.with_ppm = main_;
    MALLAT_ASSIGN_OR_RETURN(a.with_ppm.ppm, ppm_payloads(ppm));
  }
  return a;
}

uint64_t FileAssembler::container_overhead() const {
  if (!in_jp2_boxes()) return 0;
  auto empty = write_jp2(main_.siz, {}, jp2_);
  return empty.ok() ? empty->size() : 0;
}

bool FileAssembler::in_jp2_boxes() const {
  return options_.container == Container::kJp2 || options_.container == Container::kJph;
}

}  // namespace mallat::codec
