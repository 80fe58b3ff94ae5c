# badinput.catalog (label `badinput`): every entry of tests/badinput/*.yaml and every malformed case
# file of tests/harness/case/malformed runs through the built binaries and must end in the clear
# error or the true report its entry says (tests/badinput/README.md); the catalog must keep at least
# 150 entries. Entries that mount a tmpfs (disk full) need root and are skipped, with the reason,
# without it.
if(TARGET mrc-conform AND TARGET mrc-ev AND TARGET mrc-dut-agent)
  add_test(NAME badinput.catalog
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/run_catalog.py
                   --catalog ${PROJECT_SOURCE_DIR}/tests/badinput
                   --malformed ${PROJECT_SOURCE_DIR}/tests/harness/case/malformed
                   --bin $<TARGET_FILE_DIR:mrc-conform> --src ${PROJECT_SOURCE_DIR}
                   --min-entries 150 --jobs 2)
  # Signal entries time their signals; they run one at a time after the rest, but a loaded
  # machine must not run other tests beside them.
  set_tests_properties(badinput.catalog PROPERTIES LABELS badinput TIMEOUT 900 RUN_SERIAL TRUE)
else()
  message(WARNING "mrc-conform, mrc-ev or mrc-dut-agent is not defined; badinput.catalog is not registered")
endif()
# badinput.selftest: the runner's checks bite (selftest/bites.yaml breaks each rule once; every entry
# must FAIL with its reason).
add_test(NAME badinput.selftest
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/selftest.py /nonexistent ${PROJECT_SOURCE_DIR})
set_tests_properties(badinput.selftest PROPERTIES LABELS badinput TIMEOUT 120)
