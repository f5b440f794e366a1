#include "codec/jp2/jp2_colour.h"

#include <algorithm>

#include "codec/codestream/byte_reader.h"
#include "codec/jp2/icc_profile.h"
#include "codec/jp2/sycc.h"

namespace mallat::codec {
namespace {

std::string at(size_t offset) { return " at byte " + std::to_string(offset); }

// I.5.3.5: the channels that cmap makes of the components and the palette.
Status apply_palette(const Jp2File& jp2, Image& image, std::vector<std::string>* warnings) {
  const Palette& palette = *jp2.palette;
  const int64_t entries = static_cast<int64_t>(palette.entries.size());
  std::vector<Component> channels;
  std::vector<bool> warned(image.components.size(), false);  // one warning per indexing component
  for (const ComponentMapping& m : jp2.component_mapping) {
    if (m.component >= image.components.size())
      return corrupt_at("cmap", jp2.component_mapping_offset,
                        "maps component " + std::to_string(m.component) + " but the codestream has " +
                            std::to_string(image.components.size()));
    const Component& source = image.components[m.component];
    if (m.mapping_type == 0) {
      channels.push_back(source);
      continue;
    }
    const int bits = palette.bits(m.palette_column);
    if (bits > 31)
      return unsupported("pclr" + at(palette.offset) + ": column " + std::to_string(m.palette_column) + " of " +
                         std::to_string(bits) + " bits (this decoder keeps samples of up to 31)");
    Component channel = source;
    channel.precision = bits;
    channel.is_signed = palette.is_signed(m.palette_column);
    int64_t clipped = 0;
    for (int32_t& v : channel.samples) {
      const int64_t index = std::clamp<int64_t>(v, 0, entries - 1);
      clipped += index != v;
      v = static_cast<int32_t>(palette.entries[static_cast<size_t>(index)][m.palette_column]);
    }
    if (clipped && warnings && !warned[m.component]) {
      warned[m.component] = true;
      warnings->push_back(std::to_string(clipped) + " samples of component " + std::to_string(m.component) +
                          " index past the " + std::to_string(entries) + " entries of pclr" + at(palette.offset) +
                          "; the nearest entry was used");
    }
    channels.push_back(std::move(channel));
  }
  image.components = std::move(channels);
  return Status::Ok();
}

ChannelRole role_of(uint16_t type) {
  switch (type) {
    case 0: return ChannelRole::kColour;
    case 1: return ChannelRole::kOpacity;
    case 2: return ChannelRole::kPremultipliedOpacity;
    default: return ChannelRole::kUnspecified;
  }
}

// I.5.3.6: roles, and colour channel k at position k - 1.
Status apply_channel_definitions(const Jp2File& jp2, Image& image, std::vector<std::string>* warnings, bool strict) {
  const size_t n = image.components.size();
  const size_t offset = jp2.channel_definition_offset;
  std::vector<bool> described(n, false);
  std::vector<int> slot_of(n, -1);  // where each channel goes; -1: the next free position, in order
  std::vector<bool> slot_taken(n, false);
  for (const ChannelDefinition& d : jp2.channel_definitions) {
    if (d.channel >= n)
      return corrupt_at("cdef", offset, "describes channel " + std::to_string(d.channel) + " of " + std::to_string(n));
    if (described[d.channel]) {
      if (strict) return corrupt_at("cdef", offset, "describes channel " + std::to_string(d.channel) + " twice");
      if (warnings)
        warnings->push_back("cdef" + at(offset) + " describes channel " + std::to_string(d.channel) +
                            " twice: the first description counts");
      continue;
    }
    described[d.channel] = true;
    if (d.type > 2 && d.type != 65535 && warnings)
      warnings->push_back("cdef" + at(offset) + ": channel " + std::to_string(d.channel) + " has type " +
                          std::to_string(d.type) + "; taken as unspecified");
    image.components[d.channel].role = role_of(d.type);
    if (d.type == 0 && d.association >= 1 && d.association != 65535) {
      const size_t slot = d.association - 1u;
      if (slot >= n || slot_taken[slot])
        return corrupt_at("cdef", offset, "colour channel " + std::to_string(d.channel) + " associated with colour " +
                                              std::to_string(d.association) + ", which is out of range or taken");
      slot_taken[slot] = true;
      slot_of[d.channel] = static_cast<int>(slot);
    }
  }
  for (size_t c = 0; c < n; ++c)
    if (!described[c] && warnings)
      warnings->push_back("cdef" + at(offset) + " does not describe channel " + std::to_string(c));
  std::vector<Component> ordered(n);
  std::vector<bool> filled(n, false);
  for (size_t c = 0; c < n; ++c)
    if (slot_of[c] >= 0) {
      ordered[slot_of[c]] = std::move(image.components[c]);
      filled[slot_of[c]] = true;
    }
  size_t next = 0;
  for (size_t c = 0; c < n; ++c) {
    if (slot_of[c] >= 0) continue;
    while (filled[next]) ++next;
    ordered[next] = std::move(image.components[c]);
    filled[next] = true;
  }
  image.components = std::move(ordered);
  const ChannelRole last = image.components.back().role;
  image.has_alpha = last == ChannelRole::kOpacity || last == ChannelRole::kPremultipliedOpacity;
  return Status::Ok();
}

// I.5.3.3: a Part 1 reader uses the first colr and ignores the rest.
void apply_colour_specification(const ColourSpecification& colr, Image& image, std::vector<std::string>* warnings) {
  image.icc_profile.clear();
  if (colr.method == 1) {
    image.color_space = enumerated_colour_space(colr.enumerated).color_space;
    if (image.color_space == ColorSpace::kUnknown && warnings) {
      std::string known;
      for (EnumeratedColourSpace e : {EnumeratedColourSpace::kSRGB, EnumeratedColourSpace::kGreyscale,
                                      EnumeratedColourSpace::kSYCC}) {
        const auto value = static_cast<uint32_t>(e);
        known += (known.empty() ? "" : ", ") + std::to_string(value) + " " + enumerated_colour_space(value).name;
      }
      warnings->push_back("colr" + at(colr.offset) + ": enumerated colour space " + std::to_string(colr.enumerated) +
                          " is not one of 15444-1 (" + known + "); samples left as decoded");
    }
    return;
  }
  if (colr.method == 2) {
    // I.5.3.3: only restricted profiles belong in a JP2 file; one that cannot
    // be read is dropped, and the samples are taken as what their number says.
    auto profile = parse_restricted_icc(colr.icc_profile);
    if (!profile.ok()) {
      image.color_space = ColorSpace::kUnknown;
      if (warnings)
        warnings->push_back("colr" + at(colr.offset) + ": ICC profile ignored: " + profile.status().message());
      return;
    }
    image.icc_profile = colr.icc_profile;
    image.color_space = profile->monochrome ? ColorSpace::kGray : ColorSpace::kRgb;
    return;
  }
  image.color_space = ColorSpace::kUnknown;
  if (warnings)
    warnings->push_back("colr" + at(colr.offset) + ": method " + std::to_string(colr.method) +
                        " is not one of 15444-1; colour space unknown");
}

}  // namespace

Status apply_jp2_header(const Jp2File& jp2, Image& image, std::vector<std::string>* warnings, bool strict) {
  if (image.components.empty()) return invalid_argument("apply_jp2_header: no components");
  if (jp2.ihdr.num_components != image.components.size() && warnings)
    warnings->push_back("ihdr says " + std::to_string(jp2.ihdr.num_components) + " components, the codestream has " +
                        std::to_string(image.components.size()));
  if (jp2.palette) MALLAT_RETURN_IF_ERROR(apply_palette(jp2, image, warnings));
  if (!jp2.channel_definitions.empty()) MALLAT_RETURN_IF_ERROR(apply_channel_definitions(jp2, image, warnings, strict));
  const ColourSpecification* colr = first_colour_specification(jp2);
  if (colr) apply_colour_specification(*colr, image, warnings);
  int colour_channels = 0;
  for (const Component& c : image.components) colour_channels += c.role == ChannelRole::kColour;
  const int needed = image.color_space == ColorSpace::kGray ? 1 : image.color_space == ColorSpace::kUnknown ? 0 : 3;
  if (colour_channels < needed) {
    // The samples are still usable: call them what their number says.
    if (warnings)
      warnings->push_back((colr ? "colr" + at(colr->offset) : std::string("no colr")) + ": the colour space needs " +
                          std::to_string(needed) + " colour channels, the file has " + std::to_string(colour_channels) +
                          "; taken as " + (colour_channels >= 3 ? "RGB" : "greyscale"));
    image.color_space = colour_channels >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;
    image.icc_profile.clear();
  }
  return Status::Ok();
}

Jp2Description describe_for_jp2(const Image& image, std::vector<std::string>* warnings) {
  Jp2Description d;
  const int n = image.num_components();
  std::vector<ChannelRole> roles;
  for (const Component& c : image.components) roles.push_back(c.role);
  if (image.has_alpha && n > 1 && roles.back() == ChannelRole::kColour) roles.back() = ChannelRole::kOpacity;
  int colour_channels = 0;
  for (ChannelRole r : roles) colour_channels += r == ChannelRole::kColour;
  switch (image.color_space) {
    case ColorSpace::kGray: d.colour = EnumeratedColourSpace::kGreyscale; break;
    case ColorSpace::kRgb: d.colour = EnumeratedColourSpace::kSRGB; break;
    case ColorSpace::kYcc: d.colour = EnumeratedColourSpace::kSYCC; break;
    default: d.colour = default_colour_space(colour_channels); break;
  }
  if (!image.icc_profile.empty()) {
    auto profile = parse_restricted_icc(image.icc_profile);
    if (profile.ok() && colour_channels >= (profile->monochrome ? 1 : 3)) {
      d.icc_profile = image.icc_profile;
    } else if (warnings) {
      warnings->push_back("the ICC profile is not written into the JP2 file: " +
                          (profile.ok() ? std::string("it does not fit the colour channels") : profile.status().message()));
    }
  }
  if (colour_channels == n) return d;
  uint16_t next_colour = 1;
  for (int c = 0; c < n; ++c) {
    ChannelDefinition def;
    def.channel = static_cast<uint16_t>(c);
    switch (roles[c]) {
      case ChannelRole::kColour: def.type = 0; def.association = next_colour++; break;
      case ChannelRole::kOpacity: def.type = 1; def.association = 0; break;
      case ChannelRole::kPremultipliedOpacity: def.type = 2; def.association = 0; break;
      case ChannelRole::kUnspecified: def.type = 65535; def.association = 65535; break;
    }
    d.channels.push_back(def);
  }
  return d;
}

}  // namespace mallat::codec
