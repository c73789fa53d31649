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


def cpuset_root():
    """The cpuset hierarchy where a child cgroup can be made, with the
    files it needs: (directory, cpus file, mems file, tasks file), or None
    (not root, no cpuset controller)."""
    if os.geteuid() != 0:
        return None
    v1 = "/sys/fs/cgroup/cpuset"
    if os.path.exists(os.path.join(v1, "cpuset.cpus")):
        return v1, "cpuset.cpus", "cpuset.mems", "tasks"
    v2 = "/sys/fs/cgroup"
    try:
        ctl = open(os.path.join(v2, "cgroup.subtree_control")).read().split()
    except OSError:
        return None
    if "cpuset" not in ctl:
        return None
    return v2, "cpuset.cpus", "cpuset.mems", "cgroup.procs"


def run_in_cpuset(cpu, cmd, timeout=120, env=None):
    """CMD (a list) run in a cpuset cgroup of its own holding CPU CPU only,
    as a container limited to it runs: the CompletedProcess (text), or None
    when no cpuset cgroup can be made here. The cgroup is removed after."""
    where = cpuset_root()
    if where is None:
        return None
    root, cpus, mems, tasks = where
    d = os.path.join(root, "rxr_test_%d" % os.getpid())
    try:
        os.mkdir(d)
    except OSError:
        return None
    try:
        with open(os.path.join(d, cpus), "w") as f:
            f.write(str(cpu))
        # v1: a cpuset's memory nodes must be given (the root's); v2's
        # root has only cpuset.mems.effective, and a child inherits it.
        all_mems = ""
        for name in (mems, "cpuset.mems.effective"):
            try:
                with open(os.path.join(root, name)) as f:
                    all_mems = f.read().strip()
                break
            except OSError:
                continue
        if all_mems:
            with open(os.path.join(d, mems), "w") as f:
                f.write(all_mems)
        script = 'echo $$ > "$0" && exec "$@"'
        return subprocess.run(["sh", "-c", script, os.path.join(d, tasks)] +
                              list(cmd), capture_output=True, text=True,
                              timeout=timeout, env=env)
    except OSError:
        return None
    finally:
        try:
            os.rmdir(d)
        except OSError:
            pass
