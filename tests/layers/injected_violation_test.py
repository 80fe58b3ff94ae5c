#!/usr/bin/env python3
"""The layer check must fail on an upward include: copies the tree's sources and the table into a
temporary folder, adds one include that breaks the table (the wire codecs including the runner)
and one that reaches into the simulator's internals from a DUT binding, and expects check_layers.py
to exit 1 naming both files and lines. Also expects exit 0 on the unmodified copy."""
import pathlib
import shutil
import subprocess
import sys
import tempfile

here = pathlib.Path(__file__).resolve().parent
src = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent
checker = here / "check_layers.py"


def run(root):
    return subprocess.run([sys.executable, str(checker), "--root", str(root)], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    for top in ("reference", "harness"):
        shutil.copytree(src / top, root / top, ignore=shutil.ignore_patterns("*.md", "CMakeLists.txt", "*.json"))
    shutil.copy(src / "harness" / "README.md", root / "harness" / "README.md")
    clean = run(root)
    assert clean.returncode == 0, f"clean copy: expected 0, got {clean.returncode}\n{clean.stdout}{clean.stderr}"

    headers = root / "reference" / "wire" / "headers.hpp"
    headers.write_text(headers.read_text() + '\n#include "harness/run/case_session.hpp"\n')
    lines_before = len((root / "harness" / "dut" / "dut_binding.hpp").read_text().splitlines())
    binding = root / "harness" / "dut" / "dut_binding.hpp"
    binding.write_text(binding.read_text() + '#include "harness/testbed/sim/simulator.hpp"\n')
    bad = run(root)
    assert bad.returncode == 1, f"injected: expected 1, got {bad.returncode}\n{bad.stdout}{bad.stderr}"
    out = bad.stdout
    assert "reference/wire/headers.hpp:" in out and "harness/run/case_session.hpp (layer harness/run/)" in out, out
    assert f"harness/dut/dut_binding.hpp:{lines_before + 1}: includes harness/testbed/sim/simulator.hpp" in out, out
    assert "2 violation(s)" in out, out
print("injected violations caught; clean tree passes")
