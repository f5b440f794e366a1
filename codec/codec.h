// The public API of the JPEG 2000 codec: encode an Image to a codestream or
// JP2 file in memory (codec/api/encode.h), decode one back
// (codec/api/decode.h), and transcode one between Part 1 and HT code-blocks
// (codec/api/transcode.h). Everything else in codec/ is the machinery
// behind these calls; docs/ARCHITECTURE.md maps it.
#pragma once

#include "codec/api/decode.h"
#include "codec/api/decode_streamed.h"
#include "codec/api/encode.h"
#include "codec/api/encode_streamed.h"
#include "codec/api/transcode.h"
