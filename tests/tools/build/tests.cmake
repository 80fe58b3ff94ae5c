# build.git_revision (label `harness`): `mrc-conform --version` names the checkout's revision as git
# sees it now (with -dirty for edited tracked files), so results and golden manifests of a rebuilt
# binary never carry the revision of an earlier configure. Skipped outside a git checkout.
if(TARGET mrc-conform)
  add_test(NAME build.git_revision
           COMMAND /bin/sh -c "cd '${PROJECT_SOURCE_DIR}' && git rev-parse --short=12 HEAD >/dev/null 2>&1 || exit 77; \
want=$(git rev-parse --short=12 HEAD)$(git status --porcelain --untracked-files=no | grep -q . && echo -dirty); \
got=$('$<TARGET_FILE:mrc-conform>' --version); \
case \"$got\" in *\"($want)\"*) echo \"ok: $got\" ;; *) echo \"mrc-conform --version says '$got', the checkout is $want\"; exit 1 ;; esac")
  set_tests_properties(build.git_revision PROPERTIES LABELS harness SKIP_RETURN_CODE 77 TIMEOUT 30)
endif()
