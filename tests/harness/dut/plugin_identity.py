#!/usr/bin/env python3
"""plugin.identity: the C plugin ABI carries everything a case needs.

1. The whole library run with `--dut plugin:<reference plugin>` gives the `cases` of results.json
   byte for byte as `--dut reference` does, and the same evidence files with the same bytes.
2. A model that aborts, dies of SIGSEGV, hangs, answers MRC_DUT_BROKEN or overruns frame_out's
   buffer in one case is an ERROR
   of that case, named (the signal, the watchdog's bound, the model's words); the next case PASSes (the plugin is loaded in each case's child process).
3. `campaign` and `variants` through the plugin give the in-process reference's verdicts.
4. As the harness's peer (`--peer plugin:...`) and in `interop --impls plugin:...,reference`.
5. A plugin built for another ABI version is refused at load, both versions named; a library that
   does not exist is refused naming its path. Neither runs a case.

usage: plugin_identity.py MRC_CONFORM SRC_DIR REFERENCE_PLUGIN FAULTY_PLUGIN
"""
import filecmp
import json
import os
import subprocess
import sys
import tempfile
import time

MRC, SRC, REF_PLUGIN, FAULTY_PLUGIN = sys.argv[1:5]
OLD_ABI_PLUGIN = os.path.join(os.path.dirname(FAULTY_PLUGIN), "libmrc_test_plugin_old_abi.so")
failures = []


def run(out, dut, cases=None, extra=()):
    args = [MRC, "run", "--jobs", "2", "--out", out, "--no-progress", "--dut", dut] + list(extra)
    if cases:
        args += ["--cases"] + [os.path.join(SRC, "cases", c) for c in cases]  # an absolute path stays
    start = time.monotonic()
    p = subprocess.run(args, cwd=SRC, capture_output=True, text=True, timeout=1100)
    return p, time.monotonic() - start


def results(out):
    with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
        return json.load(f)


def by_id(doc):
    return {c["id"]: c for c in doc["cases"]}


def identity(tmp):
    a, b = os.path.join(tmp, "reference"), os.path.join(tmp, "plugin")
    pa, ta = run(a, "reference")
    pb, tb = run(b, "plugin:" + REF_PLUGIN)
    print(f"whole library: in-process {ta:.1f} s, through the plugin {tb:.1f} s ({tb / max(ta, 1e-9):.2f}x)")
    if pa.returncode != 0 or pb.returncode != 0:
        failures.append(f"exit codes {pa.returncode} (reference) and {pb.returncode} (plugin):\n{pb.stderr[-2000:]}")
        return
    ca, cb = results(a)["cases"], results(b)["cases"]
    if len(ca) < 100:
        failures.append(f"the reference ran only {len(ca)} cases")
    ja = [json.dumps(c, sort_keys=True) for c in ca]
    jb = [json.dumps(c, sort_keys=True) for c in cb]
    if ja != jb:
        ida, idb = by_id(results(a)), by_id(results(b))
        for cid in sorted(set(ida) | set(idb)):
            if ida.get(cid) != idb.get(cid):
                va, vb = ida.get(cid, {}), idb.get(cid, {})
                keys = sorted(k for k in set(va) | set(vb) if va.get(k) != vb.get(k))
                failures.append(f"{cid}: results differ in {keys}: reference {va.get('verdict')} "
                                f"{str(va.get('message', ''))[:200]!r}, plugin {vb.get('verdict')} "
                                f"{str(vb.get('message', ''))[:200]!r}")
                if len(failures) > 10:
                    return
    ea, eb = os.path.join(a, "evidence"), os.path.join(b, "evidence")
    names_a = sorted(os.listdir(ea)) if os.path.isdir(ea) else []
    names_b = sorted(os.listdir(eb)) if os.path.isdir(eb) else []
    if names_a != names_b:
        failures.append(f"evidence files differ: {sorted(set(names_a) ^ set(names_b))[:10]}")
    else:
        _, mismatch, errors = filecmp.cmpfiles(ea, eb, names_a, shallow=False)
        if mismatch or errors:
            failures.append(f"evidence differs in content: {(mismatch + errors)[:10]}")


def engines(tmp):
    """The campaign through the plugin kills the same defects, with the same killers and collateral
    (only `unreached` differs: just the in-process reference tells which defect switches a run
    read); `variants` through it writes the same variants.json. Both with every entry of the
    catalog; the campaign over the cases relevant to each defect (the whole campaign, a minute
    more, is `campaign --dut plugin:...` in the README)."""
    reports = {}
    for label, dut in (("reference", "reference"), ("plugin", "plugin:" + REF_PLUGIN)):
        for cmd, extra in (("campaign", ["--relevant-only"]), ("variants", [])):
            out = os.path.join(tmp, f"{cmd}-{label}")
            p = subprocess.run([MRC, cmd, "--jobs", "2", "--no-progress", "--dut", dut, "--out", out] + extra,
                               cwd=SRC, capture_output=True, text=True, timeout=1100)
            if p.returncode != 0:
                failures.append(f"{cmd} --dut {dut} exited {p.returncode}: {p.stderr[-1000:]}")
                return
            with open(os.path.join(out, cmd + ".json"), encoding="utf-8") as f:
                reports[(cmd, label)] = json.load(f)

    def defects(doc):
        return [{k: v for k, v in d.items() if k != "unreached"} for d in doc["defects"]]

    camp_ref, camp_plugin = reports[("campaign", "reference")], reports[("campaign", "plugin")]
    if len(camp_ref["defects"]) < 50:
        failures.append(f"the campaign judged only {len(camp_ref['defects'])} defects")
    if defects(camp_ref) != defects(camp_plugin):
        differ = [a["name"] for a, b in zip(defects(camp_ref), defects(camp_plugin)) if a != b]
        failures.append(f"the campaign through the plugin differs for defects {differ[:10]}")
    if reports[("variants", "reference")] != reports[("variants", "plugin")]:
        failures.append("variants through the plugin differs from the in-process reference's")


def as_peer_and_in_interop(tmp):
    """The plugin sits on the harness's side too: `--peer plugin:...` gives the cases of the default
    peer (the in-process reference) byte for byte, and `interop` judges plugin x reference both
    ways."""
    a, b = os.path.join(tmp, "peer-reference"), os.path.join(tmp, "peer-plugin")
    subprocess.run([MRC, "run", "--jobs", "2", "--no-progress", "--tags", "spraying", "--out", a], cwd=SRC,
                   capture_output=True, text=True, timeout=600)
    p = subprocess.run([MRC, "run", "--jobs", "2", "--no-progress", "--tags", "spraying", "--out", b,
                        "--peer", "plugin:" + REF_PLUGIN], cwd=SRC, capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or results(a)["cases"] != results(b)["cases"]:
        failures.append(f"--peer plugin: differs from the default peer (exit {p.returncode}): {p.stderr[-600:]}")
    out = os.path.join(tmp, "interop")
    p = subprocess.run([MRC, "interop", "--no-progress", "--tags", "spraying", "--out", out,
                        "--impls", f"plugin:{REF_PLUGIN},reference"], cwd=SRC, capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0 or "4 of 4 pair(s) ran" not in p.stdout:
        failures.append(f"interop plugin x reference: exit {p.returncode}: {p.stdout[-600:]} {p.stderr[-600:]}")


# Two cases with their own seeds: the fault is set off by the first one's (DutSetup.seed).
FAULT_CASE, FAULT_SEED, NEXT_CASE = "reliab/reliab-v-022.yaml", 22, "reliab/reliab-v-026.yaml"


def faults(tmp):
    expected = {
        "abort": "died of signal 6 (SIGABRT)",
        "segv": "died of signal 11 (SIGSEGV)",
        "broken": "the test plugin's model state is corrupt (broken-seed)",
        "oversize": "frame_out reported a frame of 4613 bytes",
    }
    # The hang is given up at the case's wall-clock bound: a copy of the case with a short one.
    hang_case = os.path.join(tmp, "reliab-v-022.yaml")
    with open(os.path.join(SRC, "cases", FAULT_CASE), encoding="utf-8") as f:
        text = f.read()
    with open(hang_case, "w", encoding="utf-8") as f:
        f.write(text + "timeout_s: 2\n")
    expected["hang"] = "the DUT binding hung: no return from dut.apply"
    for kind, says in expected.items():
        out = os.path.join(tmp, "fault-" + kind)
        first = hang_case if kind == "hang" else FAULT_CASE
        p, _ = run(out, f"plugin:{FAULTY_PLUGIN}:{kind}-seed={FAULT_SEED}", [first, NEXT_CASE])
        if not os.path.exists(os.path.join(out, "results.json")):
            failures.append(f"{kind}: no results.json (exit {p.returncode}): {p.stderr[-1000:]}")
            continue
        cases = by_id(results(out))
        bad, good = cases.get("reliab-v-022", {}), cases.get("reliab-v-026", {})
        if bad.get("verdict") != "ERROR" or says not in str(bad.get("message", "")):
            failures.append(f"{kind}: reliab-v-022 should be an ERROR saying {says!r}, got "
                            f"{bad.get('verdict')} {str(bad.get('message'))[:300]!r}")
        if good.get("verdict") != "PASS":
            failures.append(f"{kind}: reliab-v-026 should PASS after the fault, got {good.get('verdict')} "
                            f"{str(good.get('message'))[:300]!r}")


def arguments_reach_the_model(tmp):
    """ARGS select the reference's defects: the comparison above can fail, and does for a defect."""
    out = os.path.join(tmp, "defect")
    run(out, f"plugin:{REF_PLUGIN}:no-backoff-cap", [FAULT_CASE])
    verdict = by_id(results(out)).get("reliab-v-022", {}).get("verdict")
    if verdict != "FAIL":
        failures.append(f"plugin:...:no-backoff-cap should FAIL reliab-v-022, got {verdict}")


def refusals(tmp):
    for plugin, says in ((OLD_ABI_PLUGIN, "built for plugin ABI version 0"),
                         (os.path.join(tmp, "no-such-plugin.so"), "no-such-plugin.so")):
        out = os.path.join(tmp, "refused")
        p, _ = run(out, "plugin:" + plugin, [NEXT_CASE])
        text = p.stdout + p.stderr
        if os.path.exists(os.path.join(out, "results.json")):
            text += json.dumps(results(out))
        if says not in text or p.returncode == 0:
            failures.append(f"plugin {plugin}: expected a refusal saying {says!r} and a non-zero exit, "
                            f"got exit {p.returncode}: {text[-800:]}")
        if plugin == OLD_ABI_PLUGIN and "this harness speaks version 1" not in text:
            failures.append(f"the ABI refusal does not name the harness's version: {text[-800:]}")


with tempfile.TemporaryDirectory(prefix="plugin_identity_") as tmp:
    refusals(tmp)
    arguments_reach_the_model(tmp)
    faults(tmp)
    engines(tmp)
    as_peer_and_in_interop(tmp)
    identity(tmp)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
