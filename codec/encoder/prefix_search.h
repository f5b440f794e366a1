// PCRD's search for a byte target (rate_control.h): the longest prefix of
// the slope-ordered hull points whose file fits, found with few sizings of
// the file. Each sizing is a Tier-2 pass over every packet header (about 2
// ms for one 8-megapixel tile on one thread), and bisection over tens of
// thousands of points takes 16 or more of them; this search needs about a
// third as many by bounding the headers: the file of prefix k is body[k]
// (the code-blocks' bytes, known without Tier-2) plus an overhead (packet
// headers, markers) that grows with k.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "common/status.h"

namespace mallat::codec {

// The file's bytes for the first k points.
using SizeOfPrefix = std::function<Result<uint64_t>(size_t k)>;

// The largest k in [lo, hi) whose file is at most `target` bytes, where
// prefix lo is taken to fit (the caller's floor, as bisection takes it) and
// prefix hi does not (its file is size_hi bytes). body[k] (nondecreasing,
// defined on [lo, hi]) is prefix k's code-block bytes. Where the overhead
// size(k) - body[k] grows with k, every k the bounds settle is decided
// without a sizing, and the result is bisection's; the result is sized
// before it is returned (unless it is lo), and should it not fit (an
// overhead that shrank somewhere), plain bisection below it decides.
// `sizings`, when given, counts the calls of size_of.
Result<size_t> longest_fitting_prefix(size_t lo, size_t hi, uint64_t size_hi, std::span<const double> body,
                                      double target, const SizeOfPrefix& size_of, int* sizings = nullptr);

}  // namespace mallat::codec
