// The translation unit that precompiles <gtest/gtest.h> once for every test
// binary (mallat_gtest_pch in tests/CMakeLists.txt); it has no code of its own.
