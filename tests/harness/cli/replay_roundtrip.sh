#!/bin/sh
# replay.roundtrip (CTest): the certifier's path with the real binary on a real run: run the whole
# library -> keygen -> bundle -> verify -> replay (exit 0, 0 changed); then a defect DUT's run whose
# results.json is edited to PASS and re-signed with the same key: verify passes, replay exits 1
# naming the case and PASS -> FAIL.
# Usage: replay_roundtrip.sh MRC_CONFORM SOURCE_DIR WORK_DIR
set -u
bin=$1 src=$2 work=$3
fail() { echo "replay.roundtrip: $*" >&2; exit 1; }
expect_rc() {  # expect_rc WANT WHAT CMD...: runs CMD, output to $work/last.out/.err
  want=$1 what=$2; shift 2
  "$@" >"$work/last.out" 2>"$work/last.err"; rc=$?
  [ "$rc" -eq "$want" ] || { cat "$work/last.out" "$work/last.err" >&2; fail "$what: exit $rc, expected $want"; }
}
rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
cases="$src/cases"

expect_rc 0 "run (clean reference)" "$bin" run --cases "$cases" --jobs 2 --no-progress --out "$work/R"
expect_rc 0 keygen "$bin" keygen -o "$work/k"
expect_rc 0 bundle "$bin" bundle "$work/R" -o "$work/b.mrcb" --key "$work/k" --cases "$cases"
expect_rc 0 verify "$bin" verify "$work/b.mrcb" --pubkey "$work/k.pub" --cases "$cases"
expect_rc 0 replay "$bin" replay "$work/b.mrcb" --pubkey "$work/k.pub" --cases "$cases"
tail -n 1 "$work/last.out" | grep -Eq '^replay: [1-9][0-9]* re-judged, [1-9][0-9]* unchanged, 0 changed, [0-9]+ not re-judged$' ||
  fail "replay of the clean run: last line '$(tail -n 1 "$work/last.out")'"

expect_rc 1 "run (defect DUT)" "$bin" run --cases "$cases/spray/spray-v-001.yaml" --dut reference:spray-single-ev \
  --no-progress --out "$work/D"
sed -i 's/"verdict": "FAIL"/"verdict": "PASS"/g' "$work/D/results.json"
expect_rc 0 "bundle (edited)" "$bin" bundle "$work/D" -o "$work/d.mrcb" --key "$work/k" --cases "$cases"
expect_rc 0 "verify (edited, signed)" "$bin" verify "$work/d.mrcb" --pubkey "$work/k.pub" --cases "$cases"
expect_rc 1 "replay (edited)" "$bin" replay "$work/d.mrcb" --pubkey "$work/k.pub" --cases "$cases"
grep -q '^spray-v-001: PASS -> FAIL: ' "$work/last.out" || { cat "$work/last.out" >&2; fail "replay did not name spray-v-001 PASS -> FAIL"; }
rm -rf "$work"
echo "replay.roundtrip: OK"
