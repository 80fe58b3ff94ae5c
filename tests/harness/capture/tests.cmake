# The plain RoCEv2 capture test (plain_roce_test.cpp) builds its capture with the cross-validation
# frame factory and pcap writer (tests/cross/tests.cmake, included before this fragment).
if(TARGET harness_tests AND TARGET mrc_cross_frames)
  target_link_libraries(harness_tests PRIVATE mrc_cross_frames)
endif()
