# The Python responder model (tools/models/py_responder): codec and socket tests, then every
# responder case run against it in lockstep, verdicts compared with its expected_verdicts.json.
# Needs only python3 (standard library) and the mrc-conform binary of this build.
if(TARGET mrc-conform)
  add_test(NAME py_responder.cases
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/py_responder_test.py
                   --build ${CMAKE_BINARY_DIR} --source ${PROJECT_SOURCE_DIR})
  set_tests_properties(py_responder.cases PROPERTIES LABELS "harness;agent" TIMEOUT 600 PROCESSORS 2)
endif()
