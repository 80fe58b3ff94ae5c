#!/bin/sh
# slurm.detects_difference: stands in for mrc-conform ($MRC_CONFORM_REAL) in
# slurm_campaign_check.py, except that `merge` flips the first caught defect of the campaign.json
# it wrote (sed on the first '"caught": true'). The driver must then fail, naming that field.
"$MRC_CONFORM_REAL" "$@"
rc=$?
if [ "$1" = merge ] && [ "$rc" -eq 0 ]; then
  for out; do :; done  # the last argument: the -o folder
  sed -i '0,/"caught": true/s//"caught": false/' "$out/campaign.json" || exit 3
fi
exit "$rc"
