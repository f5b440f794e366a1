#include "entropy/cuda/ht/vlc_tables_device.h"

#include <algorithm>
#include <vector>

namespace mallat::entropy::cuda {

Status DeviceVlcTables::upload() {
  const ht::VlcDecodeTables& d = ht::vlc_decode_tables();
  const ht::VlcEncodeTables& e = ht::vlc_encode_tables();
  const size_t decode = d.initial_row.size(), encode = e.initial_row.size();
  std::vector<uint16_t> all;
  all.reserve(2 * (decode + encode));
  all.insert(all.end(), d.initial_row.begin(), d.initial_row.end());
  all.insert(all.end(), d.other_rows.begin(), d.other_rows.end());
  all.insert(all.end(), e.initial_row.begin(), e.initial_row.end());
  all.insert(all.end(), e.other_rows.begin(), e.other_rows.end());
  MALLAT_RETURN_IF_ERROR(buffer_.reserve(all.size()));
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpy(buffer_.data(), all.data(), all.size() * sizeof(uint16_t), cudaMemcpyHostToDevice),
      "copying the HT VLC tables to the device"));
  const uint16_t* base = buffer_.data();
  tables_ = {base, base + decode, base + 2 * decode, base + 2 * decode + encode};
  return Status::Ok();
}

}  // namespace mallat::entropy::cuda
