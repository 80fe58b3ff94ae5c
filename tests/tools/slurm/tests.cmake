# slurm.campaign_array (label `slurm`): a one-node Slurm cluster (own munged, slurmctld, slurmd in a
# temp folder; slurm_campaign_check.py) runs a defect-campaign subset as `sbatch --array=0-1`, one
# shard per task; `mrc-conform merge` of the shards must give the single-process campaign.json and
# campaign.html byte for byte (the command line and shard list are only in shard.json). Skipped
# (77) only when not root (CI runs as root). Serial: it times the array against the single run and
# starts daemons. The driver's own bounds (300 + 30 + 300 + 2 x 60 s) stay below TIMEOUT, so CTest
# never has to kill it (if it does, SIGKILL: the daemons' pdeathsig and guard.py still leave
# nothing running).
if(TARGET mrc-conform)
  # Six defects with many relevant cases each (seconds per run; campaign.fast runs them all).
  set(MRC_SLURM_DEFECTS "spray-single-ev,use-denied-ev,keep-failed-ev,sack-off-by-one,usid-reverse,sack-no-wrap")
  add_test(NAME slurm.campaign_array
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/slurm_campaign_check.py
                   --bin $<TARGET_FILE:mrc-conform> --cases ${PROJECT_SOURCE_DIR}/cases
                   --defects ${MRC_SLURM_DEFECTS} --relevant-only --jobs 1
                   --campaign-bound 300 --array-bound 300
                   --workdir ${PROJECT_BINARY_DIR}/slurm_campaign
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  # slurm.detects_difference: the same driver on two defects with tamper_merge.sh as mrc-conform,
  # whose merge flips one defect's verdict: the driver must fail and name that field.
  add_test(NAME slurm.detects_difference
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/slurm_campaign_check.py
                   --bin ${CMAKE_CURRENT_LIST_DIR}/tamper_merge.sh --cases ${PROJECT_SOURCE_DIR}/cases
                   --defects spray-single-ev,sack-no-wrap --relevant-only --jobs 1
                   --campaign-bound 300 --array-bound 300
                   --workdir ${PROJECT_BINARY_DIR}/slurm_detects_difference
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set(MRC_SLURM_FLIPPED "FAIL: the merged report differs from the single-process one:\n  ")
  string(APPEND MRC_SLURM_FLIPPED "campaign.json.defects\\[[0-9]+\\].caught: single-process true, merged false")
  set_tests_properties(slurm.detects_difference PROPERTIES
                       ENVIRONMENT "MRC_CONFORM_REAL=$<TARGET_FILE:mrc-conform>"
                       PASS_REGULAR_EXPRESSION "${MRC_SLURM_FLIPPED}")
  set_tests_properties(slurm.campaign_array slurm.detects_difference PROPERTIES LABELS slurm TIMEOUT 900
                       RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
else()
  message(WARNING "mrc-conform is not defined; slurm.campaign_array and slurm.detects_difference are not registered")
endif()
