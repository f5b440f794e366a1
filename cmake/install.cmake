# Installation (`cmake --install <build> [--prefix P]`): the static libraries,
# the headers, the `mallat` command, a CMake package (find_package(mallat)
# gives mallat::mallat) and a pkg-config file (mallat.pc). Everything about
# installing lives here and in mallatConfig.cmake.in / mallat.pc.in beside it;
# tests/install checks the result by building a small program against it.
#
# The libraries and their order come from CMake's link graph (the same graph
# tests/layering checks), starting at mallat::mallat = mallat_codec + mallat_io,
# so a source file or a link added to a module needs nothing here. A new
# external dependency does: mallat_dependency() below says how a consumer
# finds it and refuses to configure while it does not know one.
#
# Public API: codec/codec.h (codec/api/encode.h, decode.h, coding_types.h), codec/api/engine.h,
# io/image_io.h (and io/formats.h), common/image.h and common/status.h. The
# other headers are installed because those include them (dwt/dwt.h for the
# backend choice, common/plane_view.h, ...) and because copying every module's
# headers with their folder paths is the simplest closure that stays right as
# headers change; they are the codec's machinery, not a stable API.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MALLAT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mallat)
set(MALLAT_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The package's one target: what a program that encodes, decodes and reads or
# writes image files links. Exported as mallat::mallat (the name `mallat` is
# the command's); mallat::mallat is also its name inside this build.
add_library(mallat_package INTERFACE)
target_link_libraries(mallat_package INTERFACE mallat_engine mallat_codec mallat_io)
# The headers are C++20 (std::span in codec/api/decode.h); the modules get it
# from CMAKE_CXX_STANDARD, which does not travel with exported targets.
target_compile_features(mallat_package INTERFACE cxx_std_20)
set_target_properties(mallat_package PROPERTIES EXPORT_NAME mallat)
add_library(mallat::mallat ALIAS mallat_package)

include(${CMAKE_CURRENT_LIST_DIR}/link_graph.cmake)

# _mallat_visit(TARGET): depth-first over the mallat_* targets TARGET links,
# appending each to the global list _mallat_postorder after all it links.
function(_mallat_visit target)
  get_property(seen GLOBAL PROPERTY _mallat_seen)
  if(target IN_LIST seen)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _mallat_seen ${target})
  mallat_direct_links(${target} links)
  # Backwards, so that the reversed result keeps the order of the links.
  list(REVERSE links)
  foreach(dep IN LISTS links)
    if(dep MATCHES "^::@")
      # CMake's marker around links made from another folder (dwt/cuda).
      continue()
    elseif(dep MATCHES "^mallat_" AND TARGET ${dep})
      _mallat_visit(${dep})
    elseif(dep MATCHES "::")
      set_property(GLOBAL APPEND PROPERTY _mallat_external ${dep})
    elseif(NOT dep STREQUAL "")
      message(FATAL_ERROR "cmake/install.cmake: ${target} links '${dep}', which is neither "
                          "a mallat_ library nor an imported target: say here how to install it")
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY _mallat_postorder ${target})
endfunction()

_mallat_visit(mallat_package)
get_property(mallat_postorder GLOBAL PROPERTY _mallat_postorder)
get_property(mallat_external GLOBAL PROPERTY _mallat_external)
list(REMOVE_DUPLICATES mallat_external)

# Reverse post-order: each library before every library it links, the order
# a static link line needs.
set(mallat_export_targets ${mallat_postorder})
list(REVERSE mallat_export_targets)
set(mallat_link_order)
set(mallat_header_dirs)
set(mallat_pc_cflags)
foreach(target IN LISTS mallat_export_targets)
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    list(APPEND mallat_link_order ${target})
  endif()
  if(NOT target STREQUAL "mallat_package")
    string(REGEX REPLACE "^mallat_" "" name ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
    # The module's top folder (codec/tier2 -> codec): its headers go to
    # include/ with their paths, so "codec/codec.h" works from the prefix.
    get_target_property(dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH dir ${PROJECT_SOURCE_DIR} ${dir})
    string(REGEX REPLACE "/.*" "" dir "${dir}")
    list(APPEND mallat_header_dirs ${dir})
  endif()
  get_target_property(defs ${target} INTERFACE_COMPILE_DEFINITIONS)
  foreach(def IN LISTS defs)
    if(def)
      list(APPEND mallat_pc_cflags "-D${def}")
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES mallat_header_dirs)
list(REMOVE_DUPLICATES mallat_pc_cflags)

# External dependencies: how mallatConfig.cmake finds each one, and what
# mallat.pc says for it (Requires.private: a pkg-config module; Libs.private:
# flags). Only the ones this build links are listed (TIFF and CUDA are optional).
set(MALLAT_FIND_DEPENDENCIES "")
set(mallat_pc_requires)
set(mallat_pc_libs)
foreach(dep IN LISTS mallat_external)
  if(dep STREQUAL "Threads::Threads")
    string(APPEND MALLAT_FIND_DEPENDENCIES "find_dependency(Threads)\n")
    list(APPEND mallat_pc_libs -lpthread)
  elseif(dep STREQUAL "PNG::PNG")
    string(APPEND MALLAT_FIND_DEPENDENCIES "find_dependency(PNG)\n")
    list(APPEND mallat_pc_requires libpng)
  elseif(dep STREQUAL "TIFF::TIFF")
    string(APPEND MALLAT_FIND_DEPENDENCIES "find_dependency(TIFF)\n")
    list(APPEND mallat_pc_requires libtiff-4)
  elseif(dep STREQUAL "CUDA::cudart")
    string(APPEND MALLAT_FIND_DEPENDENCIES "find_dependency(CUDAToolkit)\n")
    # The shared runtime, as CUDA::cudart; the rpath lets the program find
    # it where the CUDA library folder is not in the loader's path.
    list(APPEND mallat_pc_libs "-L${CUDAToolkit_LIBRARY_DIR}"
         "-Wl,-rpath,${CUDAToolkit_LIBRARY_DIR}" -lcudart)
  else()
    message(FATAL_ERROR "cmake/install.cmake: the installed libraries link ${dep}; "
                        "say how a consumer finds it (find_dependency, mallat.pc)")
  endif()
endforeach()
list(REMOVE_DUPLICATES mallat_pc_libs)

# Libraries, headers, the command.
install(TARGETS ${mallat_export_targets} EXPORT mallatTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(dir IN LISTS mallat_header_dirs)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.h")
endforeach()
# The command links libcudart.so when built with CUDA: keep the path it was
# linked with (CMake drops build-time rpaths on install).
set_target_properties(mallat PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS mallat RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The CMake package: lib/cmake/mallat/mallatConfig.cmake, its version file,
# the exported targets (mallat::mallat, and each library as mallat::<module>).
install(EXPORT mallatTargets NAMESPACE mallat:: DESTINATION ${MALLAT_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/mallatConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mallatConfig.cmake INSTALL_DESTINATION ${MALLAT_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mallatConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mallatConfig.cmake ${PROJECT_BINARY_DIR}/mallatConfigVersion.cmake
        DESTINATION ${MALLAT_INSTALL_CMAKEDIR})

# pkg-config: lib/pkgconfig/mallat.pc. The prefix is found from the file's
# own place (${pcfiledir}), so `cmake --install --prefix P` needs no reconfigure.
file(RELATIVE_PATH MALLAT_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${MALLAT_INSTALL_PKGCONFIGDIR}
     ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" MALLAT_PC_TO_PREFIX "${MALLAT_PC_TO_PREFIX}")
list(TRANSFORM mallat_link_order PREPEND "-l" OUTPUT_VARIABLE MALLAT_PC_LIBS)
list(JOIN MALLAT_PC_LIBS " " MALLAT_PC_LIBS)
list(JOIN mallat_pc_requires ", " MALLAT_PC_REQUIRES_PRIVATE)
list(JOIN mallat_pc_libs " " MALLAT_PC_LIBS_PRIVATE)
list(JOIN mallat_pc_cflags " " MALLAT_PC_CFLAGS)
configure_file(${CMAKE_CURRENT_LIST_DIR}/mallat.pc.in ${PROJECT_BINARY_DIR}/mallat.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mallat.pc DESTINATION ${MALLAT_INSTALL_PKGCONFIGDIR})
