// The images and encoder options the GPU tests run through the device
// paths (encode_cuda_test.cc, decode_cuda_test.cc), and their skip where
// no device can be used.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codec/codec.h"
#include "codec/encoder/encode_call.h"
#include "codec/stages/device_tile_stages.h"
#include "common/image.h"
#include "dwt/dwt.h"
#include "entropy/block_coder.h"
#include "entropy/hybrid/hybrid_block_encoder.h"

namespace mallat::codec {

#define SKIP_WITHOUT_DEVICE()                                                        \
  do {                                                                               \
    auto probe = entropy::make_device_block_encoder();                               \
    if (!probe.ok()) GTEST_SKIP() << probe.status().message();                      \
    auto dwt_probe = dwt::make_backend(dwt::BackendKind::kCuda, 2);                  \
    if (!dwt_probe.ok()) GTEST_SKIP() << dwt_probe.status().message();              \
  } while (0)

// A smooth gradient with texture and noise, so the blocks code many passes
// of every kind.
inline Image photo_like(int64_t w, int64_t h, int n, int precision, unsigned seed) {
  Image image = make_image(w, h, n, precision, false).value();
  std::mt19937 rng(seed);
  const int32_t top = (1 << precision) - 1;
  std::normal_distribution<double> noise(0.0, top / 40.0);
  for (int c = 0; c < n; ++c) {
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        const double v = top * (0.5 + 0.3 * std::sin((x + 7 * c) / 23.0) * std::cos(y / 17.0)) +
                         ((x / 8 + y / 8) % 2 ? top / 10.0 : 0.0) + noise(rng);
        image.components[c].samples[y * w + x] = static_cast<int32_t>(std::clamp(v, 0.0, double(top)));
      }
    }
  }
  return image;
}

struct Case {
  std::string name;
  Image image;
  EncodeOptions options;
};

inline std::vector<Case> cases() {
  std::vector<Case> all;
  EncodeOptions base;
  base.threads = 4;
  all.push_back({"lossless RGB", photo_like(301, 203, 3, 8, 1), base});
  EncodeOptions lossy = base;
  lossy.reversible = false;
  lossy.rate_kind = EncodeOptions::RateKind::kRatio;
  lossy.rate_values = {20};
  all.push_back({"-I -r 20 RGB", photo_like(301, 203, 3, 8, 2), lossy});
  // Every pass sent: any coefficient the CUDA 9/7 rounded otherwise than
  // the CPU's would show in the bytes.
  EncodeOptions every_pass = base;
  every_pass.reversible = false;
  all.push_back({"-I every pass", photo_like(190, 130, 3, 8, 19), every_pass});
  EncodeOptions layers = lossy;
  layers.rate_values = {80, 40, 10};
  all.push_back({"-I -r 80,40,10", photo_like(250, 190, 3, 8, 3), layers});
  EncodeOptions tiles = base;
  tiles.tile_width = 128;
  tiles.tile_height = 96;
  all.push_back({"lossless tiles 128x96", photo_like(300, 200, 3, 8, 4), tiles});
  EncodeOptions lossy_tiles = lossy;
  lossy_tiles.tile_width = lossy_tiles.tile_height = 100;
  all.push_back({"-I -r 20 tiles 100x100", photo_like(300, 200, 3, 8, 5), lossy_tiles});
  EncodeOptions switches = lossy;
  switches.style = entropy::CodeBlockStyle::from_byte(0x3F);  // every Part 1 mode switch
  all.push_back({"-I -r 20 -M 63", photo_like(280, 150, 3, 8, 6), switches});
  EncodeOptions switches_lossless = base;
  switches_lossless.style = entropy::CodeBlockStyle::from_byte(0x05);  // BYPASS + TERMALL
  all.push_back({"lossless -M 5", photo_like(200, 170, 1, 8, 7), switches_lossless});
  all.push_back({"lossless 16-bit grey", photo_like(260, 180, 1, 16, 8), base});
  all.push_back({"-I -r 20 16-bit grey", photo_like(260, 180, 1, 16, 9), lossy});
  EncodeOptions ht = base;
  ht.style.ht = true;
  all.push_back({"HT lossless", photo_like(200, 150, 3, 8, 10), ht});
  EncodeOptions ht_lossy = lossy;
  ht_lossy.style.ht = true;
  all.push_back({"HT -I -r 20", photo_like(230, 160, 3, 8, 19), ht_lossy});
  EncodeOptions ht_causal = base;
  ht_causal.style = entropy::CodeBlockStyle::from_byte(0x48);  // HT, vertically causal
  all.push_back({"HT lossless vertically causal 16-bit grey", photo_like(190, 140, 1, 16, 20), ht_causal});
  return all;
}

// A batch's lanes sharing `shared`'s slots: each case encoded three times
// on a thread of its own (2 threads each) through the context; per case ""
// where every codestream is the CPU path's, else what went wrong.
inline std::vector<std::string> lanes_differing(const std::vector<Case>& all,
                                                const std::shared_ptr<DeviceTileContext>& shared) {
  std::vector<std::string> wrong(all.size());
  std::vector<std::vector<uint8_t>> want(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    auto w = encode(all[i].image, all[i].options);
    if (!w.ok()) wrong[i] = "on the CPU: " + w.status().message();
    else want[i] = std::move(w).value();
  }
  std::vector<std::thread> lanes;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!wrong[i].empty()) continue;
    lanes.emplace_back([&, i] {
      EncodeOptions o = all[i].options;
      o.threads = 2;
      CallResources slots;
      slots.device_tiles = shared;
      for (int round = 0; round < 3; ++round) {
        const auto got = encode(all[i].image, o, slots, nullptr);
        if (!got.ok()) wrong[i] = got.status().message();
        else if (*got != want[i]) wrong[i] = std::string("other bytes in round ").append(std::to_string(round));
      }
    });
  }
  for (std::thread& t : lanes) t.join();
  return wrong;
}

}  // namespace mallat::codec
