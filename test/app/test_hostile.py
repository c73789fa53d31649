#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Hostile input for every program (TAP output for meson).

What a user owns is never replaced (devices, FIFOs, directories, the
inputs), no input blocks, a repetition cut short is marked and left out of
the figures, every stop says why, every option error names the real reason
and limit. Device nodes are made with mknod in a temporary directory,
never taken from /dev. Usage: test_hostile.py RXREFILL GEN COMPARE [CASE...]
"""

import hashlib
import json
import os
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time

import tap
from fixtures import generate, run_in_cpuset

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine  # noqa: E402

RXREFILL, GEN, COMPARE = (os.path.abspath(a) for a in sys.argv[1:4])
ONLY = set(sys.argv[4:])
TMP = tempfile.mkdtemp(prefix="rxr_hostile_")
EAL = ["-l", "0-1", "--no-pci", "--file-prefix",
       mine("rxr_host_%d" % os.getpid()),
       "--log-level", "lib.eal:error"]
# Progress lines as they are printed, so a test can act on one. stdbuf
# preloads a library: AddressSanitizer must be told that this is fine.
LINEBUF = ["stdbuf", "-oL"] if shutil.which("stdbuf") else []
if LINEBUF:
    os.environ["ASAN_OPTIONS"] = ":".join(
        o for o in (os.environ.get("ASAN_OPTIONS"),
                    "verify_asan_link_order=0") if o)


def path(name):
    return os.path.join(TMP, name)


def run(args, timeout=120, eal=None, cwd=None):
    cmd = [RXREFILL] + (EAL if eal is None else eal) + ["--"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def prog(cmd, timeout=60, cwd=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def refused(rc, out, err, needle, what):
    assert rc != 0, "%s: exit 0" % what
    assert 0 < rc < 128, "%s: killed by a signal (%d)" % (what, rc)
    assert needle in err, "%s: message lacks '%s': %s" % (
        what, needle, err[-1500:])


def digest(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def gen(name, *args):
    return generate(GEN, path(name), args)


_cap = []


def capture():
    """One small capture, made once."""
    if not _cap:
        _cap.extend(gen("base", "-q", "1", "-s", "4", "-n", "200")[1])
    return _cap[0]


def nodes():
    """A FIFO, a character device (the null device's numbers) and a
    directory, all in the temporary directory."""
    made = {}
    for kind in ("fifo", "chr", "dir"):
        p = path("node_" + kind)
        if not os.path.exists(p):
            if kind == "fifo":
                os.mkfifo(p)
            elif kind == "chr":
                os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            else:
                os.mkdir(p)
        made[kind] = p
    return made


KIND_MSG = {"fifo": "is a FIFO", "chr": "is a character device",
            "dir": "is a directory"}


def short_run(extra=(), report=None):
    rep = report or path("short.json")
    rc, out, err = run(["--replay", capture(), "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--bulk", "on", "--no-table",
                        "--report", rep] + list(extra))
    assert rc == 0, "exit %d: %s" % (rc, err[-1500:])
    return rep


# --- 1. outputs never replace what is not a regular file --------------------

def case_report_never_replaces_nodes():
    for kind, p in nodes().items():
        before = os.lstat(p)
        rc, out, err = run(["--replay", capture(), "--loops", "1",
                            "--report", p])
        refused(rc, out, err, KIND_MSG[kind], "--report " + kind)
        after = os.lstat(p)
        assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) \
            and after.st_ino == before.st_ino, "%s replaced" % kind
        assert "EAL" not in out, "refused only after EAL started: " + out
    # A trailing slash names a directory too.
    rc, out, err = run(["--replay", capture(), "--report", TMP + "/"])
    refused(rc, out, err, "names a directory", "--report DIR/")


def link_nodes(tag):
    """Links as /dev/stdout is one (to /proc/self/fd/1), and links to a
    FIFO, a character device and a directory, all in the temporary
    directory: the link of each must stay a link."""
    made = {"fd": (path(tag + "_fd"), "/proc/self/fd/1")}
    for kind, target in nodes().items():
        made[kind] = (path("%s_%s" % (tag, kind)), target)
    for p, target in made.values():
        if not os.path.lexists(p):
            os.symlink(target, p)
    return made


LINK_MSG = {"fd": "is a symbolic link to a file descriptor",
            "fifo": "is a symbolic link to a FIFO",
            "chr": "is a symbolic link to a character device",
            "dir": "is a symbolic link to a directory"}


def case_outputs_never_replace_links_to_fds_or_nodes():
    # --report /dev/stdout replaced /dev/stdout (the link) by a file.
    for kind, (p, target) in link_nodes("ln").items():
        for opt in ("--report", "--metrics-file"):
            rc, out, err = run(["--replay", capture(), "--loops", "1",
                                "--reps", "1", "--strategy", "bh",
                                "--bulk", "on", "--no-table", opt, p])
            refused(rc, out, err, LINK_MSG[kind], "%s %s" % (opt, kind))
            assert rc == 2, "%s %s: exit %d" % (opt, kind, rc)
            assert os.path.islink(p) and os.readlink(p) == target, \
                "%s %s: link replaced" % (opt, kind)
        rc, out, err = prog([GEN, "-o", path("gl"), "-m", p, "--quiet"])
        refused(rc, out, err, LINK_MSG[kind], "gen -m " + kind)
        assert os.path.islink(p) and os.readlink(p) == target, \
            "gen -m %s: link replaced" % kind
    # A link to a regular file is replaced, its target never written.
    mine_ = path("ln_target.json")
    with open(mine_, "w") as f:
        f.write("mine\n")
    os.symlink(mine_, path("ln_reg.json"))
    short_run(report=path("ln_reg.json"))
    assert open(mine_).read() == "mine\n", "written through the link"
    assert not os.path.islink(path("ln_reg.json"))


def case_chained_links_to_stdout_refused():
    # A link to /dev/stdout (a link itself) passed while standard output
    # was a regular file: the report replaced the user's link.
    out_file = path("chain_stdout.txt")
    chain = path("chain_dev_stdout")
    rel = path("chain_rel")
    os.symlink("/dev/stdout", chain)
    os.symlink(os.path.basename(chain), rel)   # relative, to the link above
    for p in (chain, rel):
        cmd = [RXREFILL] + EAL + ["--", "--replay", capture(), "--loops",
                                  "1", "--reps", "1", "--strategy", "bh",
                                  "--bulk", "on", "--no-table", "--report", p]
        with open(out_file, "w") as f:
            r = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE,
                               text=True, timeout=120)
        refused(r.returncode, "", r.stderr, LINK_MSG["fd"], p)
        assert os.path.islink(p), "%s: link replaced" % p
    assert os.readlink(chain) == "/dev/stdout"


def case_gen_never_replaces_nodes():
    n = nodes()
    for kind, p in n.items():
        rc, out, err = prog([GEN, "-o", path("gn"), "-m", p, "--quiet"])
        refused(rc, out, err, KIND_MSG[kind], "gen -m " + kind)
        assert stat.S_IFMT(os.lstat(p).st_mode) != stat.S_IFREG
    # A FIFO where a queue file goes.
    q0 = path("gq.q0.pcap")
    os.mkfifo(q0)
    rc, out, err = prog([GEN, "-o", path("gq"), "-q", "1", "--quiet"])
    refused(rc, out, err, "is a FIFO", "gen -o over a FIFO")
    assert stat.S_ISFIFO(os.lstat(q0).st_mode), "FIFO replaced"
    rc, out, err = prog([GEN, "-o", "-", "--quiet"])
    refused(rc, out, err, "standard output ('-') is for --manifest",
            "gen -o -")


def case_output_is_not_an_input():
    cap = capture()
    want = digest(cap)
    rc, out, err = run(["--replay", cap, "--loops", "1", "--report", cap])
    refused(rc, out, err, "is also the input", "--report = --replay")
    assert digest(cap) == want, "capture overwritten"
    prof = path("p.profile")
    with open(prof, "w") as f:
        f.write("strategy bh\n")
    rc, out, err = run(["--profile", prof, "--replay", cap, "--report", prof])
    refused(rc, out, err, "is also the input", "--report = --profile")
    assert open(prof).read() == "strategy bh\n", "profile overwritten"
    # A hard link is the same file under another name.
    link = path("hard.pcap")
    os.link(cap, link)
    rc, out, err = run(["--replay", cap, "--report", link])
    refused(rc, out, err, "is also the input", "--report = hard link")
    # A symbolic link named as both: the write would replace the link,
    # and the input's name would then hold the report.
    sym = path("sym.pcap")
    os.symlink(cap, sym)
    rc, out, err = run(["--replay", sym, "--loops", "1", "--report", sym])
    refused(rc, out, err, "symbolic link to the input",
            "--report = --replay link")
    assert os.path.islink(sym) and digest(sym) == want, "link replaced"
    # rxrefill-gen --split X.q0.pcap -o X overwrote its own input.
    m, files = gen("self", "-q", "2", "-s", "4", "-n", "50")
    want = digest(files[0])
    rc, out, err = prog([GEN, "--split", files[0], "-o", path("self"), "-q",
                         "2"])
    refused(rc, out, err, "is also the input", "gen --split onto itself")
    assert digest(files[0]) == want, "split input overwritten"
    rc, out, err = prog([GEN, "--split", files[0], "-o", path("other"),
                         "-m", files[0]])
    refused(rc, out, err, "is also the input", "gen -m = --split")


def case_gen_outputs_are_not_each_other():
    # rxrefill-gen -o g/c -m g/c.q0.pcap exited 0 with g/c.q0.pcap holding
    # the manifest. However spelt, two outputs of a run are one file.
    d = path("gself")
    os.mkdir(d)
    os.symlink(d, path("gself_link"))
    for args, other in (
            (["-o", d + "/c", "-m", d + "/c.q0.pcap"], "--prefix"),
            (["-o", d + "/c", "-m", d + "/./c.q0.pcap"], "--prefix"),
            (["-o", d + "/c", "-m", d + "/../gself/c.q1.pcap"], "--prefix"),
            (["-o", path("gself_link") + "/c", "-m", d + "/c.q1.pcap"],
             "--prefix"),
            (["-o", d + "/y", "-a", "-m", d + "/y.all.pcap"], "--all")):
        rc, out, err = prog([GEN, "-q", "2", "-s", "2", "-n", "5",
                             "--quiet"] + args)
        what = "gen " + " ".join(args)
        refused(rc, out, err, "is also the %s output" % other, what)
        assert rc == 2 and "--manifest" in err, "%s: %d %s" % (what, rc, err)
        assert os.listdir(d) == [], "%s wrote %s" % (what, os.listdir(d))
    # An existing hard link to a capture is that capture too.
    m, files = gen("gself/h", "-q", "1", "-s", "2", "-n", "5")
    os.link(files[0], d + "/hard")
    want = digest(files[0])
    rc, out, err = prog([GEN, "-o", d + "/h", "-q", "1", "-m", d + "/hard",
                         "--quiet"])
    refused(rc, out, err, "is also the --prefix output", "gen -m hard link")
    assert digest(files[0]) == want, "capture overwritten"
    # Different names still run.
    rc, out, err = prog([GEN, "-o", d + "/ok", "-q", "1", "-s", "2", "-n",
                         "5", "-a", "-m", d + "/ok.q0.json", "--quiet"])
    assert rc == 0, err


def case_gen_prefix_is_not_a_directory():
    # -o g/ wrote the hidden files g/.q0.pcap and g/.json.
    d = path("gdir")
    os.mkdir(d)
    for prefix in (d + "/", d + "/.", d + "/..", "."):
        rc, out, err = prog([GEN, "-o", prefix, "-q", "1", "-s", "2", "-n",
                             "5", "--quiet"], cwd=d)
        refused(rc, out, err, "--prefix %s: names a directory" % prefix,
                "gen -o " + prefix)
        assert rc == 2, "gen -o %s: exit %d" % (prefix, rc)
    assert os.listdir(d) == [], os.listdir(d)
    assert not [f for f in os.listdir(TMP) if f.startswith(".")]


def case_dash_is_stdout():
    rc, out, err = run(["--replay", capture(), "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--bulk", "on", "--report", "-"],
                       cwd=TMP)
    assert rc == 0, "exit %d: %s" % (rc, err[-1500:])
    assert not os.path.exists(path("-")), "a file named '-' was written"
    doc = json.loads(out)  # stdout holds the report and nothing else
    assert doc["schema"] == "rxrefill-report/1" and len(doc["runs"]) == 1
    assert "[bh bulk on rep 1/1]" in err, "progress not on stderr: " + err
    rc, out, err = prog([GEN, "-o", path("dash"), "-m", "-", "-q", "1",
                         "-s", "2", "-n", "5"], cwd=TMP)
    assert rc == 0, err
    assert json.loads(out)["schema"] == "rxrefill-gen-manifest/1"
    assert not os.path.exists(path("-"))


# --- 2. a run that fails early leaves an existing report ---------------------

def case_early_failure_keeps_report():
    rep = short_run(report=path("keep.json"))
    want = digest(rep)
    # The pool cannot be created in 64 MiB: fails before any repetition.
    rc, out, err = run(["--replay", capture(), "--frames", "1000000",
                        "--report", rep],
                       eal=["-l", "0-1", "--no-pci", "--no-huge", "-m", "64",
                            "--file-prefix",
                            mine("rxr_host_m%d" % os.getpid())])
    refused(rc, out, err, "cannot create a pool", "pool too large")
    assert digest(rep) == want, "a failed run replaced the report"
    assert "no report written" in err and "rxrefill: report " not in out, \
        out[-500:] + err[-500:]


def case_report_dir_and_space_checked_first():
    # A directory that does not exist, checked before EAL starts.
    rc, out, err = run(["--replay", capture(), "--report",
                        path("nodir/r.json")])
    refused(rc, out, err, "nodir: No such file or directory", "missing dir")
    assert "memory:" not in out, "checked only after EAL: " + out
    # Too little room: a 64 KiB tmpfs.
    p = in_small_tmpfs("small", "64k", 'exec %s %s -- --replay %s --loops 1 '
                       '--reps 3 --report "$D/r.json"' % (
                           RXREFILL, " ".join(EAL), capture()))
    if p is None:
        print("# skipped the full-disk part: needs root, unshare, a tmpfs")
        return
    refused(p.returncode, p.stdout, p.stderr, "bytes free in", "full disk")
    assert "memory:" not in p.stdout, "checked only after EAL"


def in_small_tmpfs(name, size, script, timeout=120):
    """sh -c script with $D a tmpfs of size, mounted in a mount namespace
    of our own; None when that cannot be had (not root, no unshare, no
    mount)."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return None
    d = path(name)
    os.mkdir(d)
    cmd = 'mount -t tmpfs -o size=%s rxr_hostile_%s "$D" || exit 99; %s' % (
        size, name, script)
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh",
                        "-c", cmd], capture_output=True, text=True,
                       timeout=timeout, env=dict(os.environ, D=d))
    return None if p.returncode == 99 else p


def case_report_write_failure_said_once():
    # The report's directory goes away during the session: one message,
    # the runs go on, and the last line claims no report.
    d = path("vanish")
    os.mkdir(d)
    cmd = LINEBUF + [RXREFILL] + EAL + [
        "--", "--replay", capture(), "--loops", "200", "--reps", "3",
        "--strategy", "bh", "--bulk", "on", "--no-table",
        "--report", os.path.join(d, "r.json")]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    seen = []
    for line in p.stdout:
        seen.append(line)
        if "rep 2/3] replaying" in line:
            p.send_signal(signal.SIGSTOP)
            shutil.rmtree(d)
            p.send_signal(signal.SIGCONT)
            break
    out, err = p.communicate(timeout=120)
    out = "".join(seen) + out
    assert p.returncode == 1, "exit %d: %s" % (p.returncode, err[-800:])
    assert err.count("cannot write report") == 1, err[-1500:]
    assert "rep 3/3]" in out, "the runs did not go on: " + out[-800:]
    assert "rxrefill: report " not in out and "no report written" in err, \
        out[-500:] + err[-500:]


def case_metrics_write_failures_said_once():
    # The --metrics-file directory goes away for a repetition: each
    # period said the same error again, and the exit status was 0.
    d = path("mvanish")
    os.mkdir(d)
    report = path("mvanish.json")
    cmd = LINEBUF + [RXREFILL] + EAL + [
        "--", "--replay", capture(), "--reps", "3", "--duration", "0.5",
        "--warmup", "0.1", "--stats-period", "0.05", "--strategy", "bh",
        "--bulk", "on", "--no-table", "--report", report,
        "--metrics-file", os.path.join(d, "m.prom")]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    seen = []
    for line in p.stdout:
        seen.append(line)
        if "rep 2/3] warming up" in line or "rep 3/3] warming up" in line:
            p.send_signal(signal.SIGSTOP)
            if os.path.isdir(d):
                shutil.rmtree(d)
            else:
                os.mkdir(d)
            p.send_signal(signal.SIGCONT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 1, "exit %d: %s" % (p.returncode, err[-800:])
    assert err.count("No such file or directory") == 1, err[-1500:]
    assert "m.prom: written again" in err, err[-800:]
    assert re.search(r"m\.prom: \d+ of \d+ writes failed", err), err[-800:]
    rep = json.load(open(report))
    assert rep["partial"] is False and len(rep["runs"]) == 3, \
        (rep["partial"], len(rep["runs"]))


def case_report_kept_when_a_later_write_fails():
    # The disk fills after the first repetition's report: that report
    # stays, and the last line says it holds the runs before the failure.
    p = in_small_tmpfs("fills", "1m", (
        '%s %s -- --replay %s --loops 100 --reps 3 --strategy bh --bulk on '
        '--no-table --report "$D/r.json" & pid=$!; '
        'while [ ! -e "$D/r.json" ]; do sleep 0.05; done; '
        'kill -STOP $pid; cp "$D/r.json" "$D/first.json"; '
        'dd if=/dev/zero of="$D/fill" bs=4k 2>/dev/null; kill -CONT $pid; '
        'wait $pid; rc=$?; cmp -s "$D/r.json" "$D/first.json" || rc=98; '
        'exit $rc') % (RXREFILL, " ".join(EAL), capture()))
    if p is None:
        raise tap.Skip("needs root, unshare and a tmpfs")
    assert p.returncode == 1, "exit %d: %s" % (p.returncode, p.stderr[-800:])
    assert "holds only the runs before the write that failed" in p.stderr, \
        p.stderr[-800:]
    assert "no report written" not in p.stderr, p.stderr[-800:]


# --- 3. cut-short repetitions are marked and left out ------------------------

def stop_second_rep(args, sig, marker):
    """Run until the second repetition starts, then deliver sig while the
    process is stopped, so that the signal lands inside that repetition."""
    cmd = LINEBUF + [RXREFILL] + EAL + ["--"] + args
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    seen = []
    hit = marker if callable(marker) else lambda line: marker in line
    for line in p.stdout:
        seen.append(line)
        if hit(line):
            p.send_signal(signal.SIGSTOP)
            p.send_signal(sig)
            p.send_signal(signal.SIGCONT)
            break
    out, err = p.communicate(timeout=120)
    assert any(hit(l) for l in seen), "never reached '%s': %s" % (
        marker, "".join(seen)[-1000:] + err[-1000:])
    return p.returncode, "".join(seen) + out, err


def check_cut(report, sig_name, expect_complete):
    with open(report) as f:
        rep = json.load(f)
    runs = rep["runs"]
    assert rep["partial"] is True, "not partial"
    assert [r.get("complete") for r in runs] == expect_complete + [False], \
        [(r.get("complete"), r.get("cut_short")) for r in runs]
    assert runs[-1]["cut_short"] == sig_name, runs[-1].get("cut_short")
    summ = {(s["strategy"], s["bulk"]): s for s in rep["summary"]}
    whole = [r for r in runs if r["complete"]]
    key = (runs[-1]["strategy"], runs[-1]["bulk"])
    n = sum(1 for r in whole if (r["strategy"], r["bulk"]) == key)
    got = summ[key]["reps"] if key in summ else 0
    assert got == n, "summary counts %d reps of %s, %d complete" % (got, key, n)
    return rep


def case_sigterm_finite_replay_cut_short():
    # The case: SIGTERM inside a --loops run recorded a fraction of
    # the packets as a whole run.
    manifest, files = gen("loops", "-q", "1", "-s", "4", "-n", "2000")
    report = path("loops.json")
    loops = 1000
    rc, out, err = stop_second_rep(
        ["--replay", files[0], "--loops", str(loops), "--reps", "2",
         "--strategy", "bh", "--bulk", "on", "--report", report],
        signal.SIGTERM, "rep 2/2] replaying")
    assert rc == 128 + signal.SIGTERM, "exit %d: %s" % (rc, err[-800:])
    rep = check_cut(report, "SIGTERM", [True])
    total = manifest["total"]["packets"] * loops
    assert rep["runs"][0]["rx_packets"] == total
    assert rep["runs"][1]["rx_packets"] < total, "cut run got everything?"
    assert "stopped by SIGTERM after 1 of 2 repetitions" in err, err[-800:]
    # The table and compare list it apart and leave it out.
    # Repetitions count from 1 in every text, as in the progress lines.
    assert "cut short, not counted: bh-bulk rep 2 (SIGTERM" in out, out[-2000:]
    rc, cout, cerr = prog([COMPARE, report, report])
    assert rc == 0, cerr
    assert "cut short, not counted: bh-bulk rep 2" in cout, cout[:2000]
    rc, cout, cerr = prog([COMPARE, "--json", report])
    assert json.loads(cout)["reports"][0]["cut_short"] == 1, cout[:500]


def case_sighup_sigquit_stop_like_sigterm():
    # What an ssh disconnect sends, and Ctrl-backslash, killed the run.
    for sig, name in ((signal.SIGHUP, "SIGHUP"), (signal.SIGQUIT, "SIGQUIT")):
        report = path("%s.json" % name)
        rc, out, err = stop_second_rep(
            ["--replay", capture(), "--duration", "3", "--warmup", "0.2",
             "--reps", "2", "--strategy", "bh", "--bulk", "on",
             "--stats-period", "0.5", "--report", report],
            sig, "rep 2/2] warming up")
        assert rc == 128 + sig, "%s: exit %d: %s" % (name, rc, err[-800:])
        check_cut(report, name, [True])
        assert "stopped by " + name in err, err[-800:]
        assert "frames lost" not in err, err


def case_stop_in_warmup_main_polls_counts_nothing():
    # With --main-polls a stop in the warm-up ends the run before its
    # window opens: its queues[] must count nothing, not another run's
    # (freed) counters.
    report = path("warm.json")
    rc, out, err = stop_second_rep(
        ["--replay", capture(), "--main-polls", "--duration", "0.3",
         "--warmup", "5", "--reps", "2", "--strategy", "bh", "--bulk", "on",
         "--report", report],
        signal.SIGINT, "rep 2/2] warming up")
    assert rc == 130, "exit %d: %s" % (rc, err[-800:])
    rep = check_cut(report, "SIGINT", [True])
    first, cut = rep["runs"]
    assert sum(q["packets"] for q in first["queues"]) == \
        first["rx_packets"] > 0, first["queues"]
    assert [q["packets"] for q in cut["queues"]] == \
        [0] * len(cut["queues"]) and cut["rx_packets"] == 0, cut["queues"]


def case_sigint_first_rep_keeps_report():
    # SIGINT before any repetition ended: a 0.002 s run was recorded and
    # the previous report replaced. Now nothing is written.
    report = short_run(report=path("int.json"))
    want = digest(report)
    cmd = LINEBUF + [RXREFILL] + EAL + [
        "--", "--replay", capture(), "--duration", "30", "--reps", "1",
        "--strategy", "bh", "--bulk", "on", "--report", report]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    for line in p.stdout:
        if "warming up" in line:
            p.send_signal(signal.SIGINT)
            break
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, "exit %d: %s" % (p.returncode, err[-800:])
    assert digest(report) == want, "report replaced by a cut-short run"
    assert "stopped by SIGINT after 0 of 1" in err, err[-800:]


def closed(fd, cmd, timeout):
    """cmd with descriptor fd closed; exit status and the other
    stream."""
    p = subprocess.run(["sh", "-c", 'exec "$@" %d>&-' % fd, "sh"] + cmd,
                       stdout=subprocess.PIPE if fd != 1 else None,
                       stderr=subprocess.PIPE if fd != 2 else None,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout if fd != 1 else p.stderr


def case_closed_stdout_is_no_file():
    # With standard output closed, EAL's shared configuration took its
    # descriptor, the progress lines were written into it, and the run
    # hung on a lock they had overwritten.
    rep = path("closed.json")
    try:
        rc, err = closed(1, [RXREFILL] + EAL + [
            "--", "--replay", capture(), "--loops", "1", "--reps", "1",
            "--strategy", "bh", "--bulk", "on", "--report", rep], 60)
    except subprocess.TimeoutExpired:
        raise AssertionError("hung with standard output closed")
    assert rc == 0, "exit %d: %s" % (rc, err[-800:])
    assert json.load(open(rep))["partial"] is False
    rc, err = closed(1, [RXREFILL] + EAL + [
        "--", "--replay", capture(), "--report", "-"], 60)
    refused(rc, "", err, "--report -: standard output is closed",
            "--report - with standard output closed")


def case_gen_closed_stderr_is_no_capture():
    # With standard error closed, the first capture took its descriptor
    # and the generator's warning was written at its start.
    rc, out = closed(2, [GEN, "-o", path("cerr"), "-q", "3", "-s", "5",
                         "-n", "7", "--rss-fields", "l3", "--quiet"], 60)
    assert rc == 0, "exit %d" % rc
    m = json.load(open(path("cerr.json")))
    for q in m["queues"]:
        with open(q["file"], "rb") as f:
            head = f.read(4)
        assert head == struct.pack("<I", 0xa1b2c3d4), \
            "%s starts with %r" % (q["file"], head)


def case_gen_manifest_to_closed_stdout():
    # -m - with standard output closed went to /dev/null in its place:
    # exit 0, the manifest nowhere.
    rc, err = closed(1, [GEN, "-o", path("cout"), "-m", "-", "-s", "2",
                         "-n", "5", "--quiet"], 60)
    refused(rc, "", err, "--manifest -: standard output is closed",
            "gen -m - with standard output closed")
    assert not os.path.exists(path("cout.q0.pcap")), "captures made first"


def case_sigpipe_keeps_the_run():
    # rxrefill ... | head -1 killed the run without a word or a report.
    report = path("pipe.json")
    cmd = [RXREFILL] + EAL + ["--", "--replay", capture(), "--loops", "20",
                              "--reps", "2", "--strategy", "bh,zone",
                              "--report", report]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode()
    p.wait(timeout=120)
    assert p.returncode == 0, "exit %d: %s" % (p.returncode, err[-800:])
    rep = json.load(open(report))
    assert rep["partial"] is False and len(rep["runs"]) == 8, \
        (rep["partial"], len(rep["runs"]))
    assert all(r["complete"] for r in rep["runs"])


def case_strategy_list_errors():
    for arg, needle in (("", "empty strategy name"),
                        (",", "empty strategy name"),
                        ("bh,", "empty strategy name"),
                        ("bh,,zone", "empty strategy name"),
                        ("all,bh", "'all' comes last")):
        rc, out, err = run(["--replay", capture(), "--strategy", arg])
        refused(rc, out, err, needle, "--strategy '%s'" % arg)


def case_warmup_not_recorded_with_loops():
    report = short_run(["--warmup", "16"], report=path("warm.json"))
    opts = json.load(open(report))["env"]["options"]
    assert opts["warmup_s"] == 0, "warmup_s %s recorded" % opts["warmup_s"]
    rc, out, err = run(["--replay", capture(), "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--bulk", "on", "--warmup", "16",
                        "--no-table", "--report", report])
    assert "--warmup is not used with --loops" in err, err[-800:]
    # --duration was dropped without a word, and a run too short to trust
    # was told to give the --duration it ignores.
    rc, out, err = run(["--replay", capture(), "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--bulk", "on", "--duration", "5",
                        "--no-table", "--report", report])
    assert rc == 0, err[-800:]
    assert "--duration is not used with --loops" in err, err[-800:]
    assert "too short to trust (more --loops)" in out, out[-800:]


# --- 5. no input blocks -------------------------------------------------------

def case_inputs_never_block():
    n = nodes()
    for kind, p in n.items():
        msg = KIND_MSG[kind]
        rc, out, err = run(["--replay", p], timeout=30)
        refused(rc, out, err, msg, "--replay " + kind)
        rc, out, err = run(["--profile", p], timeout=30)
        refused(rc, out, err, msg, "--profile " + kind)
        rc, out, err = prog([GEN, "--split", p, "-o", path("nb")], timeout=30)
        refused(rc, out, err, msg, "gen --split " + kind)
        rc, out, err = prog([COMPARE, p], timeout=30)
        refused(rc, out, err, msg, "compare " + kind)
        rc, out, err = prog([COMPARE, short_run(report=path("cmp.json")), p],
                            timeout=30)
        refused(rc, out, err, msg, "compare report " + kind)


def case_gen_all_invalid_capture():
    bad = path("invalid.pcap")
    with open(bad, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for _ in range(100):  # caplen above len: every record invalid
            f.write(struct.pack("<IIII", 0, 0, 64, 32) + bytes(64))
    rc, out, err = prog([GEN, "--split", bad, "-o", path("inv"), "-q", "2"])
    refused(rc, out, err, "none of its 100 records", "all-invalid split")
    assert not [f for f in os.listdir(TMP) if f.startswith("inv.")], \
        "files written: %s" % os.listdir(TMP)


# --- 6. option errors name the reason and the limit --------------------------

def case_numbers_are_decimal():
    report = short_run(["--burst", "010"], report=path("dec.json"))
    assert json.load(open(report))["env"]["options"]["burst"] == 10
    for v in ("0x10", "+5", " 5", "5 "):
        rc, out, err = run(["--replay", capture(), "--burst", v])
        refused(rc, out, err, "not a decimal whole number", "--burst " + v)
    rc, out, err = run(["--replay", capture(), "--duration", "0x10"])
    refused(rc, out, err, "not a decimal number", "--duration 0x10")
    m, files = gen("dec", "-q", "1", "-s", "010", "-n", "2")
    assert m["traffic"]["streams"] == 10, m["traffic"]
    rc, out, err = prog([GEN, "-o", path("hex"), "-s", "0x10"])
    refused(rc, out, err, "not a decimal whole number", "gen -s 0x10")


def case_frame_size_reasons():
    for size, needle in (("3000", "3000 is not a multiple of 64"),
                         ("4095", "4095 is not a multiple of 64"),
                         ("65535", "65535 is not a multiple of 64"),
                         ("320", "320 is below 384"),
                         ("70016", "70016 is above 65536"),
                         # 1 was told "try 0 or 64", 100 "try 64 or 128",
                         # "abc" "in 1..1048576": sizes never taken.
                         ("1", "1 is below 384"),
                         ("1", "; try 384"),
                         ("100", "; try 384"),
                         ("3000", "try 2944 or 3008"),
                         ("abc", "multiples of 64 in 384..65536"),
                         ("99999999999", "multiples of 64 in 384..65536")):
        rc, out, err = run(["--replay", capture(), "--frame-size", size])
        refused(rc, out, err, needle, "--frame-size " + size)
        assert "memory:" not in out, "refused only after EAL"
        assert "1048576" not in err and "try 0 " not in err and \
            "try 64 " not in err, err


def case_frames_below_endless_replay():
    # Endless replay keeps every packet of the files in the pool: fewer
    # --frames were refused by net_pcap in its own words after EAL, and
    # a few too few (a burst short) received nothing, exit 0.
    for frames in ("64", "831"):
        rc, out, err = run(["--replay", capture(), "--frames", frames,
                            "--duration", "0.2", "--reps", "1",
                            "--strategy", "bh", "--bulk", "on",
                            "--no-table", "--report", path("fr.json")])
        refused(rc, out, err, "--frames %s: endless replay keeps the 800 "
                "packets" % frames, "--frames " + frames)
        assert "give at least 832" in err, err[-800:]


def case_endless_replay_one_pool_at_a_time():
    # Endless replay's pool holds every packet of the files: the next
    # configuration's pool was made before the last one was freed, so the
    # second run failed for memory where the first fit. Here one pool
    # (about 125 MiB) fits in -m 192 and two do not.
    m, files = gen("onepool", "-q", "1", "-s", "8", "-n", "500")
    rep = path("onepool.json")
    rc, out, err = run(["--replay", files[0], "--frame-size", "16384",
                        "--strategy", "bh,zone", "--bulk", "on",
                        "--reps", "2", "--duration", "0.1", "--warmup", "0",
                        "--no-table", "--report", rep],
                       eal=EAL + ["--no-huge", "-m", "192"])
    assert rc == 0, "exit %d: %s" % (rc, err[-1500:])
    runs = json.load(open(rep))["runs"]
    assert len(runs) == 4 and all(r["rx_packets"] > 0 for r in runs), runs


def case_consumer_tests_need_a_consumer_thread():
    # Only a consumer thread stalls or lags: with any other --consumer
    # the run went ahead as if nothing had been asked.
    for consumer in ("inline", "none", "other-poll"):
        for opt in (["--stall-consumer", "0"], ["--test-consumer-lag", "5"]):
            rc, out, err = run(["--replay", capture(), "--loops", "1",
                                "--consumer", consumer] + opt)
            refused(rc, out, err, "%s: needs a consumer thread" % opt[0],
                    "%s with --consumer %s" % (opt[0], consumer))
            assert rc == 2 and "memory:" not in out, (rc, out[-300:])


def case_replay_port_name_taken():
    # A --vdev of the replay port's name was taken as the replay port: it
    # replayed its own file, not the one scanned, and the loop stalled
    # with 799 of 800 packets missing.
    one = path("one.pcap")
    with open(one, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        f.write(struct.pack("<IIII", 0, 0, 60, 60) + bytes(60))
    rc, out, err = run(["--replay", capture(), "--loops", "1"],
                       eal=EAL + ["--vdev", "net_pcap_rxrefill,rx_pcap=" + one])
    refused(rc, out, err, "--vdev net_pcap_rxrefill: the name of the port "
            "--replay makes", "--vdev net_pcap_rxrefill")
    assert "stalled" not in err, err[-800:]


def case_replay_file_limit():
    cap = capture()
    rc, out, err = run(["--replay", ",".join([cap] * 17)])
    refused(rc, out, err, "at most 16 queues per port", "17 replay files")
    rc, out, err = run(["--replay", cap + ",," + cap])
    refused(rc, out, err, "an empty file name", "--replay a,,b")
    # net_pcap took rx_pcap=a=b.pcap, refused it after EAL had started,
    # and the message was "Operation not permitted".
    eq = path("a=b.pcap")
    shutil.copy(cap, eq)
    rc, out, err = run(["--replay", eq])
    refused(rc, out, err, eq + ": a file name with '='", "--replay a=b")
    assert rc == 2 and "memory:" not in out, (rc, out[-300:])


def case_missing_dashdash():
    cmd = [RXREFILL] + EAL + ["--replay", capture(), "--loops", "1"]
    rc, out, err = prog(cmd)
    refused(rc, out, err, "'--replay' is an option of rxrefill, not of EAL: "
            "put it after '--'", "no --")
    assert len((out + err).splitlines()) < 10, "a page of usage: " + err


def case_compare_names_metric():
    rep = short_run(report=path("metric.json"))
    rc, out, err = prog([COMPARE, "-m", "drops.nosuch", rep])
    refused(rc, out, err, "--metric drops.nosuch: no complete run", "-m")
    rc, out, err = prog([COMPARE, "-m", "gbps,drops.nosuch", rep, rep])
    refused(rc, out, err, "drops.nosuch", "-m in a list")


# --- 7. --exhaust says where it cannot show ----------------------------------

def case_exhaust_says_which_pmd_cannot():
    report = path("exh.json")
    rc, out, err = run(["--replay", capture(), "--duration", "0.3",
                        "--warmup", "0", "--reps", "1", "--strategy", "zone",
                        "--bulk", "on", "--exhaust", "0.05:0.1", "--no-table",
                        "--report", report])
    assert rc == 0, "exit %d: %s" % (rc, err[-800:])
    assert "does not count failed refills as rx_nombuf" in err and \
        "with --loops it counts them" in err, err[-800:]
    rc, out, err = run(["--duration", "0.3", "--warmup", "0", "--reps", "1",
                        "--strategy", "zone", "--bulk", "on", "--exhaust",
                        "0.05:0.1", "--no-table", "--report", report],
                       eal=EAL + ["--vdev", "net_null0"])
    assert rc == 0, "exit %d: %s" % (rc, err[-800:])
    assert "(net_null) does not count failed refills" in err, err[-800:]
    # Finite replay counts them: no such note.
    rc, out, err = run(["--replay", capture(), "--loops", "5", "--reps", "1",
                        "--strategy", "zone", "--bulk", "on", "--exhaust",
                        "0.05:0.1", "--no-table", "--report", report])
    assert rc == 0, "exit %d: %s" % (rc, err[-800:])
    assert "does not count" not in err, err[-800:]


# --- 8. temporary files, profile values, messages ---------------------------

def case_gen_signals_remove_temporaries():
    # An interrupted generation left about 100 MB of *.pcap.tmp.*.
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
        d = path("gsig%d" % sig)
        os.mkdir(d)
        p = subprocess.Popen([GEN, "-o", os.path.join(d, "big"), "-q", "2",
                              "-s", "100", "-n", "5000000", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(600):
            if [f for f in os.listdir(d) if ".tmp." in f] or \
                    p.poll() is not None:
                break
            time.sleep(0.05)
        assert p.poll() is None, "generation ended before the signal"
        p.send_signal(sig)
        p.communicate(timeout=60)
        assert p.returncode == -sig, "signal %d: exit %d" % (sig,
                                                             p.returncode)
        assert os.listdir(d) == [], "left behind: %s" % os.listdir(d)
    # Past 256 outputs, the temporaries beyond were left behind.
    d = path("gsigmany")
    os.mkdir(d)
    p = subprocess.Popen([GEN, "-o", os.path.join(d, "many"), "-q", "300",
                          "-s", "600", "-n", "1000000", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(600):
        if len([f for f in os.listdir(d) if ".tmp." in f]) == 300 or \
                p.poll() is not None:
            break
        time.sleep(0.05)
    assert p.poll() is None, "generation ended before the signal"
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    assert p.returncode == -signal.SIGINT, "exit %d" % p.returncode
    assert os.listdir(d) == [], "left behind: %d files" % len(os.listdir(d))


def case_profile_value_never_from_command_line():
    # "report" with no value took the next word: a report "./--no-table".
    prof = path("novalue.profile")
    with open(prof, "w") as f:
        f.write("strategy bh\nreport\n")
    rc, out, err = run(["--profile", prof, "--replay", capture(),
                        "--no-table"], cwd=TMP)
    refused(rc, out, err, "'report' needs a value", "profile line report")
    assert not os.path.exists(path("--no-table")), "a report --no-table"
    # name=value and name value still work, a flag stays a flag.
    with open(prof, "w") as f:
        f.write("strategy=bh\nbulk on\nno-table\nreps 1\nloops=1\n")
    rep = path("prof.json")
    rc, out, err = run(["--profile", prof, "--replay", capture(),
                        "--report", rep])
    assert rc == 0, err[-800:]
    assert json.load(open(rep))["env"]["options"]["strategies"] == "bh-bulk"
    # A line names its option in full: "dur" took the next word too.
    for line, needle in (("dur\n", "novalue.profile:1: unknown option 'dur'"),
                         ("no-table yes\n", "'no-table' takes no value")):
        with open(prof, "w") as f:
            f.write(line)
        rc, out, err = run(["--profile", prof, "--reps", "1", "--replay",
                            capture()])
        refused(rc, out, err, needle, "profile line " + line.strip())
    # A NAME found nowhere was answered "No such file or directory", as if
    # only the current directory had been looked in.
    rc, out, err = run(["--profile", "rxr_no_such_profile", "--replay",
                        capture()], cwd=TMP)
    refused(rc, out, err, "no rxr_no_such_profile.profile among the "
            "installed profiles (", "--profile NAME")


def case_replay_given_again_replaces():
    # The profile's --replay and the command line's were both replayed,
    # a queue each: the command line's must win, as every option's does.
    m, files = gen("again", "-q", "1", "-s", "2", "-n", "50")
    prof = path("replay.profile")
    with open(prof, "w") as f:
        f.write("replay %s\n" % capture())
    rep = path("again.json")
    for args in (["--profile", prof, "--replay", files[0]],
                 ["--replay", capture(), "--replay", files[0]]):
        rc, out, err = run(args + ["--loops", "1", "--reps", "1",
                                   "--strategy", "bh", "--bulk", "on",
                                   "--no-table", "--report", rep])
        assert rc == 0, "%s: %s" % (args, err[-800:])
        r = json.load(open(rep))["runs"][0]
        assert len(r["queues"]) == 1 and \
            r["rx_packets"] == m["total"]["packets"], \
            "%s: %d queues, %d packets, want 1 and %d" % (
                args, len(r["queues"]), r["rx_packets"],
                m["total"]["packets"])


def case_options_table():
    """--options-table, anywhere on the command line, before EAL starts:
    the table the parser is built from, in the contract's format."""
    for cmd in ([RXREFILL, "-l", "0-1", "--options-table", "--", "--bogus"],
                [GEN, "-q", "2", "--options-table"],
                [COMPARE, "--options-table", "no-such.json"]):
        rc, out, err = prog(cmd)
        assert rc == 0, "%s: exit %d %s" % (cmd, rc, err[-800:])
        lines = out.splitlines()
        assert lines[0] == "# options-table 1 " + os.path.basename(cmd[0]), \
            lines[0]
        rows = [r.split("\t") for r in lines[1:]]
        assert rows and all(len(r) == 7 and all(r) for r in rows), out
        names = [r[0] for r in rows]
        assert len(set(names)) == len(names) and "help" in names, names
    rows = {r[0]: r for r in (line.split("\t") for line in prog(
        [RXREFILL, "--options-table"])[1].splitlines()[1:])}
    rc, out, err = prog([RXREFILL, "--help"])
    words = rows["strategy"][4].split(":", 1)[1].split(",")
    assert rows["strategy"][4].startswith("list:") and words[-1] == "all" \
        and all(w in out for w in words), rows["strategy"]
    assert rows["reps"][3] == "3" and "(default 3)" in out, rows["reps"]


def case_messages_name_the_input_and_reason():
    # A capture of a link type that cannot be given an Ethernet header
    # (802.11): the message named the temporary output, not the input.
    raw = path("raw.pcap")
    with open(raw, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 105))
        f.write(struct.pack("<IIII", 0, 0, 20, 20) + bytes(20))
    rc, out, err = prog([GEN, "--split", raw, "-o", path("rawout")])
    refused(rc, out, err, raw + ": link type", "split of a raw capture")
    assert ".tmp" not in err, err
    # A negative count names the value found.
    rep = short_run(report=path("neg.json"))
    doc = json.load(open(rep))
    doc["runs"][0]["rx_packets"] = -1
    with open(rep, "w") as f:
        json.dump(doc, f)
    rc, out, err = prog([COMPARE, rep])
    refused(rc, out, err, "expected an integer >= 0, found -1", "-1")
    # Numbers are decimal.
    good = short_run(report=path("good.json"))
    for args, needle in ((["-a", "0x1p-4"], "not a decimal number"),
                         (["-w", "0x10"], "not a decimal number"),
                         (["-a", "inf"], "not a decimal number")):
        rc, out, err = prog([COMPARE] + args + [good, good])
        assert rc == 2 and needle in err, (args, rc, err[-500:])
    # Names with terminal escapes are printed escaped.
    doc = json.load(open(good))
    for r in doc["runs"]:
        r["strategy"] = "\x1b[31mred"
    esc = path("e\x1b[31mx.json")
    with open(esc, "w") as f:
        json.dump(doc, f)
    for args in ([esc], [esc, esc], ["-d", esc], ["-s", esc, good]):
        rc, out, err = prog([COMPARE] + args)
        assert rc == 0, err[-500:]
        assert "\x1b" not in out + err, "escape printed raw: %s" % args
    rc, out, err = prog([COMPARE, path("no\x1bsuch.json")])
    assert rc == 1 and "\x1b" not in err, err


def signal_during_rows(name, reps, sig, marker):
    """20 000 streams replayed once a repetition with --stream-rows, SIG
    delivered at MARKER (stop_second_rep()): the output and the report,
    which must be whole, the last line naming it."""
    m, files = gen("rows", "-q", "1", "-s", "20000", "-n", "1")
    report = path(name)
    rc, out, err = stop_second_rep(
        ["--replay", files[0], "--loops", "1", "--reps", str(reps),
         "--strategy", "bh", "--bulk", "on", "--stream-rows", "--report",
         report], sig, marker)
    assert rc == 128 + sig, "exit %d: %s" % (rc, err[-800:])
    last = out.strip().splitlines()[-1]
    assert last == "rxrefill: report %s" % report, last
    with open(report) as f:
        return out, err, json.load(f)


def case_stream_listing_signal_says_what_the_report_says():
    # SIGTERM during a --stream-rows listing: the report was already
    # written with partial: false, the last line said "(partial:
    # interrupted)", and the listing went on to its 20 000th stream. The
    # signal lands while the process is stopped at the first stream row;
    # the listing must then end: the rows already in the pipe, not all.
    out, err, rep = signal_during_rows("rows.json", 1, signal.SIGTERM,
                                       "Median   streams.packets[")
    assert rep["partial"] is False and rep["runs"][0]["complete"], \
        (rep["partial"], rep["runs"][0].get("cut_short"))
    assert len(rep["runs"][0]["streams"]) == 20000
    rows = out.count("Median   streams.packets[")
    assert 0 < rows < 20000, "%d stream rows printed" % rows
    assert "stream rows cut short by SIGTERM" in out, out[-1000:]


def case_signal_after_last_rep_not_partial():
    # SIGQUIT after the last repetition ended left partial: true with
    # every repetition complete. Landing there, before the table: every
    # repetition counts, the report is whole, and the stream rows (20 000
    # of them) are left out at once.
    out, err, rep = signal_during_rows(
        "quit_last.json", 2, signal.SIGQUIT,
        lambda line: "[bh bulk on rep 2/2] " in line and "Gbit/s" in line)
    assert rep["partial"] is False, "partial with every repetition whole"
    assert [r["complete"] for r in rep["runs"]] == [True, True], \
        [r.get("cut_short") for r in rep["runs"]]
    assert rep["summary"][0]["reps"] == 2, rep["summary"][0]
    assert "stopped by SIGQUIT after 2 of 2 repetitions" in err, err[-800:]
    # Stopped before the table, unless this test was slower than it.
    rows = out.count("Median   streams.packets[")
    assert rows < 20000, "%d stream rows printed" % rows
    assert "stream rows cut short by SIGQUIT" in out, out[-1000:]


def case_long_paths_keep_the_reason():
    # 5 000-character paths filled the message and cut the reason off.
    long = path("a" * 5000 + "/r.json")
    for what, (rc, out, err) in (
            ("compare", prog([COMPARE, long])),
            ("gen --split", prog([GEN, "--split", long, "-o", path("lp")])),
            ("gen -o", prog([GEN, "-o", long, "--quiet"])),
            ("--replay", run(["--replay", long])),
            ("--report", run(["--replay", capture(), "--report", long]))):
        assert rc != 0, what
        assert "File name too long" in err, "%s: %s" % (what, err[-300:])
        assert max(len(x) for x in err.splitlines()) < 1000, \
            "%s: a line of %d characters" % (what, max(
                len(x) for x in err.splitlines()))


def case_outputs_named_near_name_max():
    # A name of 244 to 255 bytes passed the check, then its temporary file
    # (the name with ".tmp.XXXXXX" around it) was too long: no report
    # after the first repetition, no metrics, no manifest.
    rep = path("r" * 250 + ".json")
    met = path("m" * 250 + ".prom")
    rc, out, err = run(["--replay", capture(), "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--bulk", "on", "--no-table",
                        "--report", rep, "--metrics-file", met])
    assert rc == 0, "exit %d: %s" % (rc, err[-800:])
    assert json.load(open(rep))["runs"], "no run in the report"
    assert os.path.getsize(met) > 0, "empty metrics file"
    man = path("g" * 250 + ".json")
    rc, out, err = prog([GEN, "-o", path("nm"), "-q", "1", "-s", "1", "-n",
                         "1", "-m", man, "--quiet"])
    assert rc == 0, "gen: exit %d: %s" % (rc, err[-800:])
    assert json.load(open(man))["queues"], "manifest without queues"
    assert not [f for f in os.listdir(TMP) if ".tmp." in f], \
        "temporary files left: %s" % os.listdir(TMP)


def case_gen_full_disk_says_so():
    p = in_small_tmpfs("gsmall", "64k", '%s -o "$D/x" -q 1 -s 10 -n 100000 '
                       '--quiet; echo rc=$?; ls "$D"' % GEN)
    if p is None:
        raise tap.Skip("needs root, unshare and a tmpfs")
    assert "rc=1" in p.stdout, p.stdout + p.stderr
    assert "No space left on device" in p.stderr, p.stderr[-800:]
    assert p.stdout.strip().endswith("rc=1"), "left behind: " + p.stdout


def run_in_mount_namespace(setup, d, report, cannot):
    """rxrefill on a capture in a mount namespace of its own, after the
    shell commands SETUP ($D is D; exit 99 from them: skipped, CANNOT);
    it must exit 0. The finished process."""
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh",
                        "-c", setup + 'exec "$@"', "sh", RXREFILL] + EAL + [
                            "--", "--replay", capture(), "--loops", "1",
                            "--reps", "1", "--strategy", "bh", "--bulk", "on",
                            "--no-table", "--report", path(report)],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, D=d))
    if p.returncode == 99:
        raise tap.Skip("%s: %s" % (cannot, p.stderr.strip()[-200:]))
    assert p.returncode == 0, "exit %d: %s" % (p.returncode,
                                               p.stderr[-800:])
    return p


def case_memory_fallback_mount_of_another_size():
    # Free 2 MiB pages and a hugetlbfs of 1 GiB pages only: hugepages
    # were taken as usable and EAL stopped ("Cannot get hugepage
    # information") instead of the fallback to --no-huge.
    pool = "/sys/kernel/mm/hugepages/hugepages-%dkB/free_hugepages"
    try:
        free_2m = int(open(pool % 2048).read())
        free_1g = int(open(pool % 1048576).read())
    except (OSError, ValueError):
        raise tap.Skip("no 2 MiB and 1 GiB hugepage pools here")
    if free_2m == 0 or free_1g != 0:
        raise tap.Skip("needs free 2 MiB and no free 1 GiB hugepages")
    if shutil.which("unshare") is None or os.geteuid() != 0:
        raise tap.Skip("needs root and unshare")
    d = path("huge1g")
    os.mkdir(d)
    # In a mount namespace of our own: every hugetlbfs unmounted there,
    # one of 1 GiB pages mounted.
    p = run_in_mount_namespace(
        'for m in $(awk \'$3 == "hugetlbfs" {print $2}\' /proc/mounts); '
        'do umount "$m" || exit 99; done; '
        'mount -t hugetlbfs -o pagesize=1G nodev "$D" || exit 99; ', d,
        "huge1g.json", "cannot mount a hugetlbfs of 1 GiB pages")
    assert "hugetlbfs mounted for 1 GiB pages" in p.stdout and \
        "falling back to --no-huge" in p.stdout, p.stdout[-800:]


def case_memory_fallback_every_free_page_reserved():
    # Free 2 MiB pages that another process's hugetlbfs mapping has
    # reserved (not yet touched) are no one else's: taken as usable, EAL
    # found none and stopped ("EAL could not start") instead of the
    # fallback to --no-huge. The pool's counters are a fixture bound over
    # sysfs in a mount namespace of our own, so that no other test loses
    # its pages meanwhile.
    if shutil.which("unshare") is None or os.geteuid() != 0:
        raise tap.Skip("needs root and unshare")
    if not any(line.split()[2] == "hugetlbfs" and "pagesize=1G" not in line
               for line in open("/proc/mounts")):
        raise tap.Skip("needs a hugetlbfs of 2 MiB pages mounted")
    d = path("resv_sysfs")
    h = os.path.join(d, "hugepages-2048kB")
    os.makedirs(h)
    for name, v in (("nr_hugepages", 64), ("free_hugepages", 64),
                    ("resv_hugepages", 64), ("surplus_hugepages", 0),
                    ("nr_overcommit_hugepages", 0)):
        with open(os.path.join(h, name), "w") as f:
            f.write("%d\n" % v)
    p = run_in_mount_namespace(
        'mount --bind "$D" /sys/kernel/mm/hugepages || exit 99; ', d,
        "resv.json", "cannot bind a fixture over sysfs")
    assert "0 x 2 MiB" in p.stdout and \
        "falling back to --no-huge" in p.stdout, p.stdout[-800:]


def case_allowed_pci_device_without_port():
    # A device given with -a that no PMD takes: EAL says nothing of an
    # address that is not there, and the run went on with the other ports
    # (or said only "no port"). Each such -a is named with why: no such
    # device, not a network controller. Only a host bridge of this machine
    # is given (no PMD drives one), never a NIC.
    devs = "/sys/bus/pci/devices"
    try:
        names = sorted(os.listdir(devs))
    except OSError:
        raise tap.Skip("no PCI bus in sysfs")
    bridge = None
    for n in names:
        try:
            if open(os.path.join(devs, n, "class")).read().startswith(
                    "0x06"):
                bridge = n
                break
        except OSError:
            continue
    absent = next(("0000:%02x:1f.7" % b for b in range(0xff, 0, -1)
                   if "0000:%02x:1f.7" % b not in names), None)
    eal = [a for a in EAL if a != "--no-pci"]
    cases = [([absent], ["-a %s: no PCI device %s on this machine" %
                         (absent, absent)])]
    # The short form without a domain, beside a capture that does give a
    # port: still refused, not run without it.
    short = absent[5:]
    cases.append(([short], ["-a %s: no PCI device %s" % (short, absent)]))
    if bridge is not None:
        cases.append(([bridge, absent], [
            "-a %s: %s is not a network controller" % (bridge, bridge),
            "-a %s: no PCI device" % absent]))
    # Beside --no-pci (as every example has it) the PCI bus is off: the
    # device is never probed, whatever it is; that was blamed on the
    # device (not there, or "bind it to vfio-pci").
    if bridge is not None:
        cases.append(([bridge], ["-a %s: given with --no-pci" % bridge],
                      ["--no-pci"]))
    for devs_given, needles, *more in cases:
        args = more[0] if more else []
        for d in devs_given:
            args += ["-a", d]
        rc, out, err = run(["--replay", capture(), "--loops", "1", "--reps",
                            "1", "--strategy", "bh", "--no-table",
                            "--report", path("pci.json")],
                           eal=eal + args)
        assert rc == 1, "%s: exit %d: %s" % (devs_given, rc, err[-800:])
        for needle in needles:
            assert needle in err, "%r not in: %s" % (needle, err[-800:])
        assert not os.path.exists(path("pci.json")), "a report was written"


def case_in_memory_under_no_huge_fallback():
    # With no usable hugepages rxrefill falls back to --no-huge, which
    # EAL refuses beside --in-memory ("--legacy-mem is not compatible"):
    # a user's --in-memory made every run fail on such a machine. In a
    # mount namespace of its own with no hugetlbfs, it must run and say
    # what it did with the option.
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        raise tap.Skip("needs root and unshare")
    prefix = mine("rxr_inmem_%d" % os.getpid())
    report = path("inmem.json")
    cmd = [RXREFILL, "-l", "0-1", "--no-pci", "--in-memory",
           "--file-prefix", prefix, "--log-level", "lib.eal:error",
           "--vdev", "net_null0", "--", "--duration", "0.2", "--warmup",
           "0.05", "--reps", "1", "--strategy", "bh", "--bulk", "on",
           "--report", report, "--no-table"]
    script = ('for m in $(awk \'$3 == "hugetlbfs" {print $2}\' '
              '/proc/mounts); do umount "$m" || exit 99; done; '
              'exec "$@"')
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh",
                        "-c", script, "sh"] + cmd, capture_output=True,
                       text=True, timeout=120)
    if p.returncode == 99:
        raise tap.Skip("cannot unmount hugetlbfs here: %s" % p.stderr[-200:])
    assert p.returncode == 0, "exit %d: %s%s" % (
        p.returncode, p.stdout[-1500:], p.stderr[-1500:])
    assert "falling back to --no-huge" in p.stdout and \
        "(--in-memory as --no-shconf)" in p.stdout, p.stdout[:1500]
    assert "ordinary memory (--no-huge)" in p.stdout, p.stdout[:1500]
    with open(report) as f:
        assert json.load(f)["runs"][0]["rx_packets"] > 0


def case_secondary_process_refused():
    # Beside a running primary, a secondary of the same prefix went on to
    # configure the primary's port and failed in ethdev's words ("Port 0
    # must be stopped"). It is refused as what it is, a usage error, and
    # before EAL: a primary on --no-huge shares no configuration, and
    # EAL's "Cannot init config" said nothing of why.
    prefix = mine("rxr_second_%d" % os.getpid())
    eal = ["--no-pci", "--file-prefix", prefix, "--log-level",
           "lib.eal:error"]
    primary = subprocess.Popen(
        [RXREFILL, "-l", "0"] + eal + ["--vdev", "net_null0", "--",
                                       "--main-polls", "--duration", "20",
                                       "--warmup", "0", "--reps", "1",
                                       "--strategy", "bh", "--bulk", "on",
                                       "--no-table"] + ["--progress",
                                                         "runs"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Its first line comes once EAL is up: the prefix is taken.
        first = primary.stdout.readline()
        assert first, "the primary said nothing: %s" % primary.poll()
        # DPDK's vdev bus leaks its secondary-side scan (LeakSanitizer
        # in the asan build): not this program's, and not what is tested.
        env = dict(os.environ, ASAN_OPTIONS=":".join(
            o for o in (os.environ.get("ASAN_OPTIONS"), "detect_leaks=0")
            if o))
        p = subprocess.run([RXREFILL, "-l", "1", "--proc-type", "secondary"]
                           + eal + ["--", "--main-polls", "--duration", "0.2",
                                    "--reps", "1"], capture_output=True,
                           text=True, timeout=60, env=env)
        assert p.returncode == 2 and "a secondary process" in p.stderr, \
            "exit %d: %s" % (p.returncode, p.stderr[-800:])
    finally:
        primary.send_signal(signal.SIGINT)
        primary.communicate(timeout=60)
    assert primary.returncode == 128 + signal.SIGINT, primary.returncode


def case_virtual_device_without_port():
    # A --vdev whose PMD fails: EAL goes on, and the run went on with the
    # other ports, or said only "no port: give ... a virtual device with
    # --vdev". Named, and the run stops. A net_pcap capture that is not
    # there is said before EAL, as --replay's is.
    missing = path("not-there.pcap")
    for extra in ([], ["--replay", capture(), "--loops", "1"]):
        rc, out, err = run(extra + ["--reps", "1", "--duration", "0.2",
                                    "--strategy", "bh", "--no-table",
                                    "--report", path("vdev.json")],
                           eal=EAL + ["--vdev",
                                      "net_pcap7,rx_pcap=%s" % missing])
        assert rc == 1, "%s: exit %d: %s" % (extra, rc, err[-800:])
        assert "--vdev net_pcap7 %s: No such file" % missing in err, \
            err[-800:]
        assert not os.path.exists(path("vdev.json")), "a report was written"


def case_lcores_outside_cpuset():
    # A container or cgroup limited to some CPUs, and -l, -c or --lcores
    # naming another (the README's '(0,1)@0,2@1'): EAL failed with "Invalid
    # argument" and a note about its interrupt thread, or aborted when the
    # CPU was a worker lcore's. Now the run stops before EAL, on a line
    # naming the option, the CPU and the CPUs the process may use.
    last = os.cpu_count() - 1
    if last < 1:
        raise tap.Skip("one CPU: no CPU outside a cpuset of one")
    # A range without '@' pins each lcore to its own CPU, as -l does.
    for lcores in (["-l", "0,%d" % last], ["--lcores", "(0,1)@%d,2@0" % last],
                   ["-c", "0x3"], ["--lcores", "0-%d" % last]):
        p = run_in_cpuset(last, [RXREFILL] + lcores + EAL[2:] + [
            "--", "--replay", capture(), "--loops", "1", "--reps", "1",
            "--strategy", "bh", "--no-table", "--report",
            path("cpuset.json")])
        if p is None:
            raise tap.Skip("no cpuset cgroup can be made here (root, "
                           "cgroup v1 cpuset or v2 with cpuset enabled)")
        needle = ("%s %s pins an lcore to CPU 0, where this process cannot "
                  "run: it may run only on CPU %d" % (lcores[0], lcores[1],
                                                      last))
        assert p.returncode == 1, "%s: exit %d: %s" % (lcores, p.returncode,
                                                       p.stderr[-800:])
        assert needle in p.stderr, "%r not in: %s" % (needle, p.stderr[-800:])
        assert not os.path.exists(path("cpuset.json")), "a report was written"
    # The same CPUs given as the cpuset has them: it runs.
    p = run_in_cpuset(last, [RXREFILL, "--lcores", "(0,1)@%d" % last] +
                      EAL[2:] + ["--", "--replay", capture(), "--loops", "1",
                                 "--reps", "1", "--strategy", "bh",
                                 "--no-table", "--report",
                                 path("cpuset.json")])
    assert p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-800:])
    # One CPU, and a consumer asked for on another: refused before the run
    # (it ran on the poll's own CPU, reported as other-cpu).
    p = run_in_cpuset(last, [RXREFILL, "--lcores", "(0,1)@%d" % last] +
                      EAL[2:] + ["--", "--replay", capture(), "--loops", "1",
                                 "--reps", "1", "--strategy", "bh",
                                 "--consumer", "other-cpu", "--no-table",
                                 "--report", path("cpuset.json")])
    needle = ("--consumer other-cpu: poll lcore 1 runs on CPU %d and this "
              "process may run on no other" % last)
    assert p.returncode == 2 and needle in p.stderr, "exit %d: %s" % (
        p.returncode, p.stderr[-800:])


def main():
    return tap.run(globals(), ONLY, tmp=TMP)


if __name__ == "__main__":
    sys.exit(main())
