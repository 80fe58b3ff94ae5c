"""Shared plumbing for the cross-validation checkers (scapy, tshark, the Lua dissector).

Each checker runs the C++ generator (mrc_cross_gen) into a work directory, decodes the pcap with
a third-party tool and compares every decoded field with the generator's side file. The first
mismatch is printed with frame index, field, expected and observed values; the exit status is 1
on any mismatch, 2 on a harness problem (tool missing, generator failed).
"""

import argparse
import json
import os
import subprocess
import sys


def parse_args(description, default_count, profile_help=""):
    ap = argparse.ArgumentParser(description=description + profile_help)
    ap.add_argument("--gen", required=True, help="path to mrc_cross_gen")
    ap.add_argument("--count", type=int, default=default_count)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", required=True)
    return ap.parse_args()


def generate(args, profile, stem):
    """Runs the generator; returns (pcap path, list of expected-field dicts)."""
    os.makedirs(args.workdir, exist_ok=True)
    pcap = os.path.join(args.workdir, stem + ".pcap")
    side = os.path.join(args.workdir, stem + ".json")
    cmd = [args.gen, "--profile", profile, "--count", str(args.count), "--seed", str(args.seed),
           "--pcap", pcap, "--expect", side]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        harness_error("generator failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr))
    with open(side) as f:
        doc = json.load(f)
    frames = doc["frames"]
    if len(frames) != args.count:
        harness_error("side file has %d frames, expected %d" % (len(frames), args.count))
    return pcap, frames


def harness_error(msg):
    print("HARNESS ERROR: " + msg, file=sys.stderr)
    sys.exit(2)


def as_int(text):
    """Parses a tool's rendering of an integer / boolean field ("0x1f", "31", "True", "1")."""
    t = str(text).strip()
    if t in ("True", "true"):
        return 1
    if t in ("False", "false"):
        return 0
    return int(t, 0)


class Mismatches:
    """Collects mismatches; prints the first few and a summary."""

    def __init__(self, tool):
        self.tool = tool
        self.items = []
        self.checked = 0

    def compare(self, index, kind, field, expected, observed):
        self.checked += 1
        if expected != observed:
            self.items.append((index, kind, field, expected, observed))

    def fail(self, index, kind, field, expected, observed):
        self.items.append((index, kind, field, expected, observed))

    def finish(self, frames, extra_summary=""):
        if self.items:
            i, kind, field, exp, obs = self.items[0]
            print("FIRST MISMATCH (%s): frame index %d (%s), field %s: expected %r, observed %r"
                  % (self.tool, i, kind, field, exp, obs))
            for i, kind, field, exp, obs in self.items[1:10]:
                print("  also: frame %d (%s) %s: expected %r observed %r" % (i, kind, field, exp, obs))
            print("%s: %d mismatches in %d field comparisons over %d frames"
                  % (self.tool, len(self.items), self.checked, frames))
            sys.exit(1)
        print("%s: %d field comparisons over %d frames, all equal%s"
              % (self.tool, self.checked, frames, extra_summary))
