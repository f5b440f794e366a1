// Extended capabilities: the CAP marker segment (15444-1 A.5.2, as 15444-15
// A.3 fills it for HT) and the CPF marker segment (15444-1 A.5.3, the
// corresponding profile). Rsiz bit 14 says a CAP is present.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/codestream/byte_reader.h"
#include "codec/codestream/byte_writer.h"
#include "common/status.h"

namespace mallat::codec {

// Rsiz bit 14: the codestream uses extended capabilities, listed in CAP.
inline constexpr uint16_t kRsizCapabilities = 0x4000;

// CAP: Pcap says which parts' capabilities follow (bit 31 - (i - 1) for
// part i), one Ccap^i per bit set, in increasing i.
struct Capabilities {
  uint32_t pcap = 0;
  std::vector<uint16_t> ccap;
  bool empty() const { return pcap == 0; }
  // Ccap^i when Pcap has part i's bit.
  std::optional<uint16_t> part(int i) const;
  friend bool operator==(const Capabilities&, const Capabilities&) = default;
};

// 15444-15 Table A.3: the fields of Ccap^15.
struct HtCapabilities {
  enum class Blocks : uint8_t { kHtOnly = 0, kHtDeclared = 2, kHtMixed = 3 };  // bits 15..14
  Blocks blocks = Blocks::kHtOnly;
  bool multiple_ht_sets = false;  // bit 13, MULTIHT
  bool region_of_interest = false;  // bit 12, RGN
  bool heterogeneous = false;     // bit 11
  bool irreversible = false;      // bit 5, HTIRV: some component uses the 9/7
  int magnitude_bits = 0;         // B, from bits 4..0 (Bp)

  uint16_t to_ccap15() const;
  static HtCapabilities from_ccap15(uint16_t c);
  std::string describe() const;
};

// 15444-1 A.5.2: CAP; Lcap must be 6 + 2 * (bits of Pcap).
Result<Capabilities> parse_cap(ByteReader& seg);
void write_cap(ByteWriter& w, const Capabilities& cap);

// 15444-1 A.5.3: CPF, the Pcpf words (a profile number, 15444-1 Table A.?).
Result<std::vector<uint16_t>> parse_cpf(ByteReader& seg);

struct MainHeader;
struct CodingOverrides;

// 15444-15 A.3 for a codestream whose code-blocks are all HT with one HT set
// each: irreversible when any COD or COC (of the main header or of a tile's
// `tiles` overrides) names the 9/7, B the largest Mb (E-2) of any QCD or QCC
// plus the largest ROI shift (H.1), region of interest when any RGN shifts.
// The one rule that the encoder and the transcoder write.
HtCapabilities ht_capabilities_of(const MainHeader& main, std::span<const CodingOverrides> tiles = {});

// Marks `main` as an HT codestream with `ht` (Rsiz bit 14 and CAP's part 15,
// 15444-15 A.2, A.3), or with std::nullopt takes part 15 out of CAP, and
// CAP and Rsiz bit 14 with it when no other part is left (a Part 1
// codestream). Other parts' capabilities are kept.
void set_ht_capabilities(MainHeader& main, const std::optional<HtCapabilities>& ht);

}  // namespace mallat::codec
