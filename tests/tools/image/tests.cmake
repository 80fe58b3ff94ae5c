# image.lab (label `image`): the lab image built from docker/Dockerfile on a debootstrap base (no
# registry here) with scripts/install-deps, as CI installs; its binaries, `mrc-conform run --tags
# smoke`, and docker/compose.yaml's agent + harness running the wirelab subset, all in podman
# (tests/tools/image/image_check.py; docker/README.md says what runs on this lab's machines). Needs
# root (skipped without it); the debootstrap tarball is cached in the build tree (image-test/).
# Serial: it compiles the image's binaries on every core and runs real-time cases.
add_test(NAME image.lab
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/image_check.py
                 --src ${PROJECT_SOURCE_DIR} --workdir ${PROJECT_BINARY_DIR}/image-test
                 --wire-cases ${PROJECT_SOURCE_DIR}/tests/harness/wirelab/wire_cases.hpp)
set_tests_properties(image.lab PROPERTIES LABELS image TIMEOUT 4200 RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
