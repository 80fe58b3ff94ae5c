# The Ctrl-C test starts the real mrc-conform binary as a child process: build it first.
if(TARGET harness_tests AND TARGET mrc-conform)
  add_dependencies(harness_tests mrc-conform)
  target_compile_definitions(harness_tests PRIVATE MRC_CONFORM_BIN="$<TARGET_FILE:mrc-conform>")
endif()
# replay.roundtrip: run -> keygen -> bundle -> verify -> replay with the real binary, and a verdict
# edited to PASS and re-signed that replay catches (harness/run/replay.hpp).
if(TARGET mrc-conform)
  add_test(NAME replay.roundtrip
           COMMAND /bin/sh ${CMAKE_CURRENT_LIST_DIR}/replay_roundtrip.sh $<TARGET_FILE:mrc-conform> ${PROJECT_SOURCE_DIR}
                   ${PROJECT_BINARY_DIR}/replay_roundtrip)
  set_tests_properties(replay.roundtrip PROPERTIES LABELS harness TIMEOUT 600 PROCESSORS 2)
endif()
