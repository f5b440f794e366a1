// Profiles of 15444-1 that an encoder is asked for by name, as opj_compress
// offers them: the digital-cinema profiles of Amendment 1 (Rsiz 3, 4) and the
// IMF profiles of Amendment 8 (Rsiz 0x0400..0x09BB). Every rule of a profile
// lives in codec/encoder/profiles.cc, the one place that both sets an
// encoder's options for it and checks an image and options against it.
#pragma once

#include <cstdint>
#include <string>

#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

struct EncodeOptions;

enum class ProfileKind {
  kNone,
  kCinema2K,  // -cinema2K 24|48: Rsiz 3
  kCinema4K,  // -cinema4K 24: Rsiz 4
  kImf2K,     // -IMF 2K: Rsiz 0x0400, single tile, 9/7
  kImf4K,     // 0x0500
  kImf8K,     // 0x0600
  kImf2KR,    // -IMF 2K_R: 0x0700, single or multiple tiles, 5/3
  kImf4KR,    // 0x0800
  kImf8KR,    // 0x0900
};

struct Profile {
  ProfileKind kind = ProfileKind::kNone;
  // Cinema: 24 or 48 (48 for 2K only), which sets the byte limits. IMF: 0
  // (not given) or the frame rate, which with a sub-level sets the file's
  // byte limit and with a main level checks the sample rate.
  int frame_rate = 0;
  int main_level = 0;  // IMF: 0..11 (Rsiz bits 0-3; 0 = unspecified)
  int sub_level = 0;   // IMF: 0..9, at most Table A.53's for the main level (Rsiz bits 4-7)
  friend bool operator==(const Profile&, const Profile&) = default;
};

// The Rsiz of the profile (A.5.1, Table A.10 as amended), 0 for kNone.
uint16_t profile_rsiz(const Profile& profile);

// The profile's name as the command line spells it ("-cinema2K 24",
// "-IMF 4K_R,MAINLEVEL=5,SUBLEVEL=2").
std::string profile_name(const Profile& profile);

// What Rsiz says of a codestream's profile, for `mallat info`: "Profile 0",
// "2K digital cinema (Rsiz 3)", "IMF 4K_R, main level 5, sub-level 2", ...
std::string describe_rsiz(uint16_t rsiz);

// The options the profile sets (code-blocks, progression, wavelet, colour
// transform, tile-parts, TLM, byte limits, levels), over `base`: what a
// caller starts from before it changes what it wants; any change the
// profile does not allow is then an error of encode().
EncodeOptions profile_options(const Profile& profile, const EncodeOptions& base);

// Checks `image` and `options` against options.profile and fills in what
// depends on the image (levels that fit, precincts per level, the 4K
// progression changes). An image the profile cannot take, or an option that
// contradicts it, is an error naming the profile's rule. encode() calls it.
Result<EncodeOptions> resolve_profile(const Image& image, const EncodeOptions& options);

}  // namespace mallat::codec
