# diff.plain_roce (label `harness`): `mrc-conform diff F F` on a plain RoCEv2 capture made now by
# mrc_cross_gen --profile roce decodes each frame field-level and says IDENTICAL; a copy with one
# PSN bit flipped is reported as bth.psn at that frame's index. diff.real_roce: the same on the
# real captures (tests/tools/real_captures.py); skipped when there are none.
if(TARGET mrc-conform AND TARGET mrc_cross_gen)
  set(MRC_DIFF_PLAIN_DIR ${PROJECT_BINARY_DIR}/diff_plain_roce)
  add_test(NAME diff.plain_roce
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/plain_roce_check.py
                   --bin $<TARGET_FILE:mrc-conform> --gen $<TARGET_FILE:mrc_cross_gen>
                   --workdir ${MRC_DIFF_PLAIN_DIR})
  add_test(NAME diff.real_roce
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/plain_roce_check.py
                   --bin $<TARGET_FILE:mrc-conform> --real --workdir ${MRC_DIFF_PLAIN_DIR})
  set_tests_properties(diff.plain_roce diff.real_roce
                       PROPERTIES LABELS harness TIMEOUT 120 SKIP_RETURN_CODE 77)
else()
  message(WARNING "mrc-conform or mrc_cross_gen is not defined; diff.*_roce tests are not registered")
endif()
