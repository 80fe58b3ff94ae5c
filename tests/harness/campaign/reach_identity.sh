#!/bin/sh
# campaign.reach: the whole campaign (every case, every catalog defect) twice: by default, where a
# case whose clean run never read a defect's switch takes the clean result (reference/quirk/), and
# with --run-all, which makes those runs and exits 1 on any that differs (a reach error). The two
# campaign.json and campaign.html must be the same to the byte.
# Usage: reach_identity.sh MRC_CONFORM SOURCE_DIR OUT_DIR
set -eu
bin=$1
src=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
cd "$src"
"$bin" campaign --cases "$src/cases" --jobs 2 --no-progress --out "$out/default" > "$out/default.txt"
"$bin" campaign --cases "$src/cases" --jobs 2 --no-progress --run-all --out "$out/all" > "$out/all.txt" || {
  echo "campaign --run-all failed:" >&2
  grep -E 'REACH ERROR|kill rate' "$out/all.txt" >&2
  exit 1
}
grep -q 'not made' "$out/default.txt" || { echo "the default campaign skipped no run" >&2; exit 1; }
grep 'not made' "$out/default.txt"
for f in campaign.json campaign.html; do
  cmp "$out/default/$f" "$out/all/$f" || { echo "$f differs between the default campaign and --run-all" >&2; exit 1; }
done
echo "campaign.reach: the default campaign and --run-all agree to the byte"
