# The module graph as CMake links it, written for tests/layering: one line per
# module, "<folder> <folder it may include> ...". A module may include its own
# headers and those of the modules it links, directly or through another.
# So the link graph is the one statement of who may use whom, and a source
# that includes a header from outside it fails the layering test.

include(${CMAKE_CURRENT_LIST_DIR}/link_graph.cmake)

# mallat_collect_links(TARGET OUT): TARGET's mallat_* libraries, transitively.
function(mallat_collect_links target out)
  set(seen ${${out}})
  mallat_direct_links(${target} links)
  foreach(dep IN LISTS links)
    if(dep MATCHES "^mallat_" AND TARGET ${dep} AND NOT dep IN_LIST seen)
      list(APPEND seen ${dep})
      mallat_collect_links(${dep} seen)
    endif()
  endforeach()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# mallat_write_layering(FILE TARGET...): the graph of the named targets.
function(mallat_write_layering file)
  set(text "")
  foreach(target IN LISTS ARGN)
    get_target_property(dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH dir ${PROJECT_SOURCE_DIR} ${dir})
    set(deps)
    mallat_collect_links(${target} deps)
    set(line "${dir}")
    foreach(dep IN LISTS deps)
      get_target_property(ddir ${dep} SOURCE_DIR)
      file(RELATIVE_PATH ddir ${PROJECT_SOURCE_DIR} ${ddir})
      string(APPEND line " ${ddir}")
    endforeach()
    string(APPEND text "${line}\n")
  endforeach()
  file(WRITE ${file} "${text}")
endfunction()
