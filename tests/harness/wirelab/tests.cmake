# The wirelab suite starts bin/mrc-dut-agent inside a network namespace: build it first.
if(TARGET wirelab_tests AND TARGET mrc-dut-agent)
  add_dependencies(wirelab_tests mrc-dut-agent)
endif()
