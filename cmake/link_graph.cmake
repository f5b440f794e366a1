# mallat_direct_links(TARGET OUT): what TARGET links directly, its interface
# links and, unless it is an INTERFACE library, its own, with the
# $<LINK_ONLY:...> wrapper of private links taken off. The layering test
# (layering.cmake) and the install rules (install.cmake) both walk the link
# graph through this.
function(mallat_direct_links target out)
  get_target_property(type ${target} TYPE)
  set(links)
  get_target_property(l ${target} INTERFACE_LINK_LIBRARIES)
  if(l)
    list(APPEND links ${l})
  endif()
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(l ${target} LINK_LIBRARIES)
    if(l)
      list(APPEND links ${l})
    endif()
  endif()
  list(TRANSFORM links REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1")
  set(${out} ${links} PARENT_SCOPE)
endfunction()
