# The wirelab suite starts bin/mrc-dut-agent inside a network namespace, and bin/mrc-conform
# (doctor): build them first.
if(TARGET wirelab_tests AND TARGET mrc-dut-agent)
  add_dependencies(wirelab_tests mrc-dut-agent)
endif()
if(TARGET wirelab_tests AND TARGET mrc-conform)
  add_dependencies(wirelab_tests mrc-conform)
endif()
