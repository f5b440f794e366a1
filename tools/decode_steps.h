// decode's steps for one file (tools/batch.h): read the file, decode it
// through the engine (PNM output as a byte raster where the image allows,
// codec/api/decode.h), write it through the output policy
// (decode_output.h). The single-file command and the batch's hooks write
// with the same code, so a batch writes the same bytes.
#pragma once

#include <filesystem>

#include "codec/api/decode.h"
#include "codec/api/engine.h"
#include "tools/batch.h"
#include "tools/decode_output.h"

namespace mallat::tools {

// Raw planes are the components as coded: decode applies no JP2 colour
// (palette, cdef, sYCC, ICC) for them, and says how to read them back.
bool writes_raw_planes(const std::filesystem::path& out);
// PNM output takes the samples as its raster where the image allows.
bool writes_pnm(const std::filesystem::path& out);

// Writes item.image (or item.raster, where the decoder gave it) to
// item.file->out through the output policy (`output`, -r's `reduce`); its
// notes go to item.messages. A raster written as it is stays in item.raster
// (its memory for the engine to reuse); one unpacked is emptied.
Status write_decoded(const DecodeOutputOptions& output, int reduce, BatchItem& item);

// The three steps, decoding with `options` through `engine`; both stay
// alive while the steps run.
BatchSteps decode_steps(const DecodeOutputOptions& output, int reduce, Engine& engine,
                        const codec::DecodeOptions& options);

}  // namespace mallat::tools
