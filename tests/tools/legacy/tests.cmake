# legacy.absent (label `wire`): no code, case, script or dissector of the product tree names the
# project's older wire model (MFEH, the 0xC0/0xC1 endpoint header, the AETH TRIM syndrome, "MRC
# framing" of RC opcodes), and every golden frame, decoded by Wireshark's own InfiniBand
# dissector, carries an MRC 1.0 opcode (W3). legacy.absent_self_test shows the scan failing on a
# tree that holds a legacy token.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME legacy.absent
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/legacy_absent_check.py --root ${PROJECT_SOURCE_DIR})
add_test(NAME legacy.absent_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/legacy_absent_check.py --self-test)
set_tests_properties(legacy.absent legacy.absent_self_test PROPERTIES LABELS wire TIMEOUT 300)
