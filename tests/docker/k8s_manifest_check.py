#!/usr/bin/env python3
"""k8s.manifest: docker/k8s/indexed-job.yaml and merge-job.yaml hold what the runner reads.

Debian 12 packages no Kubernetes schema validator (no kubeconform, no kubeval) and
`kubectl --dry-run=client` needs an API server for its schema, so this parses the manifests
(python3-yaml) and checks the fields a sharded run depends on: a batch/v1 Job in Indexed
completion mode, `completions` equal to the --shard-count its command passes, parallelism within
it, a command that lets mrc-conform read JOB_COMPLETION_INDEX (no --shard overriding it) and
writes each shard to its own folder on a mounted shared volume, and a merge Job that reads the
same volume. Then it runs both commands as the pods would (each index in turn, /reports a
scratch folder, a small selection) with the built binary: the merge must succeed.

usage: k8s_manifest_check.py SRC_DIR BIN_DIR
"""
import os
import shlex
import subprocess
import sys
import tempfile

import yaml

SRC, BIN = sys.argv[1], sys.argv[2]
problems = []


def check(ok, what):
    if not ok:
        problems.append(what)
    return ok


def load(name):
    with open(os.path.join(SRC, "docker", "k8s", name), encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def shell_words(container):
    """The container's command as argv; `sh -c SCRIPT` as the script's words."""
    cmd = list(container.get("command", [])) + list(container.get("args", []))
    if cmd[:2] == ["sh", "-c"] and len(cmd) == 3:
        words = shlex.split(cmd[2])
        return words[1:] if words[:1] == ["exec"] else words, cmd[2]
    return cmd, None


def option(words, name):
    return words[words.index(name) + 1] if name in words and words.index(name) + 1 < len(words) else None


def mounted(spec, container, path):
    """The volume under which `path` lies, if it is a PVC shared through a volumeMount."""
    for m in container.get("volumeMounts", []):
        if path.startswith(m["mountPath"].rstrip("/") + "/"):
            for v in spec.get("volumes", []):
                if v.get("name") == m.get("name") and "persistentVolumeClaim" in v:
                    return v["persistentVolumeClaim"].get("claimName")
    return None


docs = load("indexed-job.yaml")
claims = {d["metadata"]["name"] for d in docs if d.get("kind") == "PersistentVolumeClaim"}
jobs = [d for d in docs if d.get("kind") == "Job"]
check(len(jobs) == 1, f"indexed-job.yaml: expected one Job, found {len(jobs)}")
job = jobs[0]
check(job.get("apiVersion") == "batch/v1", "indexed-job.yaml: Job apiVersion is not batch/v1")
spec = job.get("spec", {})
check(spec.get("completionMode") == "Indexed", "indexed-job.yaml: spec.completionMode is not Indexed")
completions = spec.get("completions")
check(isinstance(completions, int) and completions >= 1, "indexed-job.yaml: spec.completions is not a count")
parallelism = spec.get("parallelism", 1)
check(isinstance(parallelism, int) and 1 <= parallelism <= completions,
      "indexed-job.yaml: spec.parallelism is not 1 .. completions")
pod = spec.get("template", {}).get("spec", {})
check(pod.get("restartPolicy") in ("Never", "OnFailure"), "indexed-job.yaml: a Job pod needs restartPolicy Never/OnFailure")
containers = pod.get("containers", [])
check(len(containers) == 1, "indexed-job.yaml: expected one container")
words, script = shell_words(containers[0])
check(words[:1] == ["mrc-conform"] and words[1:2] and words[1] in ("run", "campaign", "variants", "falsefail"),
      f"indexed-job.yaml: the command is not mrc-conform run|campaign|variants|falsefail: {words}")
check("--shard" not in words, "indexed-job.yaml: --shard in the command overrides JOB_COMPLETION_INDEX")
count = option(words, "--shard-count")
check(count is not None and count.isdigit() and int(count) == completions,
      f"indexed-job.yaml: --shard-count {count} is not spec.completions {completions}")
out = option(words, "--out") or ""
check("$JOB_COMPLETION_INDEX" in out or "${JOB_COMPLETION_INDEX}" in out or "$(JOB_COMPLETION_INDEX)" in out,
      f"indexed-job.yaml: --out {out!r} is not one folder per index")
if "$(JOB_COMPLETION_INDEX)" in out:
    check(script is None, "indexed-job.yaml: $(VAR) is Kubernetes expansion; inside sh -c use $VAR")
claim = mounted(pod, containers[0], out)
check(claim is not None, f"indexed-job.yaml: --out {out!r} is not on a mounted persistent volume")
check(claim in claims, f"indexed-job.yaml: claim {claim} is not defined in the file")

merge_docs = [d for d in load("merge-job.yaml") if d.get("kind") == "Job"]
check(len(merge_docs) == 1, "merge-job.yaml: expected one Job")
merge_pod = merge_docs[0]["spec"]["template"]["spec"]
merge_words, merge_script = shell_words(merge_pod["containers"][0])
check(merge_words[:2] == ["mrc-conform", "merge"], f"merge-job.yaml: the command is not mrc-conform merge: {merge_words}")
merged_out = option(merge_words, "-o") or option(merge_words, "--out") or ""
check(mounted(merge_pod, merge_pod["containers"][0], merged_out) == claim,
      "merge-job.yaml: -o is not on the shard Job's volume")

if not problems:
    # Run the pods' commands: each index in turn, then the merge, over a scratch /reports.
    with tempfile.TemporaryDirectory(prefix="k8s-manifest-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_") and k != "MRC_SHARD_COUNT"}
        env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
        small = f" --cases {shlex.quote(os.path.join(SRC, 'cases'))} --tags smoke --defects spray-single-ev,use-denied-ev"
        for k in range(completions):
            run = script.replace("/reports", tmp) + small
            p = subprocess.run(["sh", "-c", run], env=dict(env, JOB_COMPLETION_INDEX=str(k)), cwd=SRC,
                               capture_output=True, text=True, timeout=300)
            check(os.path.isfile(os.path.join(tmp, f"shard-{k}", "shard.json")),
                  f"index {k}: no shard report (exit {p.returncode}): {p.stderr}")
        p = subprocess.run(["sh", "-c", merge_script.replace("/reports", tmp)], env=env, cwd=SRC,
                           capture_output=True, text=True, timeout=300)
        check(p.returncode in (0, 1) and os.path.isfile(os.path.join(tmp, "merged", "campaign.json")),
              f"the merge Job's command failed (exit {p.returncode}): {p.stderr}")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"k8s manifests: Indexed Job of {completions} shards and its merge Job hold what the runner reads")
