#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The ecosystem items end to end (TAP output for meson): --version,
the report's environment, per-queue/lcore/xstats and latency percentiles,
live telemetry over the socket with dpdk-telemetry.py and --metrics-file,
rxrefill-compare --format and its environment warnings, rxrefill-plot.

Usage: test_eco.py RXREFILL RXREFILL_GEN RXREFILL_COMPARE RXREFILL_PLOT
       SOURCE_ROOT PROJECT_VERSION [CASE...]
"""

import csv
from fractions import Fraction
import io
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import fixtures
import tap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine  # noqa: E402

RXREFILL, GEN, COMPARE, PLOT, SRC, VERSION = sys.argv[1:7]
ONLY = set(sys.argv[7:])
TMP = tempfile.mkdtemp(prefix="rxr_eco_")
PREFIX = mine("rxr_eco_%d" % os.getpid())
EAL = ["-l", "0-1", "--no-pci", "--file-prefix", PREFIX,
       "--log-level", "lib.eal:error"]
# Debian's python3-matplotlib is for the system interpreter.
SYS_PY = "/usr/bin/python3"


def sh(cmd, timeout=120, **kw):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=timeout, **kw)


_cache = {}


def capture():
    if "cap" not in _cache:
        prefix = os.path.join(TMP, "cap")
        p = sh([GEN, "-o", prefix, "--quiet", "-q", "2", "-s", "8", "-n",
                "400", "-l", "1024"])
        assert p.returncode == 0, p.stderr
        with open(prefix + ".json") as f:
            _cache["cap"] = json.load(f)
    m = _cache["cap"]
    return m, [q["file"] for q in m["queues"]]


def report(name="r", strategies="bh,zone", extra=(), loops=2, reps=2):
    """A finite replay; the report and stdout, cached by name."""
    if name in _cache:
        return _cache[name]
    _, files = capture()
    path = os.path.join(TMP, name + ".json")
    p = sh([RXREFILL] + EAL + ["--", "--replay", ",".join(files), "--loops",
            str(loops), "--reps", str(reps), "--strategy", strategies,
            "--bulk", "on", "--report", path,
            # Time every refill: short runs still fill the histogram.
            "--latency-every", "1"] + list(extra), timeout=300)
    assert p.returncode == 0, "exit %d\n%s\n%s" % (
        p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    with open(path) as f:
        _cache[name] = (path, json.load(f), p.stdout, p.stderr)
    return _cache[name]


def git_head():
    if shutil.which("git") is None:
        print("# git not installed: --version's commit not checked")
        return None
    p = sh(["git", "-C", SRC, "rev-parse", "--short=7", "HEAD"])
    return p.stdout.strip() if p.returncode == 0 else None


# --- --version ------------------------------------------------------------

def case_version():
    head = git_head()
    for prog, name, dpdk in ((RXREFILL, "rxrefill", True),
                             (GEN, "rxrefill-gen", True),
                             (COMPARE, "rxrefill-compare", True),
                             (PLOT, "rxrefill-plot", False)):
        p = sh([SYS_PY, prog, "--version"] if prog == PLOT else
               [prog, "--version"])
        assert p.returncode == 0, "%s --version: exit %d %s" % (
            name, p.returncode, p.stderr)
        first = p.stdout.splitlines()[0]
        assert first.startswith("%s %s" % (name, VERSION)), first
        if head is not None:
            # Built from this checkout: git describe names its commit.
            m = re.search(r"\(git ([0-9a-f]{7,})", first)
            assert m and head.startswith(m.group(1)[:7]), \
                "%s: %r does not name HEAD %s" % (name, first, head)
        if dpdk:
            assert re.search(r"built against DPDK \d+\.\d+", p.stdout), \
                p.stdout
    p = sh([RXREFILL, "--version"])
    assert re.search(r"running with DPDK \d+\.\d+", p.stdout), p.stdout


def case_log_levels():
    """The rxrefill logtype obeys EAL's --log-level."""
    _, files = capture()
    args = ["--", "--replay", files[0], "--loops", "1", "--reps", "1",
            "--strategy", "bh", "--bulk", "on", "--no-table", "--report",
            os.path.join(TMP, "log.json")]
    dbg = sh([RXREFILL] + EAL + ["--log-level=rxrefill:debug"] + args)
    assert dbg.returncode == 0, dbg.stderr[-1000:]
    assert "rxrefill: telemetry: /rxrefill/status" in dbg.stderr, \
        dbg.stderr[-2000:]
    assert "telemetry:" not in dbg.stdout, "a diagnostic on stdout"
    quiet = sh([RXREFILL] + EAL + ["--log-level=rxrefill:error"] + args)
    assert quiet.returncode == 0, quiet.stderr[-1000:]
    assert "rxrefill: telemetry:" not in quiet.stderr, quiet.stderr[-2000:]
    # Warnings (debug checks, a remote NUMA node) go at warning level.
    assert "not for comparison" not in quiet.stderr, quiet.stderr[-2000:]
    assert "report " in quiet.stdout, "results left stdout"
    # The app's errors go through the logtype too: level critical hides
    # them, the exit status still says.
    for level, shown in (("error", True), ("critical", False)):
        p = sh([RXREFILL] + EAL + ["--log-level=rxrefill:" + level, "--",
                "--reps", "1", "--report", os.path.join(TMP, "np.json")])
        assert p.returncode != 0, p.stderr
        assert ("rxrefill: no port" in p.stderr) == shown, (
            level, p.stderr[-1500:])


# --- the report -------------------------------------------------------------

def case_env():
    path, rep, out, err = report()
    env = rep["env"]
    v = sh([RXREFILL, "--version"]).stdout.splitlines()[0]
    assert v == "rxrefill " + env["rxrefill_version"], (v, env)
    b = env["build"]
    assert isinstance(b["debug_checks"], bool) and b["type"], b
    assert b["compiler"].split()[0] in ("gcc", "clang"), b
    u = os.uname()
    assert env["kernel"]["uname"] == "%s %s %s %s" % (
        u.sysname, u.release, u.version, u.machine), env["kernel"]
    with open("/proc/cmdline") as f:
        cmdline = f.read().split()
    for k in ("isolcpus", "nohz_full"):
        want = next((w.split("=", 1)[1] for w in cmdline
                     if w.startswith(k + "=")), None)
        assert env["kernel"][k] == want, (k, env["kernel"][k], want)
    roles = sorted(c["role"] for c in env["lcore_cpus"])
    assert roles == ["main", "poll"], env["lcore_cpus"]
    for c in env["lcore_cpus"]:
        gp = "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor" % \
            c["cpu"]
        want = open(gp).read().strip() if os.path.exists(gp) else None
        assert c["governor"] == want, (c, want)
    if env["memory"] == "no-huge":
        assert env["hugepage_size_kb"] is None, env
    else:
        assert env["hugepage_size_kb"] in (2048, 1048576), env
    for p in env["ports"]:
        for k in ("link_speed_mbps", "link_up", "fw_version", "numa_node",
                  "remote_poll_lcores"):
            assert k in p, (k, p)
        # As seen while receiving: net_pcap's link is up once started.
        assert p["link_up"] is True and p["link_speed_mbps"] > 0, p
    if b["debug_checks"]:
        assert "not for comparison" in err, err[-1000:]
        assert "not for comparison" in out, out[-1000:]


def case_queues_lcores_xstats():
    manifest, _ = capture()
    path, rep, out, err = report()
    want_q = {q["queue"]: q for q in manifest["queues"]}
    for r in rep["runs"]:
        tag = "%s rep %d" % (r["strategy"], r["rep"])
        qs = r["queues"]
        assert sum(q["packets"] for q in qs) == r["rx_packets"], tag
        assert sum(q["bytes"] for q in qs) == r["rx_bytes"], tag
        for q in qs:
            mq = want_q[q["queue"]]
            assert q["packets"] == mq["packets"] * 2, (tag, q, mq)
            assert q["lcore"] == 1, q
            # net_pcap keeps per-queue counters: they agree with ours.
            assert q["q_ipackets"] == q["packets"], (tag, q)
            assert q["q_ibytes"] == q["bytes"], (tag, q)
        for lc in r["lcores"]:
            assert 0 <= lc["busy_share"] <= 1, lc
            assert lc["busy_cycles"] <= lc["cycles"], lc
        changed = r["xstats"][0]["changed"]
        assert changed.get("rx_good_packets") == r["rx_packets"], \
            (tag, changed)
        assert all(v != 0 for v in changed.values()), changed


def percentile(buckets, p):
    total = sum(b["count"] for b in buckets)
    # Exact: 99.9% of 1000 is the 999th value.
    rank = max(1, math.ceil(Fraction(str(p)) * total / 100))
    cum = 0
    for b in buckets:
        if cum + b["count"] >= rank:
            return b, cum, rank
        cum += b["count"]
    raise AssertionError("rank past the histogram")


def case_percentiles():
    # The full table prints them; the brief one (the default) does not.
    path, rep, out, err = report("full", extra=["--table", "full"])
    for r in rep["runs"]:
        h = r["refill_latency_hist"]["buckets"]
        pc = r["refill_latency_percentiles"]
        for name, p in (("p50", 50), ("p90", 90), ("p99", 99),
                        ("p99.9", 99.9)):
            b, cum, rank = percentile(h, p)
            got = pc[name]
            assert (got["lo"], got["hi"]) == (b["lo"], b["hi"]), \
                (name, got, b)
            want = b["lo"] + (b["hi"] - b["lo"]) * (rank - cum) / b["count"]
            assert abs(got["ns"] - want) < 1e-6 * max(1, want), (got, want)
        assert pc["p50"]["ns"] <= pc["p90"]["ns"] <= pc["p99"]["ns"] <= \
            pc["p99.9"]["ns"], pc
    assert "Refill latency percentiles" in out, out[-2000:]
    for cfg in ("bh-bulk", "zone-bulk"):
        assert re.search(r"^%s\s+\d+ \[" % cfg, out, re.M), cfg


def case_detail_table():
    _, files = capture()
    path, rep, out, err = report("detail", strategies="bh", reps=1,
                                 extra=["--detail"])
    r = rep["runs"][0]
    assert "Per queue:" in out and "Per poll lcore:" in out, out[-3000:]
    # Repetitions from 1, as the progress lines count them.
    assert re.search(r"bh-bulk rep 1\s+0\s+0\s+1\s+%d\s" % (
        r["queues"][0]["packets"]), out), out[-3000:]
    assert re.search(r"rx_good_packets\s+%d$" % r["rx_packets"], out,
                     re.M), out[-3000:]
    p = sh([COMPARE, "--detail", path])
    assert p.returncode == 0 and "Per poll lcore:" in p.stdout, p.stdout


# --- telemetry --------------------------------------------------------------

def telemetry(cmds):
    """Replies of dpdk-telemetry.py (Debian's dpdk-dev) to cmds."""
    tool = shutil.which("dpdk-telemetry.py") or "/usr/bin/dpdk-telemetry.py"
    p = sh([tool, "-f", PREFIX], input="\n".join(cmds) + "\n", timeout=30)
    replies = []
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            replies.append(json.loads(line))
    return replies, p


def case_telemetry_and_metrics():
    _, files = capture()
    metrics = os.path.join(TMP, "live.prom")
    rpath = os.path.join(TMP, "live.json")
    cmd = [RXREFILL] + EAL + ["--", "--replay", ",".join(files),
                              "--strategy", "bh", "--bulk", "on", "--reps",
                              "1", "--warmup", "0.5", "--duration", "30",
                              "--stats-period", "0.5", "--report", rpath,
                              "--metrics-file", metrics, "--no-table"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    status = stats = None
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            time.sleep(0.5)
            assert proc.poll() is None, "rxrefill ended early: %s" % (
                proc.communicate()[1][-2000:])
            replies, p = telemetry(["/rxrefill/status", "/rxrefill/stats"])
            if len(replies) < 2:
                continue
            status = replies[0]["/rxrefill/status"]
            stats = replies[1]["/rxrefill/stats"]
            if status["phase"] == "measuring" and \
                    float(stats["mpps"]) > 0 and stats["rx_packets"] > 0:
                break
        assert status is not None, "no telemetry reply: %s %s" % (
            p.stdout[-1000:], p.stderr[-1000:])
        print("# /rxrefill/status " + json.dumps(status))
        print("# /rxrefill/stats " + json.dumps(stats))
        assert status["phase"] == "measuring", status
        assert status["strategy"] == "bh" and status["bulk"] == "on", status
        assert status["repetition"] == 1 and status["repetitions"] == 1
        assert 0 < float(status["elapsed_s"]) < float(status["uptime_s"]), \
            status
        assert float(stats["mpps"]) > 0 and float(stats["gbps"]) > 0, stats
        assert set(stats["drops"]) >= {"rx_nombuf", "imissed",
                                       "consumer_full"}, stats
        pool = stats["pool_port0"]
        assert pool["pcp_hits"] > 0, pool
        for k in ("pcp_misses", "zone_lock_acquisitions",
                  "zone_lock_contended", "zone_lock_wait_share",
                  "deferred_queued", "deferred_drained"):
            assert k in pool, (k, pool)
        # Queued counts the frames still waiting, as the report does.
        assert pool["deferred_queued"] >= pool["deferred_drained"], pool
        # The metrics file, mid-run: whole, parseable, the same figures.
        text = open(metrics).read()
        vals = {}
        for line in text.splitlines():
            if line.startswith("#"):
                assert re.match(r"# (HELP|TYPE) rxrefill_\w+ ", line), line
                continue
            m = re.match(r'^(rxrefill_\w+)\{([^}]*)\} (-?[0-9.e+]+)$', line)
            assert m, "not Prometheus text: %r" % line
            vals[(m.group(1), m.group(2))] = float(m.group(3))
        lab = 'strategy="bh",bulk="on",zeroing="none"'
        # Every sample has the run's labels, as doc/ecosystem.md says.
        assert all(k[1].startswith(lab) for k in vals), vals
        assert vals[("rxrefill_phase", lab + ',phase="measuring"')] == 1, \
            vals
        assert vals[("rxrefill_rx_packets_total", lab)] > 0, vals
        assert vals[("rxrefill_pcp_hits_total", lab + ',port="0"')] > 0
        left = [f for f in os.listdir(TMP) if f.startswith("live.prom.tmp")]
        assert not left or len(left) == 1, left   # one being written at most
    finally:
        proc.send_signal(2)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    assert proc.returncode in (0, 130), proc.returncode
    assert not [f for f in os.listdir(TMP) if f.startswith("live.prom.tmp")]


def case_metrics_file_bad_path():
    _, files = capture()
    bad = os.path.join(TMP, "no", "such", "dir", "m.prom")
    p = sh([RXREFILL] + EAL + ["--", "--replay", ",".join(files), "--loops",
            "1", "--reps", "1", "--strategy", "bh", "--metrics-file", bad,
            "--report", os.path.join(TMP, "bad.json")])
    assert p.returncode != 0, "a metrics file nowhere was accepted"
    assert bad in p.stderr, p.stderr[-1000:]
    # Not a capture, not the report, not a directory.
    report = os.path.join(TMP, "same.json")
    for path, needle in ((files[0], files[0]), (report, report),
                         (TMP, TMP)):
        p = sh([RXREFILL] + EAL + ["--", "--replay", ",".join(files),
                "--loops", "1", "--reps", "1", "--strategy", "bh",
                "--metrics-file", path, "--report", report])
        assert p.returncode != 0 and needle in p.stderr, (path, p.stderr)
    with open(files[0], "rb") as f:
        assert f.read(4) in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4",
                             b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d"), \
            "the capture was overwritten"


# --- compare --format -------------------------------------------------------

def two_reports():
    a, ra, _, _ = report()
    # A second report whose environment differs the way machines do.
    doc = json.loads(json.dumps(ra))
    doc["env"]["memory"] = "hugepages" if doc["env"]["memory"] == \
        "no-huge" else "no-huge"
    doc["env"]["rxrefill_version"] = "9.9.9"
    doc["env"]["build"]["type"] = "debugoptimized"
    doc["env"]["cpu_model"] = "Other CPU"
    doc["env"]["dpdk_version"] = "DPDK 23.11.0"
    for r in doc["runs"]:
        r["gbps"] = r["gbps"] * 2
    b = os.path.join(TMP, "other.json")
    with open(b, "w") as f:
        json.dump(doc, f)
    return a, b


def case_compare_csv():
    a, b = two_reports()
    pj = sh([COMPARE, "--format", "json", a, b])
    assert pj.returncode == 0, pj.stderr
    doc = json.loads(pj.stdout)
    p = sh([COMPARE, "--format", "csv", a, b])
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert list(rows[0].keys()) == ["config", "metric", "statistic",
                                    "report", "value", "delta_pct",
                                    "better", "p", "significant",
                                    "ratio", "ci_lo", "ci_hi", "test",
                                    "paired", "n", "n_base",
                                    "p_unpaired", "difference"], \
        rows[0].keys()
    labels = [r["label"] for r in doc["reports"]]
    pct = doc["refill_latency_percentiles"]
    assert len(rows) == (len(doc["rows"]) + len(pct)) * len(labels), (
        len(rows), len(doc["rows"]), len(pct))
    keyed = {(r["config"], r["metric"], r["statistic"], r["report"]): r
             for r in rows}
    assert len(keyed) == len(rows), "a row repeats"
    for jr in doc["rows"]:
        for c, lab in enumerate(labels):
            r = keyed[(jr["config"], jr["metric"], jr["stat"], lab)]
            v = jr["values"][c]
            if v is None:
                assert r["value"] == "", r
            else:
                assert abs(float(r["value"]) - v) <= 1e-9 * max(1, abs(v)), \
                    (r, v)
            pv = (jr.get("p") or [None] * len(labels))[c]
            assert (r["p"] == "") if pv is None else \
                abs(float(r["p"]) - pv) < 1e-9, (r, pv)
            sig = (jr.get("significant") or [None] * len(labels))[c]
            assert r["significant"] == ("" if sig is None else
                                        str(sig).lower()), (r, sig)
    g = keyed[("bh-bulk", "gbps", "median", "other")]
    assert abs(float(g["delta_pct"]) - 100.0) < 1e-6, g
    # Percentiles over all repetitions: from the summed histogram.
    _, rep, _, _ = report()
    for cfg in ("bh-bulk", "zone-bulk"):
        s, bulk = cfg.split("-")[0], True
        hist = {}
        for r in rep["runs"]:
            if r["strategy"] == s:
                for bb in r["refill_latency_hist"]["buckets"]:
                    hist[bb["lo"]] = dict(bb, count=hist.get(
                        bb["lo"], {"count": 0})["count"] + bb["count"])
        buckets = [hist[k] for k in sorted(hist)]
        for name, pt in (("p50", 50), ("p99", 99), ("p99.9", 99.9)):
            bk, cum, rank = percentile(buckets, pt)
            want = bk["lo"] + (bk["hi"] - bk["lo"]) * (rank - cum) / \
                bk["count"]
            for lab in labels:
                r = keyed[(cfg, "refill_latency." + name, "all_reps", lab)]
                assert abs(float(r["value"]) - want) < 1e-6 * want, (r, want)
                assert r["better"] == "lower" and float(r["delta_pct"]) == 0
    text = sh([COMPARE, a, b]).stdout
    assert re.search(r"^bh-bulk\.p99\s+\d+ \[", text, re.M), text[-1500:]
    print("# CSV of a comparison (first rows):")
    for line in p.stdout.splitlines()[:8]:
        print("#   " + line)


def case_compare_markdown_and_warnings():
    a, b = two_reports()
    p = sh([COMPARE, "-f", "markdown", a, b])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("| config | metric | statistic | r | other |"), \
        lines[0]
    ncol = lines[0].count("|")
    assert all(l.count("|") - l.count("\\|") == ncol for l in lines), lines[:3]
    assert any(l.startswith("| bh-bulk | gbps | median |") and "+100.00%" in l
               for l in lines), lines
    assert any(l.startswith("| zone-bulk | refill_latency.p99 | all_reps |")
               for l in lines), lines
    for what in ("memory backing", "build type", "CPU", "DPDK version",
                 "rxrefill version"):
        assert "warning: %s differs" % what in p.stderr, (what, p.stderr)
    same = sh([COMPARE, "-f", "csv", a, a])
    assert "differs" not in same.stderr, same.stderr
    bad = sh([COMPARE, "--format", "xml", a])
    assert bad.returncode == 2 and '"xml"' in bad.stderr, bad.stderr


# --- plots ----------------------------------------------------------------

def check_png(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    w, h = struct.unpack(">II", head[16:24])
    assert w > 100 and h > 100, (path, w, h)


def svg_texts(path):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg"), root.tag
    return " ".join(t for e in root.iter() for t in [e.text] if t)


def case_plot():
    a, b = two_reports()
    sweep = os.path.join(TMP, "sweep.json")
    fixtures.write_sweep(sweep)
    # Another generator's sweep, as points.
    other = os.path.join(TMP, "points.json")
    with open(other, "w") as f:
        json.dump({"schema": "rxrefill-sweep/x", "points": [
            {"config": "trex-run", "offered_gbps": g, "loss_pct": l}
            for g, l in ((10, 0), (40, 1.5))]}, f)
    out = os.path.join(TMP, "fig")
    p = sh([SYS_PY, PLOT, "-o", out, "--sweep", sweep, "--sweep", other, a,
            b], timeout=180)
    assert p.returncode == 0, p.stderr
    configs = sorted({"%s-%s" % (r["strategy"], "bulk" if r["bulk"] else
                                 "nobulk") for r in report()[1]["runs"]})
    for name in ("gbps", "latency", "sweep"):
        check_png(out + "-%s.png" % name)
        text = svg_texts(out + "-%s.svg" % name)
        for c in (configs if name != "sweep" else ["bh-bulk", "zone-bulk",
                                                    "Mpps"]):
            assert c in text, (name, c, text[:500])
    assert "other" in svg_texts(out + "-gbps.svg")     # the legend
    check_png(out + "-sweep2.png")
    assert "trex-run" in svg_texts(out + "-sweep2.svg")
    bad = sh([SYS_PY, PLOT, "-o", out, os.path.join(TMP, "cap.json")])
    assert bad.returncode == 1 and "cap.json" in bad.stderr, bad.stderr


def plot_module():
    """rxrefill-plot's functions, loaded from the script."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("rxrefill_plot", PLOT)
    spec = importlib.util.spec_from_loader("rxrefill_plot", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def help_strategies():
    """The strategy names rxrefill --help lists for --strategy."""
    p = sh([RXREFILL, "--help"])
    m = re.search(r"--strategy LIST\s+(.*?)comma separated", p.stdout)
    assert m, p.stdout[:800]
    names = [w.strip() for w in m.group(1).split(",") if w.strip()]
    assert len(names) >= 4, names
    return names


def case_plot_trust():
    """One colour per configuration in every figure, whiskers that are the
    report's own interval, a caption naming what made the report, an
    honest sweep axis."""
    try:
        import matplotlib
    except ImportError:
        # This interpreter has no matplotlib: the check runs under the one
        # rxrefill-plot runs with.
        if sys.executable == SYS_PY:
            raise tap.Skip("matplotlib is missing for " + SYS_PY)
        p = sh([SYS_PY, os.path.abspath(__file__)] + sys.argv[1:7] +
               ["plot_trust"], timeout=300)
        assert p.returncode == 0 and "ok 1 - plot_trust" in p.stdout and \
            "SKIP" not in p.stdout, p.stdout + p.stderr
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    mod = plot_module()
    names = help_strategies()
    dark = [mod.config_colour(plt, n + "-bulk") for n in names]
    light = [mod.config_colour(plt, n + "-nobulk") for n in names]
    assert len(set(dark + light)) == 2 * len(names), (names, dark, light)

    a, _, _, _ = report()
    doc = mod.load_reports([a])[0]

    class Recorder:
        def __init__(self):
            self.bars, self.whiskers = [], []

        def bar(self, x, h, *args, **kw):
            self.bars.append((x, h, kw.get("color")))

        def errorbar(self, x, m, yerr=None, **kw):
            self.whiskers.append((m - yerr[0][0], m + yerr[1][0]))

        def __getattr__(self, name):
            return lambda *args, **kw: None

    configs = mod.configs_of([doc])
    ax = Recorder()
    mod.plot_rate(ax, plt, [doc], configs, "gbps", "Gbit/s")
    want = [tuple(s["gbps"]["ci95"]) for c in configs for s in doc["summary"]
            if mod.config_label(s) == c and s["gbps"]["ci95"][0] is not None]
    assert len(ax.whiskers) == len(want) and want, (ax.whiskers, want)
    for got, exp in zip(ax.whiskers, want):
        assert all(abs(g - e) < 1e-9 * max(1.0, abs(e))
                   for g, e in zip(got, exp)), (got, exp)
    # The same configuration keeps its colour in a report that lists the
    # configurations the other way round.
    rev = mod.configs_of([doc])[::-1]
    ax2 = Recorder()
    mod.plot_rate(ax2, plt, [doc], rev, "gbps", "Gbit/s")
    col = {c: b[2] for c, b in zip(configs, ax.bars)}
    assert all(col[c] == b[2] for c, b in zip(rev, ax2.bars)), (col, ax2.bars)

    out = os.path.join(TMP, "trust")
    p = sh([SYS_PY, PLOT, "-o", out, a], timeout=180)
    assert p.returncode == 0, p.stderr
    text = svg_texts(out + "-gbps.svg")
    for what in (doc["env"]["cpu_model"], doc["env"]["memory"],
                 doc["env"]["rxrefill_version"], "Mpps"):
        assert what in text, (what, text[:600])
    assert "Histogram" in svg_texts(out + "-latency.svg")

    # A sweep that says how long each step sent: the axis is what was sent.
    sweep = os.path.join(TMP, "sent.json")
    with open(sweep, "w") as f:
        json.dump({"schema": "rxrefill-sweep/1", "unit": "pps", "seconds": 2,
                   "tolerance": 0.0, "strategies": [
                       {"strategy": "bh", "bulk": True, "no_drop_rate": None,
                        "first_failing_rate": 1e6, "at_max": False,
                        "steps": [{"rate": 1e6, "sent": 600000,
                                   "rx_packets": 500000, "loss": 1 / 6}]}]},
                  f)
    with open(sweep) as f:
        xlabel, lines, marks, _ = mod.sweep_points(sweep, json.load(f))
    (x, loss), = lines["bh-bulk"]
    assert "sent" in xlabel and abs(x - 0.3) < 1e-12 and \
        abs(loss - 100 / 6) < 1e-9, (xlabel, lines)
    assert marks == {}, marks     # no no-drop rate, no line at x = 0


def main():
    ret = tap.run(globals(), ONLY)
    shutil.rmtree(TMP, ignore_errors=True)
    return ret


if __name__ == "__main__":
    sys.exit(main())
