# Unity builds of the libraries (CMAKE_UNITY_BUILD=ON): the sanitizer and
# ThreadSanitizer jobs of tools/quickstart.sh and tools/tsan_check.sh compile
# each library's files in batches of 8, so the headers they share are parsed
# and instrumented once per batch rather than once per file. The code and
# the checks are the same; only the grouping into translation units differs.
#
# The files below are compiled on their own: each defines ISA macros or a
# file-wide diagnostic pragma for the code after it (the HT cleanup kernels),
# holds an anonymous-namespace type inside a class that a header declares
# (GCC's -Wsubobject-linkage then fires in a unity file), or declares
# file-local names another file of its library declares too. A library file
# that breaks the unity build is added here.
if(NOT CMAKE_UNITY_BUILD)
  return()
endif()
# The image readers each declare the same file-local limits and helpers.
set_target_properties(mallat_io PROPERTIES UNITY_BUILD OFF)
set(mallat_unity_alone
  mallat_dwt:dwt/line_inverse.cc
  mallat_stages:codec/stages/streamed_tile.cc
  mallat_entropy:entropy/hybrid/hybrid_block_encoder.cc
  mallat_entropy:entropy/ht/cpu/cleanup_kernels_avx2.cc
  mallat_entropy:entropy/ht/cpu/cleanup_kernels_avx512.cc
  mallat_entropy:entropy/ht/cpu/cleanup_kernels_generic.cc)
foreach(entry IN LISTS mallat_unity_alone)
  string(REPLACE ":" ";" pair ${entry})
  list(GET pair 0 target)
  list(GET pair 1 file)
  set_source_files_properties(${PROJECT_SOURCE_DIR}/${file} TARGET_DIRECTORY ${target}
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endforeach()
