// The rules of the digital-cinema profiles (15444-1 Amd 1: Rsiz 3 and 4) and
// the IMF profiles (15444-1 Amd 8: Rsiz 0x0400..0x09BB), in one place: the
// options each sets and the checks an image and options must pass. The
// parameters are those opj_compress sets for -cinema2K, -cinema4K and -IMF
// (OpenJPEG's opj_j2k_set_cinema_parameters / opj_j2k_set_imf_parameters and
// their compliance checks); where OpenJPEG warns and writes a stream without
// the profile, mallat refuses with the rule that failed.
#include <algorithm>
#include <array>
#include <cstdio>

#include "codec/api/encode.h"
#include "codec/api/profile.h"

namespace mallat::codec {

namespace {

// Digital cinema byte limits per frame (DCI; OpenJPEG's OPJ_CINEMA_*): the
// codestream and each colour component, at 24 and 48 frames a second.
constexpr uint64_t kCinemaFileBytes24 = 1302083, kCinemaFileBytes48 = 651041;
constexpr uint64_t kCinemaComponentBytes24 = 1041666, kCinemaComponentBytes48 = 520833;

// IMF (15444-1 Amd 8): the highest sub-level each main level 0..11 allows
// (Table A.53; main level 0 = unspecified allows any), the sample rate of
// each main level in Msamples/s and the bit rate of each sub-level in Mbit/s.
constexpr std::array<int, 12> kImfMaxSubLevel = {15, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9};
constexpr std::array<double, 12> kImfMainLevelMsamples = {0,   65,   130,  195,  260,  520,
                                                          1200, 2400, 4800, 9600, 19200, 38400};
constexpr std::array<double, 10> kImfSubLevelMbits = {0, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200};

bool is_cinema(ProfileKind k) { return k == ProfileKind::kCinema2K || k == ProfileKind::kCinema4K; }
bool is_imf(ProfileKind k) { return k != ProfileKind::kNone && !is_cinema(k); }
bool is_imf_reversible(ProfileKind k) {
  return k == ProfileKind::kImf2KR || k == ProfileKind::kImf4KR || k == ProfileKind::kImf8KR;
}

// 2K, 4K or 8K: 1, 2 or 3.
int size_class(ProfileKind k) {
  switch (k) {
    case ProfileKind::kCinema2K: case ProfileKind::kImf2K: case ProfileKind::kImf2KR: return 1;
    case ProfileKind::kCinema4K: case ProfileKind::kImf4K: case ProfileKind::kImf4KR: return 2;
    case ProfileKind::kImf8K: case ProfileKind::kImf8KR: return 3;
    case ProfileKind::kNone: break;
  }
  return 0;
}

const char* imf_name(ProfileKind k) {
  static constexpr const char* kNames[] = {"2K", "4K", "8K", "2K_R", "4K_R", "8K_R"};
  return kNames[static_cast<int>(k) - static_cast<int>(ProfileKind::kImf2K)];
}

// The largest image: cinema 2048x1080 / 4096x2160 (Amd 1); IMF 2048x1556,
// 4096x3112, 8192x6224 (Amd 8).
std::array<int64_t, 2> largest_image(ProfileKind k) {
  const int64_t scale = int64_t{1} << (size_class(k) - 1);
  return is_cinema(k) ? std::array<int64_t, 2>{2048 * scale, 1080 * scale}
                      : std::array<int64_t, 2>{2048 * scale, 1556 * scale};
}

// The most decomposition levels: cinema 5 (2K) or 6 (4K); IMF 5, 6, 7 for
// 2K, 4K, 8K, and for the reversible profiles one fewer per halving of the
// tile width below the profile's (1024 wide tiles: 4); tiles narrower than
// 1024 are not limited (as OpenJPEG's opj_j2k_get_imf_max_NL).
int most_levels(ProfileKind k, int64_t tile_width) {
  const int top = 4 + size_class(k);
  if (!is_imf_reversible(k)) return top;
  for (int levels = top; levels >= 4; --levels)
    if (tile_width >= (int64_t{1} << (levels + 6))) return levels;
  return 32;
}

// The decomposition levels that leave the first tile a sample at the
// lowest resolution (the encoder's own rule for a default -n).
int levels_that_fit(int64_t width, int64_t height) {
  int levels = 0;
  while (levels < 32 && (std::min(width, height) >> (levels + 1)) > 0) ++levels;
  return levels;
}

std::string hex16(unsigned v) {
  char s[8];
  std::snprintf(s, sizeof s, "0x%04X", v & 0xFFFFu);
  return s;
}

// Precincts of the profiles: 2^7 at the lowest resolution, 2^8 above it
// (PPx = PPy = 7 for the NLLL band, else 8), highest resolution first.
std::vector<std::array<uint8_t, 2>> profile_precincts(int levels) {
  std::vector<std::array<uint8_t, 2>> p(levels, {8, 8});
  p.push_back({7, 7});
  return p;
}

// -c's list as per-resolution exponents (the last repeats downwards).
std::vector<std::array<uint8_t, 2>> expanded(const std::vector<std::array<uint8_t, 2>>& given, int levels) {
  std::vector<std::array<uint8_t, 2>> p;
  for (int i = 0; i <= levels; ++i) p.push_back(given[std::min<size_t>(i, given.size() - 1)]);
  return p;
}

// Checks one profile; `fail` builds the message: the profile, its rule, and
// what the image or options have instead.
class ProfileCheck {
 public:
  ProfileCheck(const Image& image, const EncodeOptions& o) : image_(image), o_(o), k_(o.profile.kind) {}

  Result<EncodeOptions> run() {
    MALLAT_RETURN_IF_ERROR(check_levels_and_rates());
    MALLAT_RETURN_IF_ERROR(check_image());
    MALLAT_RETURN_IF_ERROR(check_geometry());
    MALLAT_RETURN_IF_ERROR(check_coding());
    MALLAT_RETURN_IF_ERROR(check_limits());
    return out_;
  }

 private:
  Status fail(const std::string& rule, const std::string& instead) const {
    const char* where = is_cinema(k_) ? "15444-1 Amd 1" : "15444-1 Amd 8";
    return invalid_argument(profile_name(o_.profile) + " (Rsiz " + hex16(profile_rsiz(o_.profile)) + ", " + where +
                            ") requires " + rule + "; " + instead);
  }

  Status check_levels_and_rates() {
    const Profile& p = o_.profile;
    if (is_cinema(k_)) {
      if (p.frame_rate != 24 && (p.frame_rate != 48 || k_ != ProfileKind::kCinema2K))
        return fail(k_ == ProfileKind::kCinema2K ? "24 or 48 frames a second" : "24 frames a second",
                    "got " + std::to_string(p.frame_rate));
    } else {
      if (p.main_level < 0 || p.main_level > 11)
        return fail("a main level 0..11", "got " + std::to_string(p.main_level));
      if (p.sub_level < 0 || p.sub_level > kImfMaxSubLevel[p.main_level])
        return fail("a sub-level of at most " + std::to_string(kImfMaxSubLevel[p.main_level]) + " at main level " +
                        std::to_string(p.main_level) + " (Table A.53)",
                    "got " + std::to_string(p.sub_level));
      if (p.frame_rate < 0) return fail("a frame rate above 0", "got " + std::to_string(p.frame_rate));
    }
    return Status::Ok();
  }

  Status check_image() {
    const int nc = image_.num_components();
    if (is_cinema(k_) && nc != 3) return fail("3 components", "the image has " + std::to_string(nc));
    if (is_imf(k_) && nc > 3) return fail("at most 3 components", "the image has " + std::to_string(nc));
    for (int c = 0; c < nc; ++c) {
      const Component& comp = image_.components[c];
      const std::string which = "component " + std::to_string(c) + " has ";
      const std::string depth = std::to_string(comp.precision) + "-bit " + (comp.is_signed ? "signed" : "unsigned");
      if (is_cinema(k_) && (comp.precision != 12 || comp.is_signed))
        return fail("12-bit unsigned samples (X'Y'Z')", which + depth + " samples");
      if (is_imf(k_) && (comp.precision < 8 || comp.precision > 16 || comp.is_signed))
        return fail("8..16-bit unsigned samples", which + depth + " samples");
      if (is_cinema(k_) && (comp.dx != 1 || comp.dy != 1))
        return fail("components without sub-sampling", which + "XRsiz " + std::to_string(comp.dx) + ", YRsiz " +
                                                            std::to_string(comp.dy));
      if (is_imf(k_)) {
        if (comp.dy != 1) return fail("YRsiz 1", which + "YRsiz " + std::to_string(comp.dy));
        const int prev = c > 0 ? image_.components[c - 1].dx : 1;
        if ((c == 0 && comp.dx != 1) || (c == 1 && comp.dx != 1 && comp.dx != 2) || (c > 1 && comp.dx != prev))
          return fail("XRsiz 1 for component 0, 1 or 2 for component 1 and the same for component 2",
                      which + "XRsiz " + std::to_string(comp.dx));
      }
    }
    const auto [w, h] = largest_image(k_);
    if (image_.width() > w || image_.height() > h)
      return fail("an image of at most " + std::to_string(w) + "x" + std::to_string(h),
                  "the image is " + std::to_string(image_.width()) + "x" + std::to_string(image_.height()));
    return Status::Ok();
  }

  Status check_geometry() {
    if (o_.image_x0 != 0 || o_.image_y0 != 0)
      return fail("the image origin at 0,0", "-d gives " + std::to_string(o_.image_x0) + "," + std::to_string(o_.image_y0));
    if (o_.tile_x0 != 0 || o_.tile_y0 != 0)
      return fail("the tile origin at 0,0", "-T gives " + std::to_string(o_.tile_x0) + "," + std::to_string(o_.tile_y0));
    const int64_t w = image_.width(), h = image_.height();
    const int64_t tw = o_.tile_width ? o_.tile_width : w, th = o_.tile_height ? o_.tile_height : h;
    const bool one_tile = tw >= w && th >= h;
    const std::string tiles = "-t gives " + std::to_string(tw) + "x" + std::to_string(th) + " tiles for a " +
                              std::to_string(w) + "x" + std::to_string(h) + " image";
    if (!is_imf_reversible(k_) && !one_tile) return fail("one tile", tiles);
    if (is_imf_reversible(k_) && !one_tile) {
      const int cls = size_class(k_);
      const bool allowed = (tw == th) && (tw == 1024 || (tw == 2048 && cls >= 2) || (tw == 4096 && cls == 3));
      if (!allowed)
        return fail(std::string("one tile or square tiles of 1024") + (cls >= 2 ? ", 2048" : "") +
                        (cls == 3 ? " or 4096" : ""),
                    tiles);
    }
    // Levels: the default shrinks to what the profile and the first tile
    // allow; an explicit -n must be within the profile's range.
    const int most = most_levels(k_, std::min(tw, w));
    int levels = out_.resolutions - 1;
    if (levels > most) {
      if (out_.resolutions_explicit)
        return fail("1.." + std::to_string(most) + " decomposition levels",
                    "-n " + std::to_string(out_.resolutions) + " asks for " + std::to_string(levels));
      levels = most;
    }
    if (!out_.resolutions_explicit) levels = std::min(levels, levels_that_fit(std::min(tw, w), std::min(th, h)));
    if (levels < 1)
      return fail("at least 1 decomposition level", out_.resolutions_explicit
                                                        ? "-n 1 asks for none"
                                                        : "the tile is too small for one");
    out_.resolutions = levels + 1;
    out_.resolutions_explicit = true;
    return Status::Ok();
  }

  Status check_coding() {
    const int levels = out_.resolutions - 1;
    if (o_.xcb != 5 || o_.ycb != 5)
      return fail("32x32 code-blocks", "-b gives " + std::to_string(1 << o_.xcb) + "x" + std::to_string(1 << o_.ycb));
    if (o_.style.to_byte() != 0)
      return fail("no code-block mode switches", "-M gives " + std::to_string(o_.style.to_byte()));
    static constexpr const char* kOrders[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
    if (o_.order != ProgressionOrder::kCPRL)
      return fail("the CPRL progression", std::string("-p gives ") + kOrders[static_cast<int>(o_.order)]);
    if (!o_.roi.empty()) return fail("no region of interest (RGN)", "-ROI asks for one");
    if (!o_.progression_changes.empty()) return fail("no tile-part POC", "-POC asks for one");
    if (o_.tile_parts != TilePartDivision::kComponent)
      return fail("one tile-part per component (-TP C)", "-TP asks for another division");
    const bool want_reversible = is_imf_reversible(k_);
    if (o_.reversible != want_reversible)
      return fail(want_reversible ? "the reversible 5/3 wavelet" : "the irreversible 9/7 wavelet (-I)",
                  want_reversible ? "-I asks for the 9/7" : "the options ask for the 5/3");
    if (is_cinema(k_) && o_.mct == 0) return fail("the irreversible colour transform (ICT)", "-mct 0 turns it off");
    const bool layers = o_.rate_values.size() > 1 || o_.rate_kind == EncodeOptions::RateKind::kPsnr;
    if (layers) return fail("one quality layer with a byte target", "-q or several -r / --bpp values ask otherwise");
    const auto rule = profile_precincts(levels);
    if (!o_.precincts.empty() && expanded(o_.precincts, levels) != rule)
      return fail("precincts of 128x128 at the lowest resolution and 256x256 above it", "-c asks for others");
    out_.precincts = rule;
    // 4K cinema: every resolution but the highest first, then the highest,
    // each in CPRL, so that a 2K decoder stops after the first three
    // tile-parts (OpenJPEG's opj_j2k_initialise_4K_poc, in the main header).
    std::vector<ProgressionChange> poc;
    if (k_ == ProfileKind::kCinema4K) {
      const int nc = image_.num_components();
      poc = {{0, 0, 1, levels, nc, ProgressionOrder::kCPRL}, {levels, 0, 1, levels + 1, nc, ProgressionOrder::kCPRL}};
    }
    if (!o_.main_progression_changes.empty() && o_.main_progression_changes != poc)
      return fail(poc.empty() ? "no POC" : "the two progression changes of the 4K profile",
                  "the options give other progression changes");
    out_.main_progression_changes = poc;
    out_.tlm = true;   // as OpenJPEG writes for both families
    return Status::Ok();
  }

  Status check_limits() {
    const Profile& p = o_.profile;
    uint64_t file = 0, component = 0;
    if (is_cinema(k_)) {
      file = p.frame_rate == 48 ? kCinemaFileBytes48 : kCinemaFileBytes24;
      component = p.frame_rate == 48 ? kCinemaComponentBytes48 : kCinemaComponentBytes24;
    } else if (p.frame_rate > 0) {
      if (p.sub_level > 0)
        file = static_cast<uint64_t>(kImfSubLevelMbits[p.sub_level] * 1e6 / 8.0 / p.frame_rate);
      if (p.main_level > 0) {
        // The sample rate: 4:2:2 counts two components a pixel.
        const int nc = image_.num_components();
        const double per_pixel = nc == 3 && image_.components[1].dx == 2 ? 2.0 : nc;
        const double msamples = static_cast<double>(image_.width()) * image_.height() * per_pixel * p.frame_rate / 1e6;
        if (msamples > kImfMainLevelMsamples[p.main_level])
          return fail("at most " + std::to_string(static_cast<int>(kImfMainLevelMsamples[p.main_level])) +
                          " Msamples/s at main level " + std::to_string(p.main_level),
                      "this image at " + std::to_string(p.frame_rate) + " frames a second has " +
                          std::to_string(msamples) + " Msamples/s");
      }
    }
    auto cap = [&](uint64_t limit, uint64_t* field, const char* what) -> Status {
      if (limit == 0) return Status::Ok();
      if (*field > limit)
        return fail(std::string("at most ") + std::to_string(limit) + " bytes " + what,
                    "the options allow " + std::to_string(*field));
      if (*field == 0) *field = limit;
      return Status::Ok();
    };
    MALLAT_RETURN_IF_ERROR(cap(file, &out_.max_file_bytes, "a frame"));
    return cap(component, &out_.max_component_bytes, "a component of a frame");
  }

  const Image& image_;
  const EncodeOptions& o_;
  const ProfileKind k_;
  EncodeOptions out_ = o_;
};

}  // namespace

uint16_t profile_rsiz(const Profile& p) {
  switch (p.kind) {
    case ProfileKind::kNone: return 0;
    case ProfileKind::kCinema2K: return 0x0003;
    case ProfileKind::kCinema4K: return 0x0004;
    default: break;
  }
  // 15444-1 Amd 8: 0x0400 + 0x0100 per profile, sub-level in bits 4-7,
  // main level in bits 0-3.
  const int index = static_cast<int>(p.kind) - static_cast<int>(ProfileKind::kImf2K);
  return static_cast<uint16_t>(((4 + index) << 8) | ((p.sub_level & 15) << 4) | (p.main_level & 15));
}

std::string profile_name(const Profile& p) {
  if (p.kind == ProfileKind::kNone) return "no profile";
  if (p.kind == ProfileKind::kCinema2K) return "-cinema2K " + std::to_string(p.frame_rate);
  if (p.kind == ProfileKind::kCinema4K) return "-cinema4K " + std::to_string(p.frame_rate);
  std::string s = std::string("-IMF ") + imf_name(p.kind);
  if (p.main_level) s += ",MAINLEVEL=" + std::to_string(p.main_level);
  if (p.sub_level) s += ",SUBLEVEL=" + std::to_string(p.sub_level);
  if (p.frame_rate) s += ",FRAMERATE=" + std::to_string(p.frame_rate);
  return s;
}

std::string describe_rsiz(uint16_t rsiz) {
  // Bit 15: Part 2 extensions; bit 14: Part 15 (HT) capabilities, the
  // profile in the other bits (15444-15 A.2).
  if (rsiz & 0x8000) return "Part 2 extensions (Rsiz " + hex16(rsiz) + ")";
  const unsigned v = rsiz & 0x3FFFu;
  const std::string ht = (rsiz & 0x4000) ? ", HT capabilities (15444-15)" : "";
  static constexpr const char* kLow[] = {"no profile restrictions", "Profile 0", "Profile 1",
                                         "2K digital cinema", "4K digital cinema", "scalable 2K digital cinema",
                                         "scalable 4K digital cinema", "long-term storage"};
  const std::string code = " (Rsiz " + hex16(rsiz) + ")";
  if (v < 8) return kLow[v] + ht + code;
  const unsigned family = v >> 8, main = v & 15, sub = (v >> 4) & 15;
  if (family >= 1 && family <= 3 && sub == 0) {
    static constexpr const char* kBroadcast[] = {"broadcast single tile", "broadcast multi-tile",
                                                 "broadcast multi-tile reversible"};
    return std::string(kBroadcast[family - 1]) + ", level " + std::to_string(main) + ht + code;
  }
  if (family >= 4 && family <= 9) {
    const ProfileKind kind = static_cast<ProfileKind>(static_cast<int>(ProfileKind::kImf2K) + family - 4);
    return std::string("IMF ") + imf_name(kind) + ", main level " + std::to_string(main) + ", sub-level " +
           std::to_string(sub) + ht + code;
  }
  return "unknown profile" + ht + code;
}

EncodeOptions profile_options(const Profile& profile, const EncodeOptions& base) {
  EncodeOptions o = base;
  o.profile = profile;
  if (profile.kind == ProfileKind::kNone) return o;
  o.xcb = o.ycb = 5;
  o.style = CodeBlockStyle{};
  o.order = ProgressionOrder::kCPRL;
  o.tile_parts = TilePartDivision::kComponent;
  o.tlm = true;
  o.reversible = is_imf_reversible(profile.kind);
  if (is_cinema(profile.kind)) {
    o.mct = 1;
    // The profile's most levels; fewer where the image is small.
    o.resolutions = most_levels(profile.kind, 0) + 1;
    o.resolutions_explicit = false;
  }
  return o;
}

Result<EncodeOptions> resolve_profile(const Image& image, const EncodeOptions& options) {
  if (options.profile.kind == ProfileKind::kNone) return options;
  if (image.components.empty()) return invalid_argument("the image has no components");
  return ProfileCheck(image, options).run();
}

}  // namespace mallat::codec
