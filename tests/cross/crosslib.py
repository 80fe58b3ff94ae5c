"""Shared plumbing for the cross-validation checkers (scapy, tshark, the Lua dissector).

Each checker runs the C++ generator (mrc_cross_gen) into a work directory, decodes the pcap with
a third-party tool and compares every decoded field with the generator's side file. The first
mismatch is printed with frame index, field, expected and observed values; the exit status is 1
on any mismatch, 2 on a harness problem (tool missing, generator failed).
"""

import argparse
import json
import os
import struct
import subprocess
import sys

# The BTH opcodes MRC 1.0 defines (mrc-wire-model.md W3): the WRITE data opcodes, the Transport
# ACK, the endpoint request / response and the reliability SACK / NACK / probe.
W3_OPCODES = frozenset(range(0xC6, 0xCC)) | {0xD1, 0xD8, 0xD9, 0xDC, 0xDD, 0xDE}


def parse_args(description, default_count, profile_help=""):
    ap = argparse.ArgumentParser(description=description + profile_help)
    ap.add_argument("--gen", required=True, help="path to mrc_cross_gen")
    ap.add_argument("--count", type=int, default=default_count)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", required=True)
    return ap.parse_args()


def generate(args, profile, stem, count=None, seed=None):
    """Runs the generator (args.count frames from args.seed unless given); returns (pcap path,
    list of expected-field dicts)."""
    count = args.count if count is None else count
    seed = args.seed if seed is None else seed
    os.makedirs(args.workdir, exist_ok=True)
    pcap = os.path.join(args.workdir, stem + ".pcap")
    side = os.path.join(args.workdir, stem + ".json")
    cmd = [args.gen, "--profile", profile, "--count", str(count), "--seed", str(seed),
           "--pcap", pcap, "--expect", side]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        harness_error("generator failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr))
    with open(side) as f:
        doc = json.load(f)
    frames = doc["frames"]
    if len(frames) != count:
        harness_error("side file has %d frames, expected %d" % (len(frames), count))
    return pcap, frames


def snap_copy(src, dst, snaplen):
    """Rewrites the classic pcap `src` as a capture made with snap length `snaplen`: each record
    keeps its first snaplen bytes and its original (wire) length, as a capture tool writes it."""
    with open(src, "rb") as f:
        data = f.read()
    head = bytearray(data[:24])
    struct.pack_into("<I", head, 16, snaplen)
    out, pos = [bytes(head)], 24
    while pos < len(data):
        sec, usec, cap, wire = struct.unpack_from("<IIII", data, pos)
        body = data[pos + 16:pos + 16 + cap][:snaplen]
        out.append(struct.pack("<IIII", sec, usec, len(body), wire) + body)
        pos += 16 + cap
    with open(dst, "wb") as f:
        f.write(b"".join(out))
    return dst


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
