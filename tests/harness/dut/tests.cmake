# The plugin binding's test plugins: faulty_plugin.c wraps the reference plugin and misbehaves on
# the case its ARGS name; built again with ABI version 0, which the binding must refuse.
foreach(variant faulty old_abi)
  set(target mrc_test_plugin_${variant})
  add_library(${target} MODULE ${CMAKE_CURRENT_LIST_DIR}/plugins/faulty_plugin.c)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${target} PRIVATE -Wall -Wextra $<$<BOOL:${MRC_WERROR}>:-Werror>)
  target_compile_definitions(${target} PRIVATE MRC_INNER_PLUGIN="$<TARGET_FILE:mrc_reference_plugin>")
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib C_STANDARD 99)
  add_dependencies(${target} mrc_reference_plugin)
endforeach()
target_compile_definitions(mrc_test_plugin_old_abi PRIVATE MRC_TEST_ABI_VERSION=0)

if(TARGET harness_tests)
  add_dependencies(harness_tests mrc_reference_plugin mrc_test_plugin_faulty mrc_test_plugin_old_abi)
  target_compile_definitions(harness_tests PRIVATE
                             MRC_REFERENCE_PLUGIN="$<TARGET_FILE:mrc_reference_plugin>"
                             MRC_FAULTY_PLUGIN="$<TARGET_FILE:mrc_test_plugin_faulty>"
                             MRC_OLD_ABI_PLUGIN="$<TARGET_FILE:mrc_test_plugin_old_abi>")
endif()

# plugin.identity: the whole library through the reference plugin gives the in-process reference's
# results.json cases byte for byte, and the same evidence; a model that aborts, crashes or breaks
# is an ERROR of its case while the next case PASSes (tests/harness/dut/plugin_identity.py).
if(TARGET mrc-conform)
  add_test(NAME plugin.identity
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/plugin_identity.py $<TARGET_FILE:mrc-conform>
                   ${PROJECT_SOURCE_DIR} $<TARGET_FILE:mrc_reference_plugin> $<TARGET_FILE:mrc_test_plugin_faulty>)
  set_tests_properties(plugin.identity PROPERTIES LABELS harness TIMEOUT 1200 PROCESSORS 2)
endif()

# lockstep.identity: the whole library through a lockstep agent (mrc-dut-agent --clock virtual)
# gives the in-process reference's results.json cases and captures byte for byte; the plugin
# backend, a defect behind the agent, a clock mismatch and an agent's death
# (tests/harness/dut/lockstep_identity.py).
if(TARGET mrc-conform AND TARGET mrc-dut-agent)
  add_test(NAME lockstep.identity
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/lockstep_identity.py $<TARGET_FILE:mrc-conform>
                   $<TARGET_FILE:mrc-dut-agent> ${PROJECT_SOURCE_DIR} $<TARGET_FILE:mrc_reference_plugin>)
  set_tests_properties(lockstep.identity PROPERTIES LABELS "harness;agent" TIMEOUT 1200 PROCESSORS 2)
endif()
