// Parsing the values of opj_compress's -POC, -TP and -ROI for `mallat
// encode`. Each returns an error message naming the option, empty when the
// value is good.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codec/codec.h"

namespace mallat::tools {

// -POC T<tile>=<RSpoc>,<CSpoc>,<LYEpoc>,<REpoc>,<CEpoc>,<order>/T<tile>=...
// with tiles counted from 1 as opj_compress does; adds the changes to `out`
// under tile indices from 0.
std::string parse_poc(const std::string& value, std::map<int, std::vector<codec::ProgressionChange>>* out);

// -TP R|L|C.
std::string parse_tile_parts(const std::string& value, codec::TilePartDivision* out);

// -ROI c=<component>,U=<shift>, U in 0..37 as opj_compress; a component
// already given is an error.
std::string parse_roi(const std::string& value, std::vector<codec::RegionOfInterest>* out);

// -cinema2K 24|48, -cinema4K (24 fps, as opj_compress) and
// -IMF PROFILE[,MAINLEVEL=X][,SUBLEVEL=Y][,FRAMERATE=F] (keys in any case,
// as opj_compress's lower-case ones); a second, different profile is an error.
std::string parse_cinema(codec::ProfileKind kind, const std::string& value, codec::Profile* out);
std::string parse_imf(const std::string& value, codec::Profile* out);

}  // namespace mallat::tools
