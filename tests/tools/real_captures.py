"""The optional real RoCEv2 captures: every .pcap / .pcapng file directly in the folder named by
the environment variable MRC_REAL_CAPTURES. The checks that use them (dissector.real_roce,
diff.real_roce, PlainRoce.RealCapturesFromEnvironmentDecode) are skipped, never failed, when the
variable is unset or the folder holds no capture.
"""

import glob
import os
import sys

ENV = "MRC_REAL_CAPTURES"
SKIP = 77  # CTest SKIP_RETURN_CODE of the tests that use the captures


def real_captures_or_skip(test_name):
    """Sorted capture paths; prints why and exits with SKIP when there are none."""
    folder = os.environ.get(ENV, "")
    files = []
    if folder and os.path.isdir(folder):
        files = sorted(glob.glob(os.path.join(folder, "*.pcap")) +
                       glob.glob(os.path.join(folder, "*.pcapng")))
    if not files:
        why = "unset" if not folder else "%s holds no .pcap/.pcapng file" % folder
        print("%s: SKIPPED: %s is %s; set it to a folder of real RoCEv2 captures to run it"
              % (test_name, ENV, why if not folder else "set but " + why))
        sys.exit(SKIP)
    return files
