# The Ctrl-C test starts the real mrc-conform binary as a child process: build it first.
if(TARGET harness_tests AND TARGET mrc-conform)
  add_dependencies(harness_tests mrc-conform)
  target_compile_definitions(harness_tests PRIVATE MRC_CONFORM_BIN="$<TARGET_FILE:mrc-conform>")
endif()
# replay.roundtrip: run -> keygen -> bundle -> verify -> replay with the real binary, and a verdict
# edited to PASS and re-signed that replay catches (harness/certify/replay.hpp).
if(TARGET mrc-conform)
  add_test(NAME replay.roundtrip
           COMMAND /bin/sh ${CMAKE_CURRENT_LIST_DIR}/replay_roundtrip.sh $<TARGET_FILE:mrc-conform> ${PROJECT_SOURCE_DIR}
                   ${PROJECT_BINARY_DIR}/replay_roundtrip)
  set_tests_properties(replay.roundtrip PROPERTIES LABELS harness TIMEOUT 600 PROCESSORS 2)
endif()

# shard.identity: run, campaign, variants and falsefail in 2, 3 (run: 4) shards + `merge` give the
# single-process reports byte for byte but the command line (tests/harness/cli/shard_identity.py),
# the whole library once for run. About a minute of a loaded 2-core machine.
if(TARGET mrc-conform)
  add_test(NAME shard.identity
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/shard_identity.py $<TARGET_FILE_DIR:mrc-conform>
                   ${PROJECT_SOURCE_DIR} --full)
  set_tests_properties(shard.identity PROPERTIES LABELS harness TIMEOUT 900)
endif()
