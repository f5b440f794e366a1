#include "codec/codestream/capabilities.h"

#include <algorithm>
#include <bit>
#include <string>

#include "codec/codestream/codestream_header.h"
#include "codec/codestream/markers.h"
#include "quant/step_size.h"

namespace mallat::codec {
namespace {

// Pcap's bit for part i: the i-th most significant (15444-1 Table A.11a).
uint32_t part_bit(int i) { return uint32_t{1} << (32 - i); }

// 15444-15 Table A.3: B in Ccap^15's five low bits (Bp).
int magnitude_bits_code(int b) {
  if (b <= 8) return 0;
  if (b < 28) return b - 8;
  return std::min(13 + b / 4, 31);
}
int magnitude_bits_from(int bp) {
  if (bp == 0) return 8;
  if (bp < 20) return bp + 8;
  return 4 * (bp - 13);  // the least B that codes to bp
}

}  // namespace

std::optional<uint16_t> Capabilities::part(int i) const {
  if (i < 1 || i > 32 || (pcap & part_bit(i)) == 0) return std::nullopt;
  // Ccap^i follows the entries of the parts before it.
  const int before = std::popcount(pcap & ~(part_bit(i) | (part_bit(i) - 1)));
  if (before >= static_cast<int>(ccap.size())) return std::nullopt;
  return ccap[static_cast<size_t>(before)];
}

uint16_t HtCapabilities::to_ccap15() const {
  return static_cast<uint16_t>(static_cast<unsigned>(blocks) << 14 | multiple_ht_sets << 13 |
                               region_of_interest << 12 | heterogeneous << 11 | irreversible << 5 |
                               magnitude_bits_code(magnitude_bits));
}

HtCapabilities HtCapabilities::from_ccap15(uint16_t c) {
  HtCapabilities h;
  h.blocks = static_cast<Blocks>(c >> 14);
  h.multiple_ht_sets = (c >> 13) & 1;
  h.region_of_interest = (c >> 12) & 1;
  h.heterogeneous = (c >> 11) & 1;
  h.irreversible = (c >> 5) & 1;
  h.magnitude_bits = magnitude_bits_from(c & 31);
  return h;
}

std::string HtCapabilities::describe() const {
  std::string s;
  switch (static_cast<unsigned>(blocks)) {
    case 0: s = "HT code-blocks only"; break;
    case 2: s = "HT code-blocks declared per tile-component"; break;
    case 3: s = "HT and Part-1 code-blocks mixed"; break;
    default: s = "reserved code-block kind"; break;
  }
  s += multiple_ht_sets ? ", several HT sets per code-block" : ", one HT set per code-block";
  if (region_of_interest) s += ", region of interest";
  if (heterogeneous) s += ", heterogeneous";
  s += irreversible ? ", irreversible" : ", reversible";
  s += ", magnitude bit-planes up to " + std::to_string(magnitude_bits);
  return s;
}

Result<Capabilities> parse_cap(ByteReader& seg) {
  const size_t off = seg.offset();
  Capabilities cap;
  cap.pcap = seg.u32();
  if (!seg.ok()) return corrupt_at("CAP", off, "segment too short for Pcap");
  const int entries = std::popcount(cap.pcap);
  if (seg.remaining() != 2 * static_cast<size_t>(entries)) {
    return corrupt_at("CAP", off, "Pcap lists " + std::to_string(entries) + " parts but " +
                                      std::to_string(seg.remaining()) + " bytes of Ccap follow");
  }
  for (int i = 0; i < entries; ++i) cap.ccap.push_back(seg.u16());
  return cap;
}

void write_cap(ByteWriter& w, const Capabilities& cap) {
  w.u16(marker::kCAP);
  w.u16(static_cast<uint16_t>(6 + 2 * cap.ccap.size()));
  w.u32(cap.pcap);
  for (uint16_t c : cap.ccap) w.u16(c);
}

Result<std::vector<uint16_t>> parse_cpf(ByteReader& seg) {
  const size_t off = seg.offset();
  if (seg.remaining() % 2 != 0) return corrupt_at("CPF", off, "odd number of bytes of Pcpf");
  std::vector<uint16_t> words;
  while (!seg.at_end()) words.push_back(seg.u16());
  return words;
}

namespace {

// Pcap's part i set to `ccap`, or taken out with std::nullopt; the Ccap
// entries stay in increasing part order (15444-1 A.5.2).
void set_part(Capabilities& cap, int i, std::optional<uint16_t> ccap) {
  const int before = std::popcount(cap.pcap & ~(part_bit(i) | (part_bit(i) - 1)));
  const auto at = cap.ccap.begin() + std::min<ptrdiff_t>(before, static_cast<ptrdiff_t>(cap.ccap.size()));
  if (cap.pcap & part_bit(i)) {
    if (at != cap.ccap.end()) cap.ccap.erase(at);
    cap.pcap &= ~part_bit(i);
  }
  if (ccap) {
    cap.ccap.insert(cap.ccap.begin() + std::min<ptrdiff_t>(before, static_cast<ptrdiff_t>(cap.ccap.size())), *ccap);
    cap.pcap |= part_bit(i);
  }
}

}  // namespace

HtCapabilities ht_capabilities_of(const MainHeader& main, std::span<const CodingOverrides> tiles) {
  HtCapabilities ht;
  auto coding = [&](const ComponentCoding& cc) { ht.irreversible = ht.irreversible || !cc.reversible; };
  auto widest = [&](const Quantization& q) {
    for (const StepSize& st : q.steps) {
      ht.magnitude_bits = std::max(ht.magnitude_bits, quant::magnitude_bitplanes(q.guard_bits, st.exponent));
    }
  };
  int roi = 0;
  auto regions = [&](const std::vector<RegionOfInterest>& rgn) {
    for (const RegionOfInterest& r : rgn) roi = std::max(roi, r.shift);
  };
  coding(main.cod.component);
  for (const auto& [c, cc] : main.coc) coding(cc);
  widest(main.qcd);
  for (const auto& [c, q] : main.qcc) widest(q);
  regions(main.rgn);
  for (const CodingOverrides& t : tiles) {
    if (t.cod) coding(t.cod->component);
    for (const auto& [c, cc] : t.coc) coding(cc);
    if (t.qcd) widest(*t.qcd);
    for (const auto& [c, q] : t.qcc) widest(q);
    regions(t.rgn);
  }
  ht.region_of_interest = roi > 0;
  ht.magnitude_bits += roi;
  return ht;
}

void set_ht_capabilities(MainHeader& main, const std::optional<HtCapabilities>& ht) {
  set_part(main.cap, 15, ht ? std::optional<uint16_t>(ht->to_ccap15()) : std::nullopt);
  if (main.cap.empty()) {
    main.cap.ccap.clear();
    main.siz.rsiz &= static_cast<uint16_t>(~kRsizCapabilities);
  } else {
    main.siz.rsiz |= kRsizCapabilities;
  }
}

}  // namespace mallat::codec
