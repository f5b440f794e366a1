// The public encoding API: an Image to a JPEG 2000 codestream or JP2 file in
// memory, with the options opj_compress users know (codec/codec.h has both
// directions). Only API types appear here; the machinery is in codec/encoder/.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codec/api/coding_types.h"
#include "codec/api/profile.h"
#include "codec/api/stage_times.h"
#include "common/image.h"
#include "common/status.h"
#include "dwt/dwt.h"
#include "entropy/block_coder.h"

namespace mallat::codec {

struct EncodeOptions {
  Container container = Container::kCodestream;
  int resolutions = 6;           // -n: decomposition levels + 1 (1..33)
  // When false, fewer resolutions are used if the first tile is too small for
  // `resolutions`; when true (the user asked for them), that is an error.
  bool resolutions_explicit = false;
  int xcb = 6, ycb = 6;          // -b: code-block size exponents (64x64)
  ProgressionOrder order = ProgressionOrder::kLRCP;  // -p
  uint32_t tile_width = 0, tile_height = 0;  // -t: 0 = one tile for the image
  uint32_t tile_x0 = 0, tile_y0 = 0;         // -T: tile grid origin
  uint32_t image_x0 = 0, image_y0 = 0;       // -d: image offset on the reference grid
  // -c: precinct size exponents, from the highest resolution down; the last
  // one repeats for lower resolutions. Empty: no precinct partition.
  std::vector<std::array<uint8_t, 2>> precincts;
  CodeBlockStyle style;          // -M mode switches
  bool sop = false, eph = false; // -SOP, -EPH
  bool tlm = false, plt = false; // -TLM, -PLT
  // -POC: progression changes (A.6.6, B.12.2) per tile index from 0, written
  // in that tile's first tile-part header. Where they leave packets out, one
  // more change sends those in `order` (a decoder follows only the changes).
  std::map<int, std::vector<ProgressionChange>> progression_changes;
  // Progression changes for every tile, in the main header's POC (A.6.6);
  // they must name every packet. The 4K cinema profile sets them.
  std::vector<ProgressionChange> main_progression_changes;
  // -TP R|L|C: a new tile-part wherever the progression moves to another
  // resolution / layer / component (tile_parts.h).
  TilePartDivision tile_parts = TilePartDivision::kNone;
  // --ppm / --ppt: the packet headers go into PPM segments of the main header
  // (A.7.4) or PPT segments of each tile-part header (A.7.5).
  enum class PackedHeaders { kNone, kPpm, kPpt };
  PackedHeaders packed_headers = PackedHeaders::kNone;
  // -ROI: max-shift regions of interest (RGN, Annex H), each a whole
  // component whose coefficients are all shifted up by `shift`.
  std::vector<RegionOfInterest> roi;
  // -mct: -1 = RCT/ICT when there are 3+ components and components 0..2
  // share size and sub-sampling (G.2, G.3), with a note when they do not;
  // 1 = on, an error when they do not; 0 = off.
  int mct = -1;
  bool reversible = true;        // 5/3 (lossless); -I chooses 9/7
  int guard_bits = 2;            // -GuardBits: 0..7 (E-2)
  // --quant derived: scalar derived quantisation (one signalled step, E-5)
  // instead of scalar expounded (a step per subband); irreversible only.
  bool derived_quantization = false;
  // The irreversible steps are Delta_b = base_step_scale / norm_b (the
  // subband's synthesis L2 norm), so one step moves the image by about
  // base_step_scale sample values. PCRD truncates at bit-planes, Delta_b x 2^p.
  double base_step_scale = 1.0;
  // Per resolution r (0 = the LL band's), a factor on the steps of its
  // subbands beside base_step_scale; empty or short: 1. With scalar
  // expounded quantisation only (each subband's step signalled, E.1.1).
  std::vector<double> resolution_step_scales;
  // --step-search N (N > 1): HT code-blocks (-M 64, -I) under a size target
  // (-r, --bpp) or a PSNR target (-q) are coded with N base steps
  // 2^(k/N), k = 0..N-1, and the file with the smallest measured error
  // (-q: the fewest bytes at the target's error) is kept; then, under a
  // size target with expounded steps, each resolution's steps are moved by
  // 2^(+-1/4) and 2^(+-1/8) from the best so far. HT truncates only at whole planes of a block (with SigProp and
  // MagRef for one plane below), so where a block's planes fall decides
  // what PCRD can choose; up to N + 4 x resolutions encodes
  // (step_search.h).
  int step_search = 1;
  // HT code-blocks under a rate target (-r, --bpp, -q or max_file_bytes):
  //   kAuto (the default): kEstimated, in the whole-image and the streamed
  //     encode (encode_streamed.h, which keeps each block's quantised
  //     indices until the planes are chosen: codec/encoder/kept_indices.h);
  //     kEveryPlane under a step search (step_search > 1) for a size
  //     target, the slow mode for the last fraction of a dB.
  //   kEstimated: each block's cleanup pass at every plane
  //     is estimated from counts gathered while quantising (bytes and
  //     distortion); one slope for the whole image, chosen for the target
  //     on those estimates, picks a plane per block, and the block is coded
  //     at that plane and, where the estimate is not clear, one neighbour
  //     (the coarser of the two with SigProp and MagRef); PCRD chooses
  //     among those. Where what was coded cannot reach the target,
  //     the blocks at the end of their range are coded one plane further
  //     (codec/encoder/ht_rate.h). With per-component byte caps every plane
  //     is coded, as for kEveryPlane.
  //   kEveryPlane (--ht-rate full): every block at every plane it has, PCRD
  //     choosing among all of them.
  //   kEstimatedSteps (--ht-rate steps): kEstimated, each block estimated at
  //     the nominal base step and at one 2^-1/2 times as large, and the
  //     steps whose estimates leave less error at a size target coded
  //     (codec/encoder/finer_steps.h): closer to the step search's quality
  //     at one encode, at a fifth to a third more time.
  enum class HtRate { kAuto, kEstimated, kEveryPlane, kEstimatedSteps };
  HtRate ht_rate = HtRate::kAuto;
  // Part 1 code-blocks under a size target (no -q, no byte caps per
  // component, no step search), on the CPU: true (the default) codes each
  // block only down to two planes past where estimates gathered while
  // quantising say rate control will cut it, then codes whole the blocks
  // whose choice rate control could not prove the same as with every pass
  // coded (codec/encoder/part1_rate.h); the file is the one coding every
  // pass gives, in less time. false codes every pass of every block.
  bool part1_pass_limits = true;
  // Rate targets, one per quality layer (PCRD rate allocation):
  //   kRatio (-r): compression ratios, decreasing; the file is at most
  //     (sum of component precisions x width x height / 8) / ratio bytes, as
  //     opj_compress; a ratio of 1 or less is lossless (every pass);
  //   kBitsPerPixel (--bpp): increasing; the file is at most
  //     bpp x width x height / 8 bytes; 0 is every pass;
  //   kPsnr (-q): increasing dB; the estimated PSNR (mean squared error
  //     over all components, peak 2^precision - 1) reaches the value; 0 is
  //     every pass.
  // kNone: one layer with every pass (lossless with 5/3).
  enum class RateKind { kNone, kRatio, kBitsPerPixel, kPsnr };
  RateKind rate_kind = RateKind::kNone;
  std::vector<double> rate_values;
  // Byte limits that rate control meets by truncating code-blocks (PCRD),
  // never by failing; 0 = none. max_file_bytes caps every layer's target;
  // max_component_bytes caps each component's packets plus the headers of
  // the tile-parts that hold that component alone (SOT, SOD, POC). The
  // profiles set them (cinema: 1,302,083 and 1,041,666 bytes at 24 fps).
  uint64_t max_file_bytes = 0;
  uint64_t max_component_bytes = 0;
  // Whether HT code-blocks are coded under a size or quality target: rate
  // control then codes each block's candidate planes from the host's
  // quantised indices (codec/encoder/ht_rate.h), a tile's blocks coded
  // again after its transform.
  bool ht_under_target() const {
    return style.ht && (rate_kind != RateKind::kNone || max_file_bytes > 0 || max_component_bytes > 0);
  }
  // A streamed encode (encode_streamed.h) that sends every pass keeps the
  // coded code-blocks' bytes and pass tables in memory up to this many
  // bytes, the rest in an unlinked file in $TMPDIR until Tier-2 writes them
  // (codec/encoder/coded_spill.h); the whole-image encode holds them all.
  uint64_t coded_memory_budget = uint64_t{256} << 20;
  // -cinema2K, -cinema4K, -IMF: the profile the stream must meet (Rsiz);
  // start from profile_options() (codec/api/profile.h).
  Profile profile;
  int threads = 0;               // 0 = all cores
  // Where the DWT runs for this call: the CPU by default (for whole files
  // the CUDA backend's start-up and plane copies cost more than the
  // transform saves). kCuda (or kAuto that finds a device) puts the DWT on
  // the device and Part 1 Tier-1 on the device and the CPU together, the
  // same bytes. Thread pools, device contexts and batches that outlive one
  // call belong to mallat::Engine (codec/api/engine.h), which decides what
  // runs where for its own calls: there this field and `threads` give way
  // to EngineOptions::dwt and EngineOptions::threads.
  dwt::BackendKind dwt_backend = dwt::BackendKind::kCpu;
  // Each stage's time into EncodeReport::stage_times (stage_times.h); the
  // stages then run timed one by one, with the same results.
  bool time_stages = false;
  std::string comment = "Created by mallat";
};

// What encode decided that the caller may want to tell the user.
struct EncodeReport {
  // E.g. the default colour transform left off because components 0..2
  // differ in size or sub-sampling.
  std::vector<std::string> notes;
  // A streamed encode's code-blocks kept on disk until Tier-2, and their
  // bytes with their pass tables (EncodeOptions::coded_memory_budget).
  uint64_t spilled_blocks = 0;
  uint64_t spilled_bytes = 0;
  // Part 1 code-blocks coded down to pass limits (EncodeOptions::
  // part1_pass_limits), and of them those coded whole again where rate
  // control could not prove their choice (codec/encoder/part1_rate.h).
  uint64_t limited_blocks = 0;
  uint64_t limited_blocks_coded_again = 0;
  // Each stage's time, where EncodeOptions::time_stages asked for it.
  StageTimes stage_times;
};

// Components may differ in size when each is the B-2 extent of the image
// area under its sub-sampling (Component::dx, dy; SIZ XRsiz, YRsiz): the area
// is Image::x1 - x0 by y1 - y0 when that fits, else the largest that does
// (reference_grid_size, common/image.h), placed at -d's origin.
Result<std::vector<uint8_t>> encode(const Image& image, const EncodeOptions& options,
                                    EncodeReport* report = nullptr);

}  // namespace mallat::codec
