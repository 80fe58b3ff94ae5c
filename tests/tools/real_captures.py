"""The real RoCEv2 captures the capture checks run on (dissector.real_roce, diff.real_roce; the
gtest PlainRoce.RealCapturesDecode reads the same folders): every .pcap / .pcapng file directly in

  1. ../shared/roce-captures beside the checkout (the project's shared folder, which CI has beside
     its clone): captures taken from public sources are kept there, never in the repository,
     each named in the SOURCES.md beside them (origin, licence, what it holds): a capture
     SOURCES.md does not name fails the checks;
  2. the folder named by the environment variable MRC_REAL_CAPTURES, when set (a lab's own
     captures, in addition). Set to something that is not a folder, it is an error, not a skip:
     a typo must not turn the checks off silently.

With no capture in either, the checks print why and exit SKIP (CTest reports them as skipped).
"""

import glob
import os
import sys

ENV = "MRC_REAL_CAPTURES"
SKIP = 77  # CTest SKIP_RETURN_CODE of the tests that use the captures
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "roce-captures"))


def captures_in(folder):
    return sorted(glob.glob(os.path.join(folder, "*.pcap")) + glob.glob(os.path.join(folder, "*.pcapng")))


def unlisted_in_sources(folder):
    """The captures of `folder` whose file name its SOURCES.md does not mention (all when absent)."""
    path = os.path.join(folder, "SOURCES.md")
    text = open(path, encoding="utf-8").read() if os.path.isfile(path) else ""
    return [os.path.basename(f) for f in captures_in(folder) if os.path.basename(f) not in text]


def real_captures_or_skip(test_name):
    """Sorted capture paths; prints why and exits with SKIP when there are none."""
    folders = [SHARED] if os.path.isdir(SHARED) else []
    extra = os.environ.get(ENV, "")
    if extra:
        if not os.path.isdir(extra):
            print("%s: FAILED: %s=%s is not a folder (unset it, or name a folder of .pcap/.pcapng files)"
                  % (test_name, ENV, extra))
            sys.exit(1)
        folders.append(os.path.abspath(extra))
    unnamed = unlisted_in_sources(SHARED) if os.path.isdir(SHARED) else []
    if unnamed:
        print("%s: FAILED: %s/SOURCES.md does not name %s: say where each capture comes from and under "
              "which licence before it is used" % (test_name, SHARED, ", ".join(unnamed)))
        sys.exit(1)
    files = []
    for folder in folders:
        files += [f for f in captures_in(folder) if f not in files]
    if not files:
        looked = ", ".join(folders) if folders else "no folder (%s is absent and %s unset)" % (SHARED, ENV)
        print("%s: SKIPPED: no .pcap/.pcapng in %s; put real RoCEv2 captures in %s or name a folder "
              "of them with %s" % (test_name, looked, SHARED, ENV))
        sys.exit(SKIP)
    return files
