# The runner library (harness/run) and the mrc-conform binary for the CLI tests: the harness test
# executable links mrc_run, and the Ctrl-C test starts the real binary as a child process.
if(TARGET harness_tests AND TARGET mrc_run)
  target_link_libraries(harness_tests PRIVATE mrc_run)
  if(TARGET mrc-conform)
    add_dependencies(harness_tests mrc-conform)
    target_compile_definitions(harness_tests PRIVATE MRC_CONFORM_BIN="$<TARGET_FILE:mrc-conform>")
  endif()
endif()
