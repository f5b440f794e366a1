# cmake -DSTEP=tree|find_package|pkg_config -D... -P check_install.cmake
# (tests/install/CMakeLists.txt passes the variables). Fails with a message
# naming what went wrong.

# run(NAME command...): runs it in WORK_DIR, fails with its output if it fails.
function(run name)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK_DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " line)
    message(FATAL_ERROR "${name} failed (${rc}): ${line}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(sanitize_flags)
if(SANITIZE)
  set(sanitize_flags -fsanitize=address,undefined)
endif()

if(STEP STREQUAL "tree")
  file(REMOVE_RECURSE ${PREFIX})
  run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} --config ${CONFIG})
  foreach(f bin/mallat include/codec/codec.h include/codec/api/encode.h include/io/image_io.h
            include/common/image.h include/dwt/dwt.h
            ${LIBDIR}/cmake/mallat/mallatConfig.cmake
            ${LIBDIR}/cmake/mallat/mallatConfigVersion.cmake
            ${LIBDIR}/cmake/mallat/mallatTargets.cmake
            ${LIBDIR}/pkgconfig/mallat.pc)
    if(NOT EXISTS ${PREFIX}/${f})
      message(FATAL_ERROR "not installed: ${PREFIX}/${f}")
    endif()
  endforeach()
  # Every library mallat.pc names is there.
  file(STRINGS ${PREFIX}/${LIBDIR}/pkgconfig/mallat.pc libs_line REGEX "^Libs:")
  string(REGEX MATCHALL "-l[A-Za-z0-9_]+" libs "${libs_line}")
  if(NOT libs)
    message(FATAL_ERROR "mallat.pc names no library: ${libs_line}")
  endif()
  foreach(l IN LISTS libs)
    string(SUBSTRING ${l} 2 -1 name)
    if(NOT EXISTS ${PREFIX}/${LIBDIR}/lib${name}.a)
      message(FATAL_ERROR "mallat.pc links ${l} but ${PREFIX}/${LIBDIR}/lib${name}.a is missing")
    endif()
  endforeach()
  # Relocatable: nothing installed points back into the source or build tree.
  file(GLOB_RECURSE text_files ${PREFIX}/${LIBDIR}/cmake/*.cmake ${PREFIX}/${LIBDIR}/pkgconfig/*.pc)
  foreach(f IN LISTS text_files)
    file(READ ${f} text)
    foreach(dir ${SOURCE_DIR} ${BUILD_DIR})
      string(FIND "${text}" "${dir}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "${f} names ${dir}")
      endif()
    endforeach()
  endforeach()
  # The installed command runs (with CUDA: finds libcudart).
  run("installed mallat" ${PREFIX}/bin/mallat --help)

elseif(STEP STREQUAL "find_package")
  set(build ${WORK_DIR}/consumer-cmake)
  file(REMOVE_RECURSE ${build})
  set(args -S ${CONSUMER_DIR} -B ${build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${CONFIG}
           -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${PREFIX})
  if(MAKE_PROGRAM)
    list(APPEND args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
  endif()
  if(SANITIZE)
    list(APPEND args "-DCMAKE_EXE_LINKER_FLAGS=${sanitize_flags}")
  endif()
  run("configuring the consumer" ${CMAKE_COMMAND} ${args})
  # The package came from this prefix, not from somewhere else on the machine.
  string(FIND "${run_output}" "from ${PREFIX}/" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "find_package(mallat) did not take ${PREFIX}")
  endif()
  run("building the consumer" ${CMAKE_COMMAND} --build ${build} --config ${CONFIG})
  file(GLOB_RECURSE exe LIST_DIRECTORIES false ${build}/consumer ${build}/*/consumer)
  if(NOT exe)
    message(FATAL_ERROR "no consumer executable in ${build}")
  endif()
  list(GET exe 0 exe)
  run("the consumer (find_package)" ${exe} ${build}/round_trip.png)

elseif(STEP STREQUAL "pkg_config")
  set(ENV{PKG_CONFIG_PATH} ${PREFIX}/${LIBDIR}/pkgconfig)
  run("pkg-config" ${PKG_CONFIG} --cflags --libs --static mallat)
  separate_arguments(flags UNIX_COMMAND "${run_output}")
  set(exe ${WORK_DIR}/consumer-pkg-config)
  file(REMOVE ${exe})
  # The libraries come after the source: a static link resolves left to right.
  run("compiling with pkg-config's flags" ${CXX} -std=c++20 ${sanitize_flags}
      ${CONSUMER_DIR}/main.cc -o ${exe} ${flags})
  run("the consumer (pkg-config)" ${exe} ${WORK_DIR}/round_trip_pkg_config.png)

else()
  message(FATAL_ERROR "STEP must be tree, find_package or pkg_config, not '${STEP}'")
endif()
