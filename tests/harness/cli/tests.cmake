# The Ctrl-C test starts the real mrc-conform binary as a child process: build it first.
if(TARGET harness_tests AND TARGET mrc-conform)
  add_dependencies(harness_tests mrc-conform)
  target_compile_definitions(harness_tests PRIVATE MRC_CONFORM_BIN="$<TARGET_FILE:mrc-conform>")
endif()
