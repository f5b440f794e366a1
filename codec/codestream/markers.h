// Marker codes of ISO/IEC 15444-1, Table A.2 (plus the Part 2 and Part 15
// ones a Part 1 reader meets and skips).
#pragma once

#include <cstdint>
#include <string>

namespace mallat::codec {

namespace marker {
// Delimiting markers (A.4)
inline constexpr uint16_t kSOC = 0xFF4F;  // start of codestream
inline constexpr uint16_t kSOT = 0xFF90;  // start of tile-part
inline constexpr uint16_t kSOD = 0xFF93;  // start of data
inline constexpr uint16_t kEOC = 0xFFD9;  // end of codestream
// Fixed information (A.5)
inline constexpr uint16_t kSIZ = 0xFF51;  // image and tile size
// Functional (A.6)
inline constexpr uint16_t kCOD = 0xFF52;  // coding style default
inline constexpr uint16_t kCOC = 0xFF53;  // coding style component
inline constexpr uint16_t kRGN = 0xFF5E;  // region of interest
inline constexpr uint16_t kQCD = 0xFF5C;  // quantization default
inline constexpr uint16_t kQCC = 0xFF5D;  // quantization component
inline constexpr uint16_t kPOC = 0xFF5F;  // progression order change
// Pointer (A.7)
inline constexpr uint16_t kTLM = 0xFF55;  // tile-part lengths
inline constexpr uint16_t kPLM = 0xFF57;  // packet length, main header
inline constexpr uint16_t kPLT = 0xFF58;  // packet length, tile-part header
inline constexpr uint16_t kPPM = 0xFF60;  // packed packet headers, main header
inline constexpr uint16_t kPPT = 0xFF61;  // packed packet headers, tile-part header
// In bit stream (A.8)
inline constexpr uint16_t kSOP = 0xFF91;  // start of packet
inline constexpr uint16_t kEPH = 0xFF92;  // end of packet header
// Informational (A.9)
inline constexpr uint16_t kCRG = 0xFF63;  // component registration
inline constexpr uint16_t kCOM = 0xFF64;  // comment
// 15444-15 (HTJ2K) capabilities, and its corresponding profile
inline constexpr uint16_t kCAP = 0xFF50;
inline constexpr uint16_t kCPF = 0xFF59;

// A.1.4: 0xFF30..0xFF3F are markers without a segment, reserved; skip them.
inline constexpr bool is_reserved_no_segment(uint16_t m) { return m >= 0xFF30 && m <= 0xFF3F; }
}  // namespace marker

// "SIZ", "COD", ... or "0xFF12" for one we do not know.
std::string marker_name(uint16_t code);

}  // namespace mallat::codec
