// Whether the fast HT cleanup coders have a BMI2 build (x86-64 with GCC or
// Clang: a function per instruction set through the target attribute, the
// one to run chosen at run time by resolve_cleanup_isa). Internal.
#pragma once

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define MALLAT_HT_BMI2 1
#else
#define MALLAT_HT_BMI2 0
#endif
