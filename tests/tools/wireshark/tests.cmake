# dissector.mrc_lua (label `cross`): tools/wireshark/mrc.lua under tshark decodes every kind of
# MRC 1.0 frame written by mrc_cross_gen to the generator's values, with no expert error, also at a
# snap length, and registers no field of the retired model (mrc.mfeh.*, mrc.ep.* but mrc.ep.id)
# (tests/cross/tests.cmake defines mrc_cross_gen; that fragment is included first, as fragments
# are included in path order).
if(TARGET mrc_cross_gen)
  set(MRC_CROSS_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with scapy (Debian's, not pyenv's)")
  set(MRC_DISSECTOR_DIR ${PROJECT_BINARY_DIR}/dissector)
  file(MAKE_DIRECTORY ${MRC_DISSECTOR_DIR})
  add_test(NAME dissector.mrc_lua
           COMMAND ${MRC_CROSS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/lua_check.py
                   --gen $<TARGET_FILE:mrc_cross_gen> --count 1200 --seed 21
                   --workdir ${MRC_DISSECTOR_DIR})
  set_tests_properties(dissector.mrc_lua PROPERTIES LABELS cross TIMEOUT 600)
else()
  message(WARNING "mrc_cross_gen is not defined; dissector.mrc_lua is not registered")
endif()

# dissector.plain_roce (label `cross`): with mrc.lua loaded, Wireshark's InfiniBand dissector still
# decodes every frame of a plain RoCEv2 capture made now by mrc_cross_gen --profile roce (CM MADs,
# WRITE, READ, SEND with immediate, 62-byte ACKs, UDP source port 69), and no MRC error shows,
# also in a copy at snap length 60.
# dissector.real_roce: the same on the real captures (tests/tools/real_captures.py: ../shared/roce-captures
# and $MRC_REAL_CAPTURES); skipped when there are none.
if(TARGET mrc_cross_gen)
  set(MRC_PLAIN_DIR ${PROJECT_BINARY_DIR}/dissector_plain)
  add_test(NAME dissector.plain_roce
           COMMAND ${MRC_CROSS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/plain_check.py
                   --gen $<TARGET_FILE:mrc_cross_gen> --workdir ${MRC_PLAIN_DIR})
  add_test(NAME dissector.real_roce
           COMMAND ${MRC_CROSS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/plain_check.py --real
                   --workdir ${MRC_PLAIN_DIR})
  set_tests_properties(dissector.plain_roce dissector.real_roce
                       PROPERTIES LABELS cross TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()

# dissector.evidence (label `cross`): tshark reads a case's evidence file from `mrc-conform run`
# (evidence/<case-id>.pcapng): every interface by name, the frame count the sum of the taps, and
# with mrc.lua no error on a frame the snap length cut.
if(TARGET mrc-conform)
  add_test(NAME dissector.evidence
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/evidence_check.py
                   --mrc-conform $<TARGET_FILE:mrc-conform> --case ${PROJECT_SOURCE_DIR}/cases/spray/spray-v-001.yaml
                   --workdir ${PROJECT_BINARY_DIR})
  set_tests_properties(dissector.evidence PROPERTIES LABELS cross TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()

# dissector.mrc_w_vectors (label `cross`): mrc.lua decodes the MRC 1.0 layouts of
# mrc-wire-model.md section 5 (W1-W19): the W19 vectors V1-V6 in whole frames, one frame of each
# MRC 1.0 opcode with random fields, trimmed data packets (DSCP 11/13, stale UDP length), a capture
# with snap length 96, the unknown opcodes 0xC0, 0xC1, 0xE0; values, (MODEL Wn)/(S1 Wn) labels and
# expert items. The script builds its frames itself, so this test needs no project binary.
add_test(NAME dissector.mrc_w_vectors
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/w_vectors_check.py
                 --workdir ${PROJECT_BINARY_DIR}/dissector_w)
set_tests_properties(dissector.mrc_w_vectors PROPERTIES LABELS cross TIMEOUT 300)
