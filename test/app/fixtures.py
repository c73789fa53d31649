# SPDX-License-Identifier: BSD-3-Clause
"""Inputs and command-line handling the application's test scripts share."""

import json
import os
import subprocess
import sys


def programs_or_usage(doc, nprograms):
    """The script's command line: -h/--help prints DOC (exit 0); fewer than
    NPROGRAMS programs first: a message and DOC's last line, the usage
    (exit 2)."""
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(doc.strip())
        sys.exit(0)
    if len(sys.argv) <= nprograms or sys.argv[1].startswith("-"):
        sys.stderr.write("%s: give the programs to measure\n%s\n" % (
            os.path.basename(sys.argv[0]), doc.strip().splitlines()[-1]))
        sys.exit(2)


def generate(gen, prefix, args, timeout=60):
    """rxrefill-gen GEN writes the capture PREFIX (PREFIX.json its
    manifest): the manifest and the capture files in queue order."""
    subprocess.run([gen, "-o", prefix, "--quiet"] + list(args), check=True,
                   timeout=timeout)
    with open(prefix + ".json") as f:
        manifest = json.load(f)
    return manifest, [q["file"] for q in manifest["queues"]]


def write_sweep(path, strategies=("bh", "zone")):
    """A sweep result as usertools/rxrefill-sweep writes it (schema
    rxrefill-sweep/1): per strategy a pass at 1e6 and 2e6 pps, a 2% loss
    at 4e6."""
    with open(path, "w") as f:
        json.dump({"schema": "rxrefill-sweep/1", "unit": "pps",
                   "tolerance": 0.0, "strategies": [
                       {"strategy": s, "bulk": True, "no_drop_rate": 2e6,
                        "first_failing_rate": 4e6, "at_max": False,
                        "steps": [{"rate": r, "sent": 1000,
                                   "rx_packets": 1000 - int(loss * 1000),
                                   "loss": loss, "pass": loss == 0}
                                  for r, loss in ((1e6, 0), (4e6, 0.02),
                                                  (2e6, 0.0))]}
                       for s in strategies]}, f)
