# slurm.campaign_array (label `slurm`): a one-node Slurm cluster (own munged, slurmctld, slurmd in a
# temp folder; slurm_campaign_check.py) runs a defect-campaign subset as `sbatch --array=0-1`, one
# shard per task; `mrc-conform merge` of the shards must equal the single-process report but for
# the command line and shard list. Skipped (77) only when not root (CI runs as root). Serial: it
# times the array against the single run and starts daemons. The driver's own bounds (300 + 30 +
# 300 + 2 x 60 s) stay below TIMEOUT, so CTest never has to kill it (if it does, SIGKILL: the
# daemons' pdeathsig and guard.py still leave nothing running).
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
  set_tests_properties(slurm.campaign_array PROPERTIES LABELS slurm TIMEOUT 900 RUN_SERIAL TRUE
                       SKIP_RETURN_CODE 77)
else()
  message(WARNING "mrc-conform is not defined; slurm.campaign_array is not registered")
endif()
