# libFuzzer suite (label `fuzz`), built only with MRC_FUZZ=ON (preset `fuzz`, clang). The wire
# library is already compiled with -fsanitize=fuzzer-no-link,address,undefined (MrcLayers.cmake);
# the target adds the libFuzzer driver.
if(NOT MRC_FUZZ)
  return()
endif()

add_executable(fuzz_frame_decoder ${CMAKE_CURRENT_LIST_DIR}/fuzz_frame_decoder.cpp)
target_link_libraries(fuzz_frame_decoder PRIVATE mrc_wire)
target_link_options(fuzz_frame_decoder PRIVATE -fsanitize=fuzzer,address,undefined)
# Every fuzz target, so scripts/test builds them all with one name.
add_custom_target(fuzz_targets)
add_dependencies(fuzz_targets fuzz_frame_decoder)

# Regenerates the checked-in seed corpus (not run by any test):
#   fuzz_seed_corpus_gen tests/fuzz/corpus
add_executable(fuzz_seed_corpus_gen ${CMAKE_CURRENT_LIST_DIR}/seed_corpus_gen.cpp)
target_link_libraries(fuzz_seed_corpus_gen PRIVATE mrc_wire)

# New inputs go to the scratch corpus (first directory); the checked-in seeds (second) are only
# read. A bounded run: -runs caps the executions, -max_total_time caps the wall clock.
set(MRC_FUZZ_SCRATCH ${PROJECT_BINARY_DIR}/fuzz/frame_decoder_corpus)
file(MAKE_DIRECTORY ${MRC_FUZZ_SCRATCH})
add_test(NAME fuzz.frame_decoder
         COMMAND fuzz_frame_decoder ${MRC_FUZZ_SCRATCH} ${CMAKE_CURRENT_LIST_DIR}/corpus
                 -runs=1000000 -max_len=9100 -max_total_time=150 -seed=1
                 -print_final_stats=1)
set_tests_properties(fuzz.frame_decoder PROPERTIES LABELS fuzz TIMEOUT 240)

# Agent control protocol (harness/dut/agent-protocol.md): codec + session on arbitrary bytes.
# Seeds: tests/fuzz/agent_corpus (one encoded message of every type; kept current by the agent
# suite's AgentCodec.FuzzSeedCorpusIsCurrent test).
add_executable(fuzz_agent_protocol ${CMAKE_CURRENT_LIST_DIR}/fuzz_agent_protocol.cpp)
target_link_libraries(fuzz_agent_protocol PRIVATE mrc_agent_core mrc_agentproto)
target_link_options(fuzz_agent_protocol PRIVATE -fsanitize=fuzzer,address,undefined)
add_dependencies(fuzz_targets fuzz_agent_protocol)
set(MRC_FUZZ_AGENT_SCRATCH ${PROJECT_BINARY_DIR}/fuzz/agent_protocol_corpus)
file(MAKE_DIRECTORY ${MRC_FUZZ_AGENT_SCRATCH})
add_test(NAME fuzz.agent_protocol
         COMMAND fuzz_agent_protocol ${MRC_FUZZ_AGENT_SCRATCH} ${CMAKE_CURRENT_LIST_DIR}/agent_corpus
                 -runs=500000 -max_len=4096 -max_total_time=120 -seed=1 -print_final_stats=1)
set_tests_properties(fuzz.agent_protocol PROPERTIES LABELS fuzz TIMEOUT 200)
