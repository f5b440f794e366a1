// The values of command-line options that several commands share, parsed
// one way: numbers and lists, sizes, progression orders, -threads,
// --device, --max-memory, and the container an output name asks for.
// Parsers returning bool leave the message to their caller, which names
// the option.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codec/api/coding_types.h"
#include "common/status.h"
#include "dwt/dwt.h"

namespace mallat::tools {

// An integer in [lo, hi], the whole of `s`.
bool parse_int(const std::string& s, int64_t lo, int64_t hi, int64_t* out);
// A byte count with an optional K, M or G (powers of 1024) suffix; above 0.
bool parse_byte_size(std::string s, uint64_t* out);
// "A,B", both in [lo, hi].
bool parse_pair(const std::string& s, int64_t lo, int64_t hi, int64_t* a, int64_t* b);
// log2 of a power of two, else -1.
int log2_exact(int64_t v);
// "[256,256],[128,128]" -> exponents.
bool parse_precincts(const std::string& s, std::vector<std::array<uint8_t, 2>>* out);
// "2,0" -> {2, 0}; every value an integer in [lo, hi].
bool parse_ints(const std::string& s, int64_t lo, int64_t hi, std::vector<int>* out);
// "40,20,10" -> {40, 20, 10}; every value a number >= 0.
bool parse_doubles(const std::string& s, std::vector<double>* out);
// LRCP, RLCP, RPCL, PCRL or CPRL.
bool parse_order(const std::string& s, codec::ProgressionOrder* out);

// An error message from the parsers that return one (empty: good) as a Status.
Status usage_status(const std::string& error);

// --fsync's help (encode, decode, transcode: io/file.h's set_durable_writes).
inline constexpr std::string_view kFsyncHelp =
    "flush each output file to the disk before renaming it into place, so that after a power cut a file under its "
    "name holds all its bytes (slower where the disk is: a batch waits for it); without it the kernel writes the "
    "files back in its own time, as other codecs leave it. Either way a file that fails is never left in place";

// -threads N, --device B and --max-memory S, which encode and decode share.
Status parse_threads(const std::string& value, int* threads);
Status parse_backend(const std::string& value, dwt::BackendKind* backend);
Status parse_max_memory(const std::string& value, uint64_t* bytes);

bool ends_with_ci(const std::string& s, const std::string& suffix);

// The container that OUT's extension asks for (15444-15 Annex D: .jph for a
// JPH file, .jhc for an HT codestream); kUnknown for any other.
codec::Container output_container(const std::string& out);
std::string bad_output_extension(const std::string& out);

}  // namespace mallat::tools
