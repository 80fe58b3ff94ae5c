# k8s.manifest: docker/k8s/ (the Indexed Job of a sharded campaign and its merge Job) checked
# without a cluster, and their commands run with the built binary (tests/docker/k8s_manifest_check.py).
if(TARGET mrc-conform)
  add_test(NAME k8s.manifest
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/k8s_manifest_check.py ${PROJECT_SOURCE_DIR}
                   $<TARGET_FILE_DIR:mrc-conform>)
  set_tests_properties(k8s.manifest PROPERTIES LABELS harness TIMEOUT 600)
endif()
