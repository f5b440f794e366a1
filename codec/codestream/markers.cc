#include "codec/codestream/markers.h"

#include <cstdio>

namespace mallat::codec {

std::string marker_name(uint16_t code) {
  switch (code) {
    case marker::kSOC: return "SOC";
    case marker::kSOT: return "SOT";
    case marker::kSOD: return "SOD";
    case marker::kEOC: return "EOC";
    case marker::kSIZ: return "SIZ";
    case marker::kCOD: return "COD";
    case marker::kCOC: return "COC";
    case marker::kRGN: return "RGN";
    case marker::kQCD: return "QCD";
    case marker::kQCC: return "QCC";
    case marker::kPOC: return "POC";
    case marker::kTLM: return "TLM";
    case marker::kPLM: return "PLM";
    case marker::kPLT: return "PLT";
    case marker::kPPM: return "PPM";
    case marker::kPPT: return "PPT";
    case marker::kSOP: return "SOP";
    case marker::kEPH: return "EPH";
    case marker::kCRG: return "CRG";
    case marker::kCOM: return "COM";
    case marker::kCAP: return "CAP";
    case marker::kCPF: return "CPF";
    default: break;
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04X", static_cast<unsigned>(code));
  return buf;
}

}  // namespace mallat::codec
