#!/usr/bin/env python3
"""lockstep.identity: the lockstep agent protocol carries everything a case needs, in virtual time.

1. The whole library with `--dut agent:HOST:PORT --clock virtual` against `mrc-dut-agent --clock
   virtual --backend reference` gives the `cases` of results.json byte for byte as `--dut
   reference` does, and the same evidence captures (every .pcapng byte for byte).
2. The same agent serving the reference plugin (`--backend plugin:PATH`) gives the same verdicts.
3. A defect served behind the agent (`--backend reference:<defect>`) FAILs its case: the checks see
   through the socket.
4. `--clock real` against a lockstep agent is an ERROR naming why; no case runs against it.
5. An agent that dies mid-run costs ERRORs naming the lost agent, bounded, and the run still writes
   its reports.

usage: lockstep_identity.py MRC_CONFORM MRC_DUT_AGENT SRC_DIR REFERENCE_PLUGIN
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

MRC, AGENT, SRC, REF_PLUGIN = sys.argv[1:5]
TOKEN = "lockstep-identity-token"
failures = []


class Agent:
    """`mrc-dut-agent --clock virtual` on a free loopback port; stopped on exit."""

    def __init__(self, backend):
        self.proc = subprocess.Popen([AGENT, "--clock", "virtual", "--backend", backend, "--listen", "127.0.0.1:0",
                                      "--token", TOKEN, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        deadline = time.monotonic() + 10  # agent_start_timeout
        line = ""
        while time.monotonic() < deadline and "listening on" not in line:
            line = self.proc.stdout.readline()
            if not line and self.proc.poll() is not None:
                break
        if "listening on" not in line:
            self.stop()
            raise SystemExit(f"FAIL: mrc-dut-agent --backend {backend} did not start within 10 s: "
                             f"{line!r} {self.proc.stderr.read()[-500:]}")
        self.port = int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])

    def spec(self):
        return f"agent:127.0.0.1:{self.port}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run(out, dut, token_file, extra=(), timeout=1100):
    args = [MRC, "run", "--jobs", "2", "--out", out, "--no-progress", "--dut", dut] + list(extra)
    if dut.startswith("agent:"):
        args += ["--agent-token-file", token_file]
    start = time.monotonic()
    p = subprocess.run(args, cwd=SRC, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - start


def results(out):
    with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
        return json.load(f)


def verdicts(out):
    return {c["id"]: c["verdict"] for c in results(out)["cases"]}


def identity(tmp, token_file):
    a, b = os.path.join(tmp, "reference"), os.path.join(tmp, "lockstep")
    agent = Agent("reference")
    try:
        pa, ta = run(a, "reference", token_file)
        pb, tb = run(b, agent.spec(), token_file, ["--clock", "virtual"])
    finally:
        agent.stop()
    print(f"whole library: in-process {ta:.1f} s, through lockstep on loopback {tb:.1f} s ({tb / max(ta, 1e-9):.1f}x)")
    if pa.returncode != 0 or pb.returncode != 0:
        failures.append(f"exit codes {pa.returncode} (reference) and {pb.returncode} (lockstep):\n{pb.stderr[-2000:]}")
        return
    ca, cb = results(a)["cases"], results(b)["cases"]
    if len(ca) < 100:
        failures.append(f"the reference ran only {len(ca)} cases")
    if [json.dumps(c, sort_keys=True) for c in ca] != [json.dumps(c, sort_keys=True) for c in cb]:
        ida, idb = {c["id"]: c for c in ca}, {c["id"]: c for c in cb}
        for cid in sorted(set(ida) | set(idb)):
            va, vb = ida.get(cid, {}), idb.get(cid, {})
            if va != vb:
                keys = sorted(k for k in set(va) | set(vb) if va.get(k) != vb.get(k))
                failures.append(f"{cid}: results differ in {keys}: in-process {va.get('verdict')}, lockstep "
                                f"{vb.get('verdict')} {str(vb.get('message', ''))[:300]!r}")
                if len(failures) > 10:
                    return
    # The captures byte for byte. The context files name the DUT's counters, which for the agent
    # include its own (agent.lockstep.*): not compared.
    ea, eb = os.path.join(a, "evidence"), os.path.join(b, "evidence")
    pcaps_a = sorted(n for n in os.listdir(ea) if n.endswith(".pcapng"))
    pcaps_b = sorted(n for n in os.listdir(eb) if n.endswith(".pcapng"))
    if pcaps_a != pcaps_b or not pcaps_a:
        failures.append(f"evidence captures differ: {sorted(set(pcaps_a) ^ set(pcaps_b))[:10]}")
        return
    differ = []
    for n in pcaps_a:
        with open(os.path.join(ea, n), "rb") as fa, open(os.path.join(eb, n), "rb") as fb:
            if fa.read() != fb.read():
                differ.append(n)
    if differ:
        failures.append(f"evidence captures differ in content: {differ[:10]}")


def plugin_backend(tmp, token_file):
    a, b = os.path.join(tmp, "ref-failover"), os.path.join(tmp, "plugin-failover")
    agent = Agent("plugin:" + REF_PLUGIN)
    try:
        run(a, "reference", token_file, ["--cases", "cases/failover", "--evidence", "none"])
        p, t = run(b, agent.spec(), token_file, ["--cases", "cases/failover", "--evidence", "none", "--clock", "virtual"])
    finally:
        agent.stop()
    print(f"cases/failover through the agent's plugin backend: {t:.1f} s")
    if p.returncode != 0 or verdicts(a) != verdicts(b) or len(verdicts(a)) < 10:
        failures.append(f"--backend plugin: verdicts differ from in-process (exit {p.returncode}): {p.stderr[-800:]}")


def defect_behind_agent(tmp, token_file):
    out = os.path.join(tmp, "defect")
    agent = Agent("reference:spray-single-ev")
    try:
        p, _ = run(out, agent.spec(), token_file, ["--cases", "cases/spray/spray-v-001.yaml", "--evidence", "none"])
    finally:
        agent.stop()
    v = verdicts(out) if os.path.exists(os.path.join(out, "results.json")) else {}
    if v.get("spray-v-001") != "FAIL":
        failures.append(f"spray-single-ev behind a lockstep agent: spray-v-001 is {v}, not FAIL: {p.stderr[-500:]}")


def clock_mismatch(tmp, token_file):
    out = os.path.join(tmp, "mismatch")
    agent = Agent("reference")
    try:
        p, _ = run(out, agent.spec(), token_file, ["--clock", "real", "--cases", "cases/spray/spray-v-001.yaml"])
    finally:
        agent.stop()
    text = p.stdout + p.stderr
    if os.path.exists(os.path.join(out, "results.json")):
        text += json.dumps(results(out))
    if p.returncode == 0 or "--clock real" not in text or "lockstep agent" not in text:
        failures.append(f"--clock real against a lockstep agent: exit {p.returncode}, {text[-800:]}")


def agent_dies(tmp, token_file):
    out = os.path.join(tmp, "dies")
    agent = Agent("reference")
    args = [MRC, "run", "--jobs", "1", "--out", out, "--no-progress", "--dut", agent.spec(), "--agent-token-file",
            token_file, "--cases", "cases/reliab", "--evidence", "none", "--agent-call-timeout-ms", "2000"]
    start = time.monotonic()
    run_proc = subprocess.Popen(args, cwd=SRC, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    agent.proc.kill()
    agent.proc.wait()
    try:
        run_proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        run_proc.kill()
        failures.append("the run did not end within 600 s of its agent's death")
        return
    took = time.monotonic() - start
    if not os.path.exists(os.path.join(out, "results.json")):
        failures.append("a run whose agent died wrote no results.json")
        return
    cases = results(out)["cases"]
    errors = [c for c in cases if c["verdict"] == "ERROR"]
    named = [c for c in errors if "127.0.0.1:" in c.get("message", "")]
    print(f"agent killed 1 s into cases/reliab: {len(errors)} ERROR of {len(cases)}, run ended in {took:.1f} s")
    if not errors or len(named) != len(errors):
        failures.append(f"after the agent died: {len(errors)} ERRORs, {len(named)} naming the agent; "
                        f"first: {errors[0]['message'][:300] if errors else None}")


def main():
    with tempfile.TemporaryDirectory(prefix="mrc-lockstep-") as tmp:
        token_file = os.path.join(tmp, "token")
        with open(token_file, "w", encoding="utf-8") as f:
            f.write(TOKEN + "\n")
        for part in (identity, plugin_backend, defect_behind_agent, clock_mismatch, agent_dies):
            part(tmp, token_file)
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        return 1
    print("PASS: lockstep identity, plugin backend, defect, clock mismatch, agent death")
    return 0


if __name__ == "__main__":
    sys.exit(main())
