# Layer check (label `layers`): every #include under reference/ and harness/ against the table in
# harness/README.md (design.md §3), and proof that the check fails on an injected violation.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME layers.includes
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_layers.py --root ${PROJECT_SOURCE_DIR})
add_test(NAME layers.injected_violation
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/injected_violation_test.py ${PROJECT_SOURCE_DIR})
# layers.file_size: no source file in reference/ or harness/ over 500 lines; and the check fails on
# a folder that has one (tests/layers/testdata holds a 501-line file).
add_test(NAME layers.file_size
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_file_size.py --root ${PROJECT_SOURCE_DIR})
add_test(NAME layers.file_size_catches
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_file_size.py --root ${PROJECT_SOURCE_DIR}
                 --dir tests/layers/testdata --expect-over 1)
set_tests_properties(layers.includes layers.injected_violation layers.file_size layers.file_size_catches
                     PROPERTIES LABELS layers TIMEOUT 120)
