# Cross-validation against decoders nobody here wrote (label `cross`): the project encodes
# random frames into a pcap with mrc_cross_gen (MRC 1.0 frames by default, plain RoCEv2 with
# --profile roce), then scapy and tshark decode them.
find_package(nlohmann_json 3 REQUIRED)

# The frame factories and the pcap writer, also linked by tests that build captures at test time
# (tests/harness/capture/tests.cmake).
add_library(mrc_cross_frames STATIC ${CMAKE_CURRENT_LIST_DIR}/cross_frames.cpp
                                    ${CMAKE_CURRENT_LIST_DIR}/roce_frames.cpp
                                    ${CMAKE_CURRENT_LIST_DIR}/frame_finish.cpp
                                    ${CMAKE_CURRENT_LIST_DIR}/pcap_writer.cpp)
target_link_libraries(mrc_cross_frames PUBLIC mrc_wire nlohmann_json::nlohmann_json)

add_executable(mrc_cross_gen ${CMAKE_CURRENT_LIST_DIR}/cross_gen.cpp)
target_link_libraries(mrc_cross_gen PRIVATE mrc_cross_frames)

set(MRC_CROSS_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with scapy (Debian's, not pyenv's)")
set(MRC_CROSS_DIR ${PROJECT_BINARY_DIR}/cross)
file(MAKE_DIRECTORY ${MRC_CROSS_DIR})

# cross.scapy_icrc_bth: scapy.contrib.roce decodes BTH (+AETH) of every MRC 1.0 and plain RoCEv2
# frame and recomputes the ICRC (scapy's own for IPv4, scapy's layout + zlib for IPv6); every MRC
# opcode is a W3 one; trimmed packets show fixed IP and stale UDP lengths.
add_test(NAME cross.scapy_icrc_bth
         COMMAND ${MRC_CROSS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/scapy_check.py
                 --gen $<TARGET_FILE:mrc_cross_gen> --count 2000 --seed 11
                 --workdir ${MRC_CROSS_DIR})
# cross.tshark_rroce: Wireshark's infiniband (RRoCE on UDP 4791) dissector decodes the BTH of MRC
# 1.0 frames over IPv4, IPv6 and SRv6 (every opcode a W3 one; the raw bytes after the BTH as long
# as the W3-W10 headers say, ending with the ICRC), and BTH, RETH, ImmDt, AETH and ICRC of plain
# RoCEv2 frames.
add_test(NAME cross.tshark_rroce
         COMMAND ${MRC_CROSS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/tshark_check.py
                 --gen $<TARGET_FILE:mrc_cross_gen> --count 2000 --seed 12
                 --workdir ${MRC_CROSS_DIR})
set_tests_properties(cross.scapy_icrc_bth cross.tshark_rroce PROPERTIES LABELS cross TIMEOUT 600)
