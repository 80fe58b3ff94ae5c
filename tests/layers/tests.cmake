# Layer check (label `layers`): every #include under reference/ and harness/ against the table in
# harness/README.md (design.md §3), and proof that the check fails on an injected violation.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME layers.includes
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_layers.py --root ${PROJECT_SOURCE_DIR})
add_test(NAME layers.injected_violation
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/injected_violation_test.py ${PROJECT_SOURCE_DIR})
set_tests_properties(layers.includes layers.injected_violation PROPERTIES LABELS layers TIMEOUT 120)
