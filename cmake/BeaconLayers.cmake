# The layering of beacon's libraries, enforced by the compiler.
#
# No target sees the source tree as a whole. Each library gets an include
# root of its own in the build tree, holding one symbolic link named like
# its source directory (build/include/beacon_proto/proto -> <src>/proto),
# and exports that root to whoever links it. A file therefore includes
# "proto/record.h" only if its target links beacon_proto, directly or
# through a library above it: a lower library that includes a higher
# one's header does not compile. The layers, lowest first:
#
#   beacon_base       common/               buffers, errors, log, clock,
#                                           UTF-8, time, config, hostlist, text
#   beacon_proto      proto/                record model, frame codec, auth
#   beacon_delivery   delivery/             protocol session, sender, shard map
#   beacon_collector  collectors/runtime/   collector loop, counters, follow
#   collectors, store, logsrv, sim, web, cli (each above what it links)

# bcn_include_root(TARGET DIR...): makes "DIR/<file>.h" includable by
# TARGET's sources and, for a library, by every target that links it.
function(bcn_include_root target)
  set(root ${CMAKE_BINARY_DIR}/include/${target})
  foreach(dir ${ARGN})
    set(link ${root}/${dir})
    get_filename_component(parent ${link} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    if(NOT EXISTS ${link})
      file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${dir} ${link} SYMBOLIC)
    endif()
  endforeach()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE" OR type STREQUAL "SHARED_LIBRARY")
    target_include_directories(${target} PRIVATE ${root})
  else()
    target_include_directories(${target} PUBLIC ${root})
  endif()
endfunction()

# bcn_library(NAME DIR [LINK lib...]): a static library of DIR's sources
# (all *.c but main.c, or those given with SOURCES), position independent,
# exposing DIR as its include root, linked PUBLIC to the LINK libraries, and
# recorded in the global property BCN_LIBS (tests and fuzz targets link
# them all).
function(bcn_library name dir)
  cmake_parse_arguments(L "" "" "SOURCES;LINK" ${ARGN})
  if(L_SOURCES)
    set(srcs ${L_SOURCES})
  else()
    file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*.c)
    list(FILTER srcs EXCLUDE REGEX "/main\\.c$")
  endif()
  add_library(${name} STATIC ${srcs})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  bcn_include_root(${name} ${dir})
  if(L_LINK)
    target_link_libraries(${name} PUBLIC ${L_LINK})
  endif()
  set_property(GLOBAL APPEND PROPERTY BCN_LIBS ${name})
endfunction()
