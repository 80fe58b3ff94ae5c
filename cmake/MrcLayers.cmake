# Helpers that keep each layer's CMake to one line: sources are globbed per folder, so adding a
# file to a layer needs no CMake edit.

set(MRC_WARNINGS -Wall -Wextra)
if(MRC_WERROR)
  list(APPEND MRC_WARNINGS -Werror)
endif()

add_library(mrc_options INTERFACE)
target_compile_options(mrc_options INTERFACE ${MRC_WARNINGS})
target_include_directories(mrc_options INTERFACE ${PROJECT_SOURCE_DIR})
if(MRC_SANITIZE)
  target_compile_options(mrc_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                               -fno-sanitize-recover=undefined)
  target_link_options(mrc_options INTERFACE -fsanitize=address,undefined)
endif()
if(MRC_FUZZ)
  # Every library gets coverage instrumentation so libFuzzer can see into it.
  target_compile_options(mrc_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined)
  target_link_options(mrc_options INTERFACE -fsanitize=address,undefined)
endif()

# mrc_add_layer(<target> <dir> [EXCLUDE files...] [DEPS targets...])
# One library per layer folder, from every *.cpp directly in <dir> (not subfolders) but the
# EXCLUDE'd file names (the folder's program entry points, main.cpp and the like).
function(mrc_add_layer target dir)
  cmake_parse_arguments(ARG "" "" "DEPS;EXCLUDE" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  foreach(name ${ARG_EXCLUDE})
    list(REMOVE_ITEM srcs ${dir}/${name})
  endforeach()
  if(srcs)
    add_library(${target} STATIC ${srcs})
    target_link_libraries(${target} PUBLIC mrc_options ${ARG_DEPS})
  else()
    add_library(${target} INTERFACE)
    target_link_libraries(${target} INTERFACE mrc_options ${ARG_DEPS})
  endif()
endfunction()

# mrc_add_tests(<label> DIRS <dir>... [LIBS targets...])
# One GoogleTest executable per label from every *_test.cpp under tests/<dir> (recursively),
# each test carrying the CTest label <label>.
function(mrc_add_tests label)
  cmake_parse_arguments(ARG "SERIAL" "" "DIRS;LIBS" ${ARGN})
  set(srcs)
  foreach(dir ${ARG_DIRS})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${dir}/*_test.cpp)
    list(APPEND srcs ${found})
  endforeach()
  if(NOT srcs)
    return()
  endif()
  set(exe ${label}_tests)
  add_executable(${exe} ${srcs})
  target_link_libraries(${exe} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${exe} PRIVATE MRC_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                            MRC_BINARY_DIR="${PROJECT_BINARY_DIR}")
  # SERIAL: tests that pace to real time run alone (no other test competes for the 2 cores).
  set(serial FALSE)
  if(ARG_SERIAL)
    set(serial TRUE)
  endif()
  gtest_discover_tests(${exe} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
                       WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                       PROPERTIES LABELS ${label} TIMEOUT 600 RUN_SERIAL ${serial})
endfunction()
