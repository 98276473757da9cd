# Wings: one folder of src/ per layer, each a static library whose DEPENDS say which wings it may
# call. A wing compiles against an include "view" that holds the public headers of itself and its
# dependencies only (build/views/<wing>/rooftime/<dep> -> include/rooftime/<dep>), so including a
# header of a wing it does not depend on fails to compile: an arrow pointing the wrong way is a
# build error. tests/wing-boundaries.sh proves it for every such pair.

set(RT_WINGS "" CACHE INTERNAL "wings in dependency order")

# rt_wing(NAME [DEPENDS wing...] [LIBS target...] [INCLUDES dir...] [SOURCES file...])
function(rt_wing name)
  cmake_parse_arguments(W "" "" "DEPENDS;LIBS;INCLUDES;SOURCES" ${ARGN})
  set(closure ${name})
  foreach(d IN LISTS W_DEPENDS)
    if(NOT TARGET rt_${d})
      message(FATAL_ERROR "wing ${name} depends on ${d}, which is not declared before it")
    endif()
    get_property(dc GLOBAL PROPERTY RT_CLOSURE_${d})
    list(APPEND closure ${dc})
  endforeach()
  list(REMOVE_DUPLICATES closure)
  set_property(GLOBAL PROPERTY RT_CLOSURE_${name} ${closure})

  set(view ${CMAKE_BINARY_DIR}/views/${name})
  file(REMOVE_RECURSE ${view})
  file(MAKE_DIRECTORY ${view}/rooftime)
  foreach(d IN LISTS closure)
    if(EXISTS ${CMAKE_SOURCE_DIR}/include/rooftime/${d})
      file(CREATE_LINK ${CMAKE_SOURCE_DIR}/include/rooftime/${d} ${view}/rooftime/${d} SYMBOLIC)
    endif()
  endforeach()

  if(NOT W_SOURCES)
    # a wing may keep rooms of its own (src/import/ncu/ ...): their sources are the wing's too
    file(GLOB_RECURSE W_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${name}/*.c)
  endif()
  add_library(rt_${name} STATIC ${W_SOURCES})
  set_target_properties(rt_${name} PROPERTIES OUTPUT_NAME rooftime-${name})
  target_include_directories(rt_${name} PUBLIC ${view} ${RT_CONFIG_DIR}
                             PRIVATE ${CMAKE_SOURCE_DIR}/src/${name} ${W_INCLUDES})
  set(deps "")
  foreach(d IN LISTS W_DEPENDS)
    list(APPEND deps rt_${d})
  endforeach()
  target_link_libraries(rt_${name} PUBLIC ${deps} ${W_LIBS})
  set(RT_WINGS ${RT_WINGS} ${name} CACHE INTERNAL "wings in dependency order")
endfunction()

# Every (wing, other wing outside its closure) pair, written to wing-boundaries.txt as
# "wing other header" lines, each with an object target that includes that header from the wing;
# building any of them must fail.
function(rt_wing_boundaries)
  set(out "")
  foreach(w IN LISTS RT_WINGS)
    get_property(closure GLOBAL PROPERTY RT_CLOSURE_${w})
    foreach(o IN LISTS RT_WINGS)
      list(FIND closure ${o} found)
      if(found GREATER -1)
        continue()
      endif()
      file(GLOB hs RELATIVE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/include/rooftime/${o}/*.h)
      list(GET hs 0 h)
      set(src ${CMAKE_BINARY_DIR}/boundaries/${w}-includes-${o}.c)
      file(WRITE ${src} "/* Generated: wing ${w} must not see wing ${o}. */\n#include \"${h}\"\nint rt_boundary_probe_${w}_${o};\n")
      add_library(boundary_${w}_${o} OBJECT EXCLUDE_FROM_ALL ${src})
      target_link_libraries(boundary_${w}_${o} PRIVATE rt_${w})
      string(APPEND out "${w} ${o} ${h}\n")
    endforeach()
    # and a control: the wing's own header compiles
    file(GLOB hs RELATIVE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/include/rooftime/${w}/*.h)
    list(GET hs 0 h)
    set(src ${CMAKE_BINARY_DIR}/boundaries/${w}-includes-${w}.c)
    file(WRITE ${src} "/* Generated: wing ${w} sees its own headers. */\n#include \"${h}\"\nint rt_boundary_probe_${w}_${w};\n")
    add_library(boundary_${w}_${w} OBJECT EXCLUDE_FROM_ALL ${src})
    target_link_libraries(boundary_${w}_${w} PRIVATE rt_${w})
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/wing-boundaries.txt "${out}")
endfunction()
