# mrc-ev end to end: the worked-example profiles expand to the pinned bytes; invalid profiles fail
# with file:line:col, errno and the rule broken.
if(TARGET mrc-ev)
  add_test(NAME ev.mrc_ev_examples
           COMMAND ${CMAKE_COMMAND} -DMRC_EV=$<TARGET_FILE:mrc-ev>
                   -DPROFILES=${CMAKE_CURRENT_LIST_DIR}/profiles
                   -P ${CMAKE_CURRENT_LIST_DIR}/check_mrc_ev.cmake)
  set_tests_properties(ev.mrc_ev_examples PROPERTIES LABELS reference TIMEOUT 120)
endif()
