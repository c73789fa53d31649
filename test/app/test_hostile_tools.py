#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Hostile input for the Python tools, rxrefill-plot and rxrefill-sweep
(TAP output for meson); test_hostile.py does the same for the C programs.

What a user owns is never replaced (inputs, devices, FIFOs, directories,
the targets of symbolic links), no input or output blocks, a full disk
leaves what was there, a malformed report is refused by name as
rxrefill-compare refuses it, every usage error exits 2, and nothing a user
can type or feed gives a traceback. The sweep stops its children on every
signal and writes strict JSON. Device nodes are made with mknod and a tiny
tmpfs is mounted in a temporary directory (root only: skipped otherwise).
Usage: test_hostile_tools.py RXREFILL GEN COMPARE PLOT SWEEP [CASE...]
"""

import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

import tap
from fixtures import run_in_cpuset

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine  # noqa: E402

RXREFILL, GEN, COMPARE, PLOT, SWEEP = (os.path.abspath(a)
                                       for a in sys.argv[1:6])
# The tools from the source tree check their files through this one.
os.environ["RXREFILL_COMPARE"] = COMPARE
ONLY = set(sys.argv[6:])
TMP = tempfile.mkdtemp(prefix="rxr_hostile_tools_")
PREFIX = mine("rxr_htools_%d" % os.getpid())
EAL = ["-l", "0-1", "--no-pci", "--no-huge", "-m", "512", "--file-prefix",
       PREFIX, "--log-level", "lib.eal:error"]
# Debian's python3-matplotlib is for the system interpreter.
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
    else sys.executable


def path(name):
    return os.path.join(TMP, name)


def sh(cmd, timeout=60, **kw):
    """Run; a hang is a failure with the command named, never a hang."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise AssertionError("hung for %d s: %s" % (timeout,
                                                    " ".join(cmd)[:300]))


def plot(*args, timeout=120, **kw):
    return sh([PY, PLOT] + list(args), timeout=timeout, **kw)


def sweep(*args, timeout=120, **kw):
    return sh([sys.executable, SWEEP] + list(args), timeout=timeout, **kw)


def clean(p, what):
    """No traceback, no death by a signal."""
    assert "Traceback" not in p.stderr, "%s: traceback:\n%s" % (
        what, p.stderr[-2000:])
    assert 0 <= p.returncode < 128, "%s: exit %d" % (what, p.returncode)


def help_version(tool, option):
    """--help and --version succeed; --help names OPTION."""
    for a in ("--help", "--version"):
        p = tool(a)
        assert p.returncode == 0, "%s: exit %d %s" % (a, p.returncode,
                                                      p.stderr)
    assert option in tool("--help").stdout


def refused(p, status, needle, what):
    clean(p, what)
    assert p.returncode == status, "%s: exit %d, not %d: %s" % (
        what, p.returncode, status, p.stderr[-1500:])
    assert needle in p.stderr, "%s: message lacks '%s': %s" % (
        what, needle, p.stderr[-1500:])


def digest(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def node_id(p):
    st = os.lstat(p)
    return stat.S_IFMT(st.st_mode), st.st_ino


def is_root():
    return os.geteuid() == 0


_cache = {}


def report():
    """One real report, made once."""
    if "report" not in _cache:
        prefix = path("cap")
        p = sh([GEN, "-o", prefix, "--quiet", "-q", "1", "-s", "4", "-n",
                "200"])
        assert p.returncode == 0, p.stderr
        rep = path("r.json")
        p = sh([RXREFILL] + EAL + ["--", "--replay", prefix + ".q0.pcap",
                                   "--loops", "2", "--reps", "2",
                                   "--strategy", "bh,zone", "--bulk", "on",
                                   "--no-table", "--latency-every", "1",
                                   "--report", rep], timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        _cache["report"] = rep
        _cache["capture"] = prefix + ".q0.pcap"
    return _cache["report"]


def capture():
    report()
    return _cache["capture"]


def nodes(tag):
    """A FIFO, a directory and (as root) a character device with the null
    device's numbers, made here: never taken from /dev."""
    made = {}
    p = path(tag + "_fifo")
    os.mkfifo(p)
    made["fifo"] = p
    p = path(tag + "_dir")
    os.mkdir(p)
    made["dir"] = p
    if is_root():
        p = path(tag + "_chr")
        os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        made["chr"] = p
    else:
        print("# not root: no device node made with mknod")
    return made


KIND = {"fifo": "is a FIFO", "chr": "is a character device",
        "dir": "is a directory"}


def leftovers(d):
    return [f for f in os.listdir(d) if ".tmp" in f]


# --- rxrefill-plot ----------------------------------------------------------

def case_plot_help_version():
    help_version(plot, "--output")
    p = plot("--no-such-option")
    refused(p, 2, "--no-such-option", "unknown option")
    p = plot()
    refused(p, 2, "no report", "no argument")


def case_tools_version_from_source_tree():
    # usertools/rxrefill-plot -V printed "rxrefill-plot @VERSION@": only
    # the built copy had the version substituted. Each tool prints the
    # version of the C programs (rxrefill-compare's).
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "..")
    with open(os.path.join(src, "meson.build")) as f:
        want = f.read().split("version", 1)[1].split("'")[1]
    for tool in ("rxrefill-plot", "rxrefill-sweep"):
        p = sh([PY, os.path.join(src, "usertools", tool), "-V"])
        clean(p, tool + " -V")
        assert p.returncode == 0 and "@" not in p.stdout and \
            p.stdout.startswith("%s %s" % (tool, want)), \
            "%s -V: %s%s" % (tool, p.stdout, p.stderr[-500:])


def case_plot_never_overwrites_its_input():
    # rxrefill-plot -o DIR/self DIR/self-gbps.svg overwrote the report.
    src = path("self-gbps.svg")
    shutil.copy(report(), src)
    want = digest(src)
    p = plot("-o", path("self"), src)
    refused(p, 2, "is also the input", "-o onto the input")
    assert digest(src) == want, "the input report was overwritten"
    # The same through a hard link and through a symbolic link.
    os.link(src, path("hard-gbps.svg"))
    p = plot("-o", path("hard"), src)
    refused(p, 2, "is also the input", "-o onto a hard link of the input")
    os.symlink(src, path("sym-latency.svg"))
    p = plot("-o", path("sym"), src)
    refused(p, 2, "symbolic link to the input", "-o onto a link to input")
    assert digest(src) == want and os.path.islink(path("sym-latency.svg"))


def case_plot_never_replaces_nodes():
    for kind, p in nodes("po").items():
        for ext in ("-gbps.svg", "-gbps.png", "-latency.svg"):
            target = path("n%s%s" % (kind, ext))
            os.rename(p, target)
            before = node_id(target)
            r = plot("-o", path("n" + kind), report(), timeout=60)
            refused(r, 2, KIND[kind], "output %s as %s" % (kind, ext))
            assert node_id(target) == before, "%s replaced" % kind
            os.rename(target, p)
    r = plot("-o", path("nodir/x"), report())
    refused(r, 2, "No such file or directory", "missing directory")
    r = plot("-o", TMP + "/", report())
    refused(r, 2, "not a directory", "-o DIR/")


def case_plot_symlink_target_untouched():
    # A symbolic link at an output: the link is replaced, never its target.
    target = path("elsewhere.txt")
    with open(target, "w") as f:
        f.write("mine\n")
    os.symlink(target, path("ln-gbps.svg"))
    p = plot("-o", path("ln"), report())
    clean(p, "symlinked output")
    assert open(target).read() == "mine\n", "written through the link"
    if p.returncode == 0:
        assert not os.path.islink(path("ln-gbps.svg"))


def case_outputs_never_replace_links_to_fds_or_nodes():
    # -o/--json onto a link as /dev/stdout is (to /proc/self/fd/1), or to
    # a node: the link was replaced by a file.
    links = {"fd": "/proc/self/fd/1"}
    links.update(nodes("lk"))
    want = {"fd": "a file descriptor", "fifo": "a FIFO",
            "chr": "a character device", "dir": "a directory"}
    for kind, target in links.items():
        ln = path("lk%s-gbps.svg" % kind)
        os.symlink(target, ln)
        r = plot("-o", path("lk" + kind), report(), timeout=60)
        refused(r, 2, "is a symbolic link to " + want[kind], "plot " + kind)
        assert os.path.islink(ln) and os.readlink(ln) == target, \
            "plot: link to %s replaced" % kind
        js = path("lk%s.json" % kind)
        os.symlink(target, js)
        r = sweep(*sweep_cmd(js), timeout=30)
        refused(r, 2, "is a symbolic link to " + want[kind], "sweep " + kind)
        assert os.path.islink(js) and os.readlink(js) == target, \
            "sweep: link to %s replaced" % kind


def case_chained_links_to_stdout_refused():
    # A link to /dev/stdout (itself a link) passed the one-hop check
    # while standard output was a regular file: the link was replaced.
    out = path("chain.out")
    for name, target in (("ch-gbps.svg", "/dev/stdout"),
                         ("chr-gbps.svg", "ch-gbps.svg")):
        ln = path(name)
        os.symlink(target, ln)
        with open(out, "w") as f:
            r = subprocess.run([PY, PLOT, "-o", ln[:-len("-gbps.svg")],
                                report()], stdout=f, stderr=subprocess.PIPE,
                               text=True, timeout=120)
        assert r.returncode == 2 and \
            "is a symbolic link to a file descriptor" in r.stderr, \
            "%s: exit %d: %s" % (name, r.returncode, r.stderr[-800:])
        assert os.path.islink(ln) and os.readlink(ln) == target, \
            "%s replaced" % name


def case_plot_inputs_never_block():
    n = nodes("pi")
    for kind, p in n.items():
        r = plot("-o", path("pi"), p, timeout=30)
        refused(r, 1, KIND[kind], "input " + kind)
        r = plot("-o", path("pi"), "--sweep", p, timeout=30)
        refused(r, 1, KIND[kind], "--sweep " + kind)
    r = plot("-o", path("pi"), path("missing.json"))
    refused(r, 1, "No such file or directory", "missing input")


def bad_reports():
    """(name, text) of reports rxrefill-compare refuses."""
    with open(report()) as f:
        good = f.read()
    doc = json.loads(good)

    def edit(fn):
        d = json.loads(good)
        fn(d)
        return json.dumps(d)

    return [
        ("fast", edit(lambda d: d["runs"][0].update(gbps="fast"))),
        ("negative", edit(lambda d: d["runs"][0].update(rx_packets=-1))),
        ("nostrategy", edit(lambda d: d["runs"][0].pop("strategy"))),
        ("schema", edit(lambda d: d.update(schema="rxrefill-report/9"))),
        ("runs", edit(lambda d: d.update(runs={}))),
        ("env", edit(lambda d: d.pop("env"))),
        ("bucket", edit(lambda d: d["runs"][0]["refill_latency_hist"][
            "buckets"].append({"lo": 3, "hi": 5, "count": 1}))),
        ("nan", good.replace('"gbps": ', '"gbps": NaN, "x": ', 1)),
        ("inf", good.replace('"gbps": ', '"gbps": 1e999, "x": ', 1)),
        ("dup", good.replace('"gbps": ', '"gbps": 1, "gbps": ', 1)),
        ("bigint", good.replace('"rx_bytes": ', '"rx_bytes": 1%s, "x": ' %
                                ("0" * 400), 1)),
        ("deep", "[" * 100000 + "]" * 100000),
        ("truncated", good[:len(good) // 2]),
        ("empty", ""),
        ("array", "[]"),
        ("latin1", json.dumps(doc).replace("bh", "b\xe9", 1)),
        # The noise fields (rxrefill-plot took any value in them).
        ("disturbed_null", edit(lambda d: d["runs"][0].update(
            disturbed=None))),
        ("disturbed_str", edit(lambda d: d["runs"][0].update(
            disturbed="no"))),
        ("disturbed_by", edit(lambda d: d["runs"][0].update(
            disturbed=False, disturbed_by="steal"))),
        ("noise_empty", edit(lambda d: d["runs"][0].update(
            disturbed=False, disturbed_by=[], noise={}))),
        ("noise_str", edit(lambda d: d["runs"][0].update(
            disturbed=False, disturbed_by=[], noise="quiet"))),
        # statistics{} as compare checks it: plotted as it was.
        ("alpha", edit(lambda d: d.setdefault("statistics", {}).update(
            alpha=0))),
        ("alpha_big", edit(lambda d: d.setdefault("statistics", {}).update(
            alpha=5))),
        ("stat_test", edit(lambda d: d.setdefault("statistics", {}).update(
            test=5))),
        # Stream rows as compare checks them: not checked at all.
        ("stream_port", edit(lambda d: d["runs"][0]["streams"][0].update(
            sport=70000))),
        ("stream_row", edit(lambda d: d["runs"][0]["streams"].append(5))),
        ("stream_src", edit(lambda d: d["runs"][0]["streams"][0].pop(
            "src"))),
        # Past compare's runs per configuration: plotted, in minutes.
        ("toomany", edit(lambda d: d.update(runs=[
            dict(d["runs"][0], rep=i) for i in range(4097)]))),
    ]


def case_plot_refuses_what_compare_refuses():
    for name, text in bad_reports():
        p = path("bad_%s.json" % name)
        with open(p, "w", encoding="latin-1" if name == "latin1"
                  else "utf-8") as f:
            f.write(text)
        c = sh([COMPARE, p])
        assert c.returncode != 0, "compare took %s" % name
        r = plot("-o", path("bad_" + name), p)
        refused(r, 1, p, "report " + name)
        assert not [f for f in os.listdir(TMP)
                    if f.startswith("bad_%s-" % name)], "figures written"


def case_plot_statistics_not_object():
    # A top-level "statistics" that is not an object: AttributeError in
    # ci_method(). The schema has an object there (doc/report-schema.md):
    # refused by name, as a bad field is.
    with open(report()) as f:
        good = json.load(f)
    for name, v in (("str", "bootstrap"), ("neg", -1), ("true", True),
                    ("real", 1.5), ("arr", []), ("ci95", {"ci95": 95})):
        d = dict(good, statistics=v)
        p = path("stat_%s.json" % name)
        with open(p, "w") as f:
            json.dump(d, f)
        r = plot("-o", path("stat_" + name), p)
        refused(r, 1, p, "statistics " + name)
        assert "statistics" in r.stderr, r.stderr
        assert not [f for f in os.listdir(TMP)
                    if f.startswith("stat_%s-" % name)], "figures written"


def case_plot_groups_as_compare():
    # rxrefill-plot keeps its own copy of the report's group fields
    # (pcp.hits, zeroing.policy, ...): any one removed or of another type,
    # it refuses or takes the run as compare does. The fields are those
    # of the corpus' report with every section.
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "..", "report", "corpus",
                          "one-strategy-all-sections.json")
    tried = 0
    for src in (corpus,):
        with open(src) as f:
            good = json.load(f)
        for key, sub in good["runs"][0].items():
            if not isinstance(sub, dict) or any(
                    isinstance(v, (dict, list)) for v in sub.values()):
                continue
            for field in sub:
                for how, fn in (("missing", lambda g: g.pop(field)),
                                ("type", lambda g: g.update(
                                    {field: [1]}))):
                    d = json.loads(json.dumps(good))
                    fn(d["runs"][0][key])
                    p = path("grp.json")
                    with open(p, "w") as f:
                        json.dump(d, f)
                    what = "%s.%s %s" % (key, field, how)
                    c = sh([COMPARE, p])
                    r = plot("-o", path("grp"), p)
                    clean(r, what)
                    assert (c.returncode == 0) == (r.returncode == 0), \
                        "%s: compare exit %d, plot exit %d: %s%s" % (
                            what, c.returncode, r.returncode,
                            c.stderr[-500:], r.stderr[-500:])
                    needle = "runs[0].%s.%s" % (key, field)
                    assert c.returncode == 0 or (needle in c.stderr and
                                                 needle in r.stderr), \
                        "%s: not named: %s%s" % (what, c.stderr[-500:],
                                                 r.stderr[-500:])
                    tried += 1
    assert tried > 20, tried


def case_plot_values_and_names():
    # Values compare takes but no figure can hold, and names of any size
    # and content: a clear refusal or a figure, never a traceback.
    with open(report()) as f:
        good = json.load(f)
    cases = {
        "huge": lambda d: d["runs"][0].update(gbps=1e308),
        # Each strategy its own: two runs of one (strategy, bulk, rep)
        # make a report invalid.
        "longname": lambda d: [r.update(strategy="A" * 100000 +
                                        r["strategy"]) for r in d["runs"]],
        "escape": lambda d: [r.update(strategy="\x1b[31mred\x07" +
                                      r["strategy"]) for r in d["runs"]],
    }
    for name, fn in cases.items():
        d = json.loads(json.dumps(good))
        fn(d)
        p = path("v_%s.json" % name)
        with open(p, "w") as f:
            json.dump(d, f)
        r = plot("-o", path("v_" + name), "-t", "T" * 100000, p,
                 timeout=180)
        clean(r, name)
        assert "\x1b" not in r.stderr + r.stdout, "escape printed raw"
        if name == "huge":
            refused(r, 1, "runs[0].gbps", "gbps 1e308")
        else:
            assert r.returncode == 0, "%s: exit %d %s" % (
                name, r.returncode, r.stderr[-800:])
    # A summary interval that misses its mean: compare takes the report
    # (it recomputes from runs), the plot failed on "'yerr' must not
    # contain negative values", naming its output.
    d = json.loads(json.dumps(good))
    g = d["summary"][0]["gbps"]
    g["ci95"] = [g["mean"] + 1, g["mean"] + 2]
    p = path("v_ci.json")
    with open(p, "w") as f:
        json.dump(d, f)
    assert sh([COMPARE, p]).returncode == 0, "compare refused v_ci"
    refused(plot("-o", path("v_ci"), p), 1, "summary[0].gbps.ci95",
            "an interval missing its mean")
    # Text is text, not matplotlib's mathtext: a strategy "$x^{$bh"
    # failed the figure ("cannot draw the figure: ... Expected ..."), and a
    # title "a$b$c" lost its dollars to an italic b.
    d = json.loads(json.dumps(good))
    for r in d["runs"]:
        r["strategy"] = "$x^{$" + r["strategy"]
    p = path("v_dollar.json")
    with open(p, "w") as f:
        json.dump(d, f)
    r = plot("-o", path("v_dollar"), "-t", "a$b$c", p)
    clean(r, "dollar")
    assert r.returncode == 0, "dollar: exit %d %s" % (r.returncode,
                                                      r.stderr[-800:])
    with open(path("v_dollar-gbps.svg")) as f:
        svg = f.read()
    for text in ("a$b$c", "$x^{$bh"):
        assert text in svg, "%s is not in the figure as it is" % text
    # A malformed sweep result: refused by name, no traceback.
    for name, doc in (("rate", {"schema": "rxrefill-sweep/1", "unit": "pps",
                                "strategies": [{"strategy": "bh", "steps": [
                                    {"rate": "fast", "loss": 0}]}]}),
                      ("points", {"schema": "rxrefill-sweep/x",
                                  "points": [7]}),
                      ("unit", {"schema": "rxrefill-sweep/1", "unit": [],
                                "strategies": []}),
                      # Drawn as bulk: any value but false was bulk.
                      ("bulk", {"schema": "rxrefill-sweep/1", "unit": "pps",
                                "strategies": [{"strategy": "bh",
                                                "bulk": "no", "steps": [
                                                    {"rate": 1, "loss": 0}]}]}),
                      # An empty figure, exit 0.
                      ("nostep", {"schema": "rxrefill-sweep/1", "unit": "pps",
                                  "strategies": [{"strategy": "bh",
                                                  "bulk": True,
                                                  "steps": []}]})):
        p = path("sw_%s.json" % name)
        with open(p, "w") as f:
            json.dump(doc, f)
        r = plot("-o", path("sw_" + name), "--sweep", p)
        refused(r, 1, p, "sweep " + name)
        assert not [f for f in os.listdir(TMP)
                    if f.startswith("sw_%s-" % name)], "figure written"


class Tmpfs:
    """A tmpfs of size bytes mounted on a new directory (root only)."""

    def __init__(self, name, size, opts=""):
        if not is_root() or shutil.which("mount") is None:
            raise tap.Skip("needs root to mount a tmpfs")
        self.dir = path(name)
        os.mkdir(self.dir)
        p = sh(["mount", "-t", "tmpfs", "-o", "size=%d%s" % (size, opts),
                "rxr_" + name, self.dir])
        if p.returncode != 0:
            raise tap.Skip("mount tmpfs: %s" % p.stderr.strip())

    def __enter__(self):
        return self.dir

    def __exit__(self, *exc):
        sh(["umount", "-l", self.dir])


def case_plot_full_disk():
    with Tmpfs("pfull", 16384) as d:
        old = os.path.join(d, "fig-gbps.svg")
        with open(old, "w") as f:
            f.write("old\n")
        r = plot("-o", os.path.join(d, "fig"), report())
        refused(r, 1, "No space left on device", "full disk")
        assert open(old).read() == "old\n", "the old figure was replaced"
        assert sorted(os.listdir(d)) == ["fig-gbps.svg"], \
            "left behind: %s" % os.listdir(d)


def case_plot_reports_named_alike():
    # x/r.json and y/r.json were both "r" in the legend and the caption:
    # which bars were whose could not be told.
    for sub in ("alike_x", "alike_y"):
        os.mkdir(path(sub))
        shutil.copy(report(), path(sub + "/r.json"))
    r = plot("-o", path("alike"), "alike_x/r.json", "alike_y/r.json",
             cwd=TMP)
    clean(r, "reports named alike")
    assert r.returncode == 0, r.stderr[-800:]
    with open(path("alike-gbps.svg")) as f:
        svg = f.read()
    for lab in ("alike_x/r", "alike_y/r"):
        assert ">%s<" % lab in svg, "no legend entry %s" % lab
    # The same file twice: told apart by number.
    r = plot("-o", path("twice"), report(), report())
    assert r.returncode == 0, r.stderr[-800:]
    with open(path("twice-gbps.svg")) as f:
        svg = f.read()
    assert "r (1)<" in svg and "r (2)<" in svg, "the same file twice"


def case_plot_many_reports_told_apart():
    # Six hatches for the reports: the seventh's bars looked like the
    # first's. Run through the script's own functions: the SVG's pattern
    # ids mix hatch and colour.
    p = sh([PY, "-c", "import importlib.machinery as m, sys; "
            "p = m.SourceFileLoader('plot', sys.argv[1]).load_module(); "
            "print(len({p.HATCHES[k % len(p.HATCHES)] for k in range(40)}))",
            PLOT])
    assert p.returncode == 0, p.stderr[-800:]
    assert p.stdout.strip() == "40", "%s of 40 reports told apart" % (
        p.stdout.strip())
    paths = []
    for k in range(8):
        paths.append(path("many%d.json" % k))
        shutil.copy(report(), paths[-1])
    r = plot("-o", path("many"), *paths, timeout=300)
    clean(r, "eight reports")
    assert r.returncode == 0, r.stderr[-800:]


def case_outputs_on_a_read_only_mount():
    # The reason was "Permission denied" (os.access() keeps no errno);
    # rxrefill-gen says what access(2) says.
    with Tmpfs("ro", 16384, ",ro") as d:
        for what, p in (
                ("plot", plot("-o", os.path.join(d, "f"), report())),
                ("sweep", sweep(*sweep_cmd(os.path.join(d, "s.json")))),
                ("gen", sh([GEN, "--quiet", "-o", os.path.join(d, "g")]))):
            refused(p, 2, "cannot write in %s: Read-only file system" % d,
                    what + " on a read-only mount")


def case_plot_signal_removes_temporaries():
    # A plot stopped while drawing leaves no temporary file.
    d = path("psig")
    os.mkdir(d)
    p = subprocess.Popen([PY, PLOT, "-o", os.path.join(d, "f"), report()],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    end = time.time() + 60
    while time.time() < end and not leftovers(d) and p.poll() is None:
        time.sleep(0.005)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    if p.returncode == 0:
        raise tap.Skip("the plot ended before the signal")
    assert p.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM), \
        p.returncode
    assert not leftovers(d), "left behind: %s" % os.listdir(d)


def case_signal_as_a_temporary_file_is_made():
    # A signal handled as soon as open() had made the temporary file, before
    # it was listed for removal, left it behind (plot_signal_removes_
    # temporaries failed now and then). Made certain here: the process
    # signals itself right after the open().
    d = path("tsig")
    os.mkdir(d)
    child = (
        "import os, signal, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import rxrefill_tool as rp\n"
        "rp.on_signals()\n"
        "o = rp.Outputs()\n"
        "out = os.path.join(sys.argv[2], 'f')\n"
        "o.add(out)\n"
        "real = os.open\n"
        "def open_then_signal(*a, **k):\n"
        "    fd = real(*a, **k)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return fd\n"
        "os.open = open_then_signal\n"
        "o.write(out, lambda f: f.write(b'x'))\n")
    p = sh([sys.executable, "-c", child, os.path.dirname(SWEEP), d])
    assert p.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM), \
        "exit %d: %s" % (p.returncode, p.stderr[-800:])
    assert not os.listdir(d), "left behind: %s" % os.listdir(d)


# --- rxrefill-sweep ---------------------------------------------------------

def sweep_cmd(json_out, sender="echo Successful packets: 0 # {pps}",
              extra=()):
    return ["--sender", sender, "--min", "1", "--max", "2", "--strategy",
            "bh", "--max-steps", "1", "--seconds", "0.3", "--margin", "0.5",
            "--json", json_out] + list(extra) + [
            "--", RXREFILL] + EAL + ["--vdev", "net_null0", "--"]


def case_sweep_help_version():
    help_version(sweep, "--sender")


def case_sweep_usage_errors():
    base = path("u.json")
    for args, needle in (
            (["--max", "inf"], "not a finite decimal number"),
            (["--max", "nan"], "not a finite decimal number"),
            (["--min", "1e999"], "not a finite decimal number"),
            (["--sender", "tcpreplay {pps"], "--sender"),
            (["--sender", "awk '{print}' {pps}"], "unknown field {print}"),
            (["--sender", "x {pps} {}"], "a field needs a name"),
            (["--sent-regex", "("], "does not compile"),
            (["--sent-regex", "sent \\d+"], "no group"),
            (["--max-steps", "0x10"], "not a decimal whole number"),
            # It is one, only too large.
            (["--max-steps", "10000000000"], "'10000000000': at most "
             "999999999"),
            # A PNG named .jpg.
            (["--plot", "fig.jpg"], "a figure is PNG, SVG or PDF"),
            # Past rxrefill's --duration: each step failed to start.
            (["--seconds", "1e300"], "rxrefill measures their sum"),
            (["--margin", "86400"], "and takes 0.01..86400 s")):
        cmd = sweep_cmd(base)
        for i in range(0, len(args), 2):
            if args[i] in cmd:
                cmd[cmd.index(args[i]) + 1] = args[i + 1]
            else:
                cmd[:0] = args[i:i + 2]
        p = sweep(*cmd)
        refused(p, 2, needle, " ".join(args))
        assert not os.path.exists(base), "a result written"


def case_sweep_outputs_checked_first():
    cap = capture()
    want = digest(cap)
    # --json onto the capture the sender reads: turned it into JSON.
    p = sweep(*sweep_cmd(cap, sender="cat %s > /dev/null # {pps}" % cap))
    refused(p, 2, "is also the input", "--json = capture")
    assert digest(cap) == want, "capture overwritten"
    for kind, n in nodes("so").items():
        before = node_id(n)
        p = sweep(*sweep_cmd(n), timeout=30)
        refused(p, 2, KIND[kind], "--json " + kind)
        p = sweep(*sweep_cmd(path("so.json"), extra=["--plot", n]),
                  timeout=30)
        refused(p, 2, KIND[kind], "--plot " + kind)
        assert node_id(n) == before, kind + " replaced"
    p = sweep(*sweep_cmd(path("nodir/x.json")))
    refused(p, 2, "No such file or directory", "--json in a missing dir")
    p = sweep(*sweep_cmd(TMP + "/"))
    refused(p, 2, "names a directory", "--json DIR/")


def case_sweep_output_named_twice():
    # --json same.json --plot ./same.json: the PNG replaced the result.
    # Any two spellings of one file are one output, refused before a step.
    out = path("twice.json")
    with open(out, "w") as f:
        f.write("mine\n")
    os.mkdir(path("twice_sub"))
    os.symlink(TMP, path("twice_dirlink"))
    os.link(out, path("twice_hard.json"))
    for other, cwd in ((out, None), ("./twice.json", TMP),
                       (os.path.join(TMP, ".", "twice.json"), None),
                       (path("twice_sub/../twice.json"), None),
                       (path("twice_dirlink/twice.json"), None),
                       (path("twice_hard.json"), None)):
        p = sweep(*sweep_cmd(out, extra=["--plot", other]), cwd=cwd)
        refused(p, 2, "named twice as an output", "--plot " + other)
        assert open(out).read() == "mine\n", "%s: replaced" % other
    # A new file: refused the same way, nothing made.
    p = sweep(*sweep_cmd("new_twice.json",
                         extra=["--plot", path("twice_sub/../new_twice.json")]),
              cwd=TMP)
    refused(p, 2, "named twice as an output", "a new file twice")
    assert not os.path.exists(path("new_twice.json"))


def case_sweep_keep_never_overwrites():
    # --keep DIR wrote stepN.json and stepN.out over the user's files.
    d = path("keep")
    os.mkdir(d)
    mine = {}
    for name in ("step1.json", "step2.out", "notes.txt"):
        with open(os.path.join(d, name), "w") as f:
            f.write("mine %s\n" % name)
        mine[name] = digest(os.path.join(d, name))
    ran = path("keep_ran")
    sender = "touch %s; echo Successful packets: 0 # {pps}" % ran
    p = sweep(*sweep_cmd(path("keep.json"), sender=sender,
                         extra=["--keep", d]))
    refused(p, 2, os.path.join(d, "step1.json"), "--keep onto step files")
    assert "and 1 more" in p.stderr, p.stderr
    assert not os.path.exists(ran), "a step ran"
    assert {n: digest(os.path.join(d, n)) for n in mine} == mine and \
        sorted(os.listdir(d)) == sorted(mine), os.listdir(d)
    # An output where a step file would go is refused too.
    d2 = path("keep2")
    os.mkdir(d2)
    p = sweep(*sweep_cmd(os.path.join(d2, "..", "keep2", "step1.json"),
                         sender=sender, extra=["--keep", d2]))
    refused(p, 2, "a name --keep", "--json onto a step file")
    assert not os.path.exists(ran), "a step ran"
    # A directory without them: each step's files kept, as --help says.
    p = sweep(*sweep_cmd(path("keep2.json"), extra=["--keep", d2]))
    clean(p, "--keep new dir")
    assert p.returncode == 0, p.stderr[-2000:]
    assert sorted(os.listdir(d2)) == ["step1.json", "step1.out"], \
        os.listdir(d2)
    h = sweep("--help").stdout
    assert "stepN.json" in h and "stepN.out" in h, "--help: --keep"


def case_sweep_plot_without_matplotlib():
    # --plot without matplotlib ran the whole sweep, then said so, wrote
    # no figure and exited 0. Now a usage error before the first step.
    fake = path("nompl")
    os.makedirs(os.path.join(fake, "matplotlib"))
    with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
        f.write("raise ImportError('no matplotlib here (test)')\n")
    ran = path("nompl_ran")
    out = path("nompl.json")
    env = dict(os.environ, PYTHONPATH=fake)
    p = sweep(*sweep_cmd(out, sender="touch %s; echo Successful packets: "
                         "0 # {pps}" % ran,
                         extra=["--plot", path("nompl.png")]), env=env)
    refused(p, 2, "--plot: matplotlib is not installed", "no matplotlib")
    assert not os.path.exists(ran), "a step ran"
    assert not os.path.exists(out) and \
        not os.path.exists(path("nompl.png")), "an output written"


def case_sweep_program_and_strategy_list():
    # A missing rxrefill was "/nonexist --options-table names no
    # strategy: is it rxrefill?"; now the reason, before any step.
    notexec = path("notexec")
    with open(notexec, "w") as f:
        f.write("#!/bin/sh\n")
    for prog, needle in ((path("nonexist"), "No such file or directory"),
                         (notexec, "not executable"),
                         (TMP, "is a directory"),
                         ("rxr-no-such-program", "not found in PATH")):
        cmd = sweep_cmd(path("prog.json"))
        cmd[cmd.index(RXREFILL)] = prog
        p = sweep(*cmd)
        refused(p, 2, needle, "rxrefill program " + prog)
        assert "the rxrefill program %s" % prog in p.stderr, p.stderr
    # --strategy as rxrefill reads it: a repeated name swept once (the
    # sweep ran bh twice), an empty one and 'all' not last refused.
    for lst, needle in (("bh,,zone", "an empty strategy name"),
                        ("all,bh", "'all' comes last"),
                        ("bh,nope", "unknown strategy 'nope'")):
        cmd = sweep_cmd(path("list.json"))
        cmd[cmd.index("--strategy") + 1] = lst
        refused(sweep(*cmd), 2, needle, "--strategy " + lst)
    # A name in any case, as rxrefill takes it: "BH" was refused.
    for lst in ("bh,bh", "BH,bh"):
        out = path("twice_bh.json")
        cmd = sweep_cmd(out)
        cmd[cmd.index("--strategy") + 1] = lst
        p = sweep(*cmd)
        clean(p, "--strategy " + lst)
        assert p.returncode == 0, "--strategy %s: %s" % (
            lst, p.stderr[-2000:])
        with open(out) as f:
            got = [s["strategy"] for s in json.load(f)["strategies"]]
        assert got == ["bh"], "--strategy %s: %s" % (lst, got)


def case_sweep_strict_json_and_tmp_fifo():
    out = path("sw.json")
    # A FIFO where the old code put its temporary file: it hung there.
    os.mkfifo(out + ".tmp")
    p = sweep(*sweep_cmd(out), timeout=120)
    clean(p, "sweep")
    assert p.returncode == 0, p.stderr[-2000:]

    def constant(c):
        raise AssertionError("%s in the result" % c)

    with open(out) as f:
        res = json.load(f, parse_constant=constant)
    assert res["schema"] == "rxrefill-sweep/1" and res["strategies"]
    assert stat.S_ISFIFO(os.lstat(out + ".tmp").st_mode)
    # Group 1 that is not a number: a clear failure, the old result kept.
    want = digest(out)
    p = sweep(*sweep_cmd(out, sender="echo Successful packets: many # {pps}",
                         extra=["--sent-regex", r"packets: (\w+)"]))
    refused(p, 1, "not a number of packets", "group not a number")
    assert digest(out) == want, "the result was replaced"


def case_sweep_full_disk():
    with Tmpfs("sfull", 4096) as d:
        out = os.path.join(d, "r.json")
        with open(out, "w") as f:
            f.write("old\n")
        p = sweep(*sweep_cmd(out))
        refused(p, 1, "No space left on device", "full disk")
        assert open(out).read() == "old\n", "the old result was replaced"
        assert os.listdir(d) == ["r.json"], os.listdir(d)


def case_sweep_rates_as_sent():
    # The search halved down to 2.51171875 pps, recorded as such, while
    # the sender was given "3" each time: the result's rates were not
    # those sent. A rate the sender gets as 0 was swept as well.
    out = path("rates.json")
    cmd = sweep_cmd(out, sender="echo Successful packets: "
                    "$(( {pps} >= 3 ? 999999999999 : 1 )) # {pps}",
                    extra=["--resolution", "0.001", "--margin", "0.2"])
    cmd[cmd.index("--max") + 1] = "4"
    cmd[cmd.index("--max-steps") + 1] = "10"
    p = sweep(*cmd, timeout=300)
    clean(p, "rates as sent")
    assert p.returncode == 0, p.stderr[-2000:]
    with open(out) as f:
        st = json.load(f)["strategies"][0]
    rates = [s["rate"] for s in st["steps"]]
    assert rates == [4, 1, 2, 3], rates
    assert st["no_drop_rate"] == 2 and st["first_failing_rate"] == 3, st
    cmd = sweep_cmd(path("zero.json"))
    cmd[cmd.index("--min") + 1] = "0.4"
    cmd[cmd.index("--max") + 1] = "0.6"
    refused(sweep(*cmd), 2, "the sender is given 0 and 1 {pps}",
            "--min 0.4 --max 0.6")


def case_sweep_sender_that_never_ends():
    # A sender that does not stop by itself (tcpreplay --loop 0 without
    # --duration): the sweep waited for it forever after rxrefill's run.
    pidf = path("never.pid")
    out = path("never.json")
    p = sweep(*sweep_cmd(out, sender="echo $$ > %s; exec sleep 600 # {pps}"
                         % pidf, extra=["--margin", "0.1"]), timeout=90)
    refused(p, 1, "the sender never finished inside a run", "endless sender")
    assert not os.path.exists(out), "a result from a failed sweep"
    sender = int(open(pidf).read())
    assert not alive(sender), "the sender %d is still running" % sender


def case_sweep_verbose_sender():
    # The sender's output was held in memory whole (tcpreplay -v writes a
    # line a packet): 100 MB of it took the sweep past 300 MB. Its ends
    # are what --sent-regex reads.
    out = path("verbose.json")
    cmd = [sys.executable, SWEEP] + sweep_cmd(
        out, sender="head -c 100M /dev/zero | tr '\\0' a; echo; "
        "echo Successful packets: 5 # {pps}", extra=["--margin", "3"])
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    hwm = 0
    while p.poll() is None:
        try:
            with open("/proc/%d/status" % p.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        hwm = max(hwm, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    o, e = p.communicate(timeout=120)
    assert p.returncode == 0, e[-1500:]
    with open(out) as f:
        st = json.load(f)["strategies"][0]["steps"][0]
    assert st["sent"] == 5, st
    assert hwm < 100 * 1024, "the sweep took %d MB" % (hwm // 1024)


def children_of(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def case_sweep_signals_stop_children():
    # SIGTERM to the sweep left its rxrefill and the sender running.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        pidf = path("sender_%d.pid" % sig)
        out = path("sig_%d.json" % sig)
        cmd = [sys.executable, SWEEP] + sweep_cmd(
            out, sender="echo $$ > %s; exec sleep 120 # {pps}" % pidf,
            extra=["--seconds", "60"])
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        end = time.time() + 90
        while not (os.path.exists(pidf) and os.path.getsize(pidf)):
            assert time.time() < end and p.poll() is None, \
                "the sender never started: %s" % (p.communicate()[1][-1500:])
            time.sleep(0.05)
        sender = int(open(pidf).read())
        kids = children_of(p.pid)
        assert sender in kids and len(kids) == 2, (kids, sender)
        p.send_signal(sig)
        try:
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            raise AssertionError("the sweep did not stop on signal %d" % sig)
        assert p.returncode in (-sig, 128 + sig), (sig, p.returncode, err)
        assert "Traceback" not in err, err[-1500:]
        time.sleep(0.5)
        left = [k for k in kids if alive(k)]
        for k in left:
            os.kill(k, signal.SIGKILL)
        assert not left, "signal %d left children running: %s" % (sig, left)
        assert not os.path.exists(out), "a result from a stopped sweep"


QUICKSTART = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                          "..", "usertools", "quickstart.sh")


def case_quickstart_hugepages_beside_other_size():
    # /dev/hugepages a hugetlbfs of 1 GiB pages (default_hugepagesz=1G):
    # quickstart said "hugetlbfs mounted" and mounted none of 2 MiB pages,
    # which the run then could not use. In a mount namespace of our own;
    # nothing reserved (free 2 MiB pages are needed already).
    pool = "/sys/kernel/mm/hugepages/hugepages-%dkB/free_hugepages"
    try:
        free_2m = int(open(pool % 2048).read())
        os.stat(pool % 1048576)
    except (OSError, ValueError):
        raise tap.Skip("no 2 MiB and 1 GiB hugepage pools here")
    if free_2m == 0:
        raise tap.Skip("no free 2 MiB hugepages: quickstart would reserve")
    if not is_root() or shutil.which("unshare") is None or \
            not os.path.isdir("/dev/hugepages"):
        raise tap.Skip("needs root, unshare and /dev/hugepages")
    beside = "/dev/hugepages-2M"
    had = os.path.lexists(beside)
    script = ('for m in $(awk \'$3 == "hugetlbfs" {print $2}\' /proc/mounts); '
              'do umount "$m" || exit 99; done; '
              'mount -t hugetlbfs -o pagesize=1G nodev /dev/hugepages || '
              'exit 99; bash "$0" hugepages || exit; '
              'grep hugetlbfs /proc/mounts')
    try:
        p = sh(["unshare", "-m", "--propagation", "private", "sh", "-c",
                script, QUICKSTART])
    finally:
        if not had:
            try:
                os.rmdir(beside)
            except OSError:
                pass
    if p.returncode == 99:
        raise tap.Skip("cannot mount a hugetlbfs of 1 GiB pages: %s" %
                       p.stderr.strip()[-200:])
    assert p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr)
    assert "pagesize=2M" in p.stdout and \
        "mounting hugetlbfs of 2 MiB pages on %s" % beside in p.stdout, \
        p.stdout


def cpu_list(text):
    """A kernel CPU list ("0-2,5") as a list of numbers."""
    out = []
    for part in text.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out


def case_quickstart_cpus_within_affinity():
    # The default job pinned its lcores to CPUs 0 and 1, whatever the
    # machine: in a container or cgroup given other CPUs, or on one CPU,
    # EAL stopped or aborted. Now the CPUs come from those the shell may
    # run on, the two poll CPUs not SMT siblings when they need not be.
    # The suites, which do pin to CPUs 0 and 1, are refused up front.
    allowed = sorted(os.sched_getaffinity(0))
    last = allowed[-1]
    p = sh(["taskset", "-c", str(last), "bash", QUICKSTART, "cpus"])
    assert p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr)
    assert p.stdout.strip() == "(0,1)@%d" % last, p.stdout
    assert "one CPU to run on (%d)" % last in p.stderr, p.stderr
    p = sh(["bash", QUICKSTART, "cpus"])
    assert p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr)
    if len(allowed) == 1:
        assert p.stdout.strip() == "(0,1)@%d" % last, p.stdout
    else:
        m = re.fullmatch(r"\(0,1\)@(\d+),2@(\d+)", p.stdout.strip())
        assert m, p.stdout
        a, b = int(m.group(1)), int(m.group(2))
        assert a == allowed[0] and b in allowed and b != a, p.stdout
        try:
            sib = cpu_list(open("/sys/devices/system/cpu/cpu%d/topology/"
                                "thread_siblings_list" % a).read())
        except OSError:
            sib = [a]
        if any(c not in sib for c in allowed):
            assert b not in sib, "CPU %d is %d's SMT sibling: %s" % (
                b, a, p.stdout)
        assert "poll CPUs %d and %d" % (a, b) in p.stderr, p.stderr
    # A cpuset of one CPU, as a container's: its CPU, not 0 and 1.
    p = run_in_cpuset(last, ["bash", QUICKSTART, "cpus"])
    if p is None:
        raise tap.Skip("no cpuset cgroup can be made here (the taskset "
                       "cases passed)")
    assert p.returncode == 0 and p.stdout.strip() == "(0,1)@%d" % last, \
        "exit %d: %s%s" % (p.returncode, p.stdout, p.stderr)
    # The suites pin lcores to CPUs 0 and 1: in a cpuset without one of
    # them 'test' stops before building, saying so; a taskset mask alone
    # does not stop it (EAL widens the affinity).
    p = run_in_cpuset(last, ["bash", QUICKSTART, "test-cpus"])
    missing = 0 if last != 0 else 1
    assert p.returncode == 1 and "cannot run on CPU %d (it may run on %d)" % (
        missing, last) in p.stderr, "exit %d: %s" % (p.returncode, p.stderr)
    if 0 in allowed and 1 in allowed:
        p = sh(["taskset", "-c", str(last), "bash", QUICKSTART, "test-cpus"])
        assert p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr)


def quickstart_capture(prefix):
    """quickstart.sh capture with our generator and a capture PREFIX."""
    env = dict(os.environ, RXREFILL_GEN=GEN, RXREFILL_CAPTURE=prefix)
    p = sh(["bash", QUICKSTART, "capture"], timeout=120, env=env)
    assert p.returncode == 0, "exit %d: %s%s" % (p.returncode, p.stdout,
                                                 p.stderr)
    return p.stdout


def case_quickstart_capture_remade_when_not_whole():
    # The captures were made only when the manifest was missing: a
    # capture deleted, emptied or cut short beside it failed every run
    # (rxrefill refuses a cut record), or, cut between records, replayed
    # fewer frames than the default job is. Now they are made again
    # whenever they are not what the manifest says, and left alone when
    # they are.
    d = path("qs_capture")
    os.mkdir(d)
    cap = os.path.join(d, "default64")
    files = [cap + ".json", cap + ".q0.pcap", cap + ".q1.pcap"]

    def whole():
        for f in files:
            assert os.path.isfile(f) and os.path.getsize(f) > 0, f
        doc = json.load(open(files[0]))
        for i, q in enumerate(doc["queues"]):
            assert os.path.getsize(files[1 + i]) == \
                24 + 16 * q["packets"] + q["captured_bytes"], q
        return [os.stat(f).st_mtime_ns for f in files]

    out = quickstart_capture(cap)
    assert "generating" in out, out
    first = whole()
    out = quickstart_capture(cap)
    assert out == "" and whole() == first, "remade whole captures: " + out
    q0 = files[1]
    size = os.path.getsize(q0)

    def cut(n):
        os.truncate(q0, n)

    def garble():
        with open(q0, "r+b") as f:
            f.write(b"\x0a\x0d\x0d\x0a")

    def other_traffic():
        assert sh([GEN, "-o", cap, "-q", "2", "-s", "8", "-n", "10", "-l",
                   "64", "-p", "tcp", "--quiet"]).returncode == 0

    def bad_manifest():
        # Ours cut short (an interrupted copy): made again. What does not
        # start as rxrefill-gen's manifest is refused instead (see
        # quickstart_capture_never_removes_what_is_not_ours).
        with open(files[0], "r+") as f:
            f.truncate(len(f.read()) // 2)

    for what, harm, said in (
            ("a capture deleted", lambda: os.unlink(files[2]), "missing"),
            ("a capture emptied", lambda: cut(0), "empty"),
            ("a capture cut inside a record", lambda: cut(size - 40),
             "bytes, the manifest's"),
            ("a capture cut between records", lambda: cut(size - 80),
             "bytes, the manifest's"),
            ("a capture not a pcap", garble, "not a pcap"),
            ("captures of other traffic", other_traffic, "other traffic"),
            ("a manifest cut short", bad_manifest, "unreadable"),
            ("the manifest deleted", lambda: os.unlink(files[0]),
             "missing")):
        harm()
        out = quickstart_capture(cap)
        assert "generating" in out and said in out, "%s: %r" % (what, out)
        whole()
        assert os.path.getsize(q0) == size, what


def quickstart_capture_raw(prefix):
    """quickstart.sh capture, its exit status not checked."""
    env = dict(os.environ, RXREFILL_GEN=GEN, RXREFILL_CAPTURE=prefix)
    return sh(["bash", QUICKSTART, "capture"], timeout=120, env=env)


def case_quickstart_capture_never_removes_what_is_not_ours():
    # A manifest path holding another JSON ('{"my":"notes"}') was said
    # "unreadable ('traffic')" and removed; 100000 '[' gave a
    # RecursionError traceback. What rxrefill-gen did not write is
    # refused by name (exit 2) and left as it was.
    d = path("qs_notours")
    os.mkdir(d)
    cap = os.path.join(d, "results")
    man = cap + ".json"
    for what, text in (("notes", '{"my": "notes"}'),
                       ("other schema", '{"schema": "x/1", "traffic": {}}'),
                       ("an array", "[1, 2]"),
                       ("deep", "[" * 100000),
                       ("text", "my notes\n")):
        with open(man, "w") as f:
            f.write(text)
        want = digest(man)
        p = quickstart_capture_raw(cap)
        refused(p, 2, man + ": not a manifest of rxrefill-gen", what)
        assert "refusing to remove it" in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert digest(man) == want, "%s: the file was changed" % what
        assert sorted(os.listdir(d)) == ["results.json"], os.listdir(d)
    # A FIFO there: neither waited on nor removed.
    os.unlink(man)
    os.mkfifo(man)
    p = quickstart_capture_raw(cap)
    refused(p, 2, "is a FIFO", "a FIFO as the manifest")
    assert stat.S_ISFIFO(os.lstat(man).st_mode), "the FIFO was removed"
    os.unlink(man)


def case_quickstart_capture_stale_manifest_said_plainly():
    # A real manifest of another version (no "traffic") was "unreadable
    # ('traffic')", a KeyError's text; '"packets": 1e400' gave an
    # OverflowError traceback. Both are made again, said in words (the
    # JSON read as the C programs read it).
    d = path("qs_stale")
    os.mkdir(d)
    cap = os.path.join(d, "default64")
    man = cap + ".json"
    quickstart_capture(cap)
    with open(man) as f:
        good = f.read()
    doc = json.loads(good)
    doc.pop("traffic")
    with open(man, "w") as f:
        json.dump(doc, f)
    out = quickstart_capture(cap)
    assert "another rxrefill-gen version" in out and "no traffic" in out \
        and "('traffic')" not in out, out
    with open(man) as f:
        good = f.read()
    with open(man, "w") as f:
        f.write(re.sub(r'"packets": \d+', '"packets": 1e400', good, 1))
    p = quickstart_capture_raw(cap)
    clean(p, "packets 1e400")
    assert p.returncode == 0 and "overflow near '1e400'" in p.stdout and \
        "generating" in p.stdout, "exit %d: %s%s" % (p.returncode,
                                                     p.stdout, p.stderr)
    assert json.load(open(man))["schema"] == "rxrefill-gen-manifest/1"


def case_quickstart_help():
    # --help printed the usage on stderr and exited 2.
    for a in ("--help", "-h"):
        p = sh(["bash", QUICKSTART, a])
        assert p.returncode == 0 and "usage:" in p.stdout and \
            "capture" in p.stdout and not p.stderr, \
            "%s: exit %d: %s%s" % (a, p.returncode, p.stdout, p.stderr)
    p = sh(["bash", QUICKSTART, "no-such-command"])
    refused(p, 2, "usage:", "unknown command")
    assert not p.stdout, p.stdout


USERTOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "usertools")
TEMPLATE = os.path.join(USERTOOLS, "..", "doc", "man", "rxrefill-gen.1.in")


def mkman(*args, env=None):
    return sh([sys.executable, os.path.join(USERTOOLS, "mkman.py")] +
              list(args), env=env)


def case_build_helpers_outputs_and_errors():
    # mkman.py renamed OUTPUT.tmp over its output:
    # a FIFO or a device became a regular file, an OUTPUT.tmp of someone
    # else's was overwritten; a missing input, SOURCE_DATE_EPOCH=abc, a
    # missing directory or no argument gave a traceback; --help exit 2.
    d = path("helpers")
    os.mkdir(d)
    name = "mkman"

    def run(out):
        return mkman(TEMPLATE, out, "1", GEN)

    for kind, n in nodes("bh" + name).items():
        before = node_id(n)
        p = run(n)
        refused(p, 2, KIND[kind], "%s onto a %s" % (name, kind))
        assert node_id(n) == before, "%s: the %s replaced" % (name, kind)
    out = os.path.join(d, name + ".out")
    with open(out + ".tmp", "w") as f:
        f.write("mine\n")
    p = run(out)
    clean(p, name)
    assert p.returncode == 0, p.stderr
    assert open(out + ".tmp").read() == "mine\n", \
        "%s overwrote OUTPUT.tmp" % name
    assert os.path.getsize(out) > 0
    assert sorted(f for f in os.listdir(d) if f.startswith(name)) == \
        [name + ".out", name + ".out.tmp"], os.listdir(d)
    p = run(os.path.join(d, "nodir", "x"))
    refused(p, 2, "No such file or directory", name + " missing dir")
    for p, status, needle, what in (
            (mkman(), 2, "usage:", "mkman no argument"),
            (mkman(path("nope.1.in"), path("m.1"), "1", GEN), 1,
             path("nope.1.in"), "mkman missing template"),
            (mkman(TEMPLATE, path("m.1"), "1", path("noprog")), 1,
             path("noprog"), "mkman missing program"),
            (mkman(TEMPLATE, path("m.1"), "1", GEN,
                   env=dict(os.environ, SOURCE_DATE_EPOCH="abc")), 2,
             "SOURCE_DATE_EPOCH", "SOURCE_DATE_EPOCH=abc")):
        refused(p, status, needle, what)
    p = mkman("--help")
    assert p.returncode == 0 and "usage" in p.stdout.lower(), \
        "--help: exit %d: %s%s" % (p.returncode, p.stdout, p.stderr)


def case_sweep_refuses_abbreviated_own_options():
    # rxrefill takes getopt_long's abbreviations: '--loop 1' passed the
    # check for --loops (rxrefill failed to start, its log dumped), '--bul
    # off' was overridden by the sweep's own --bulk without a word.
    out = path("abbrev.json")
    for args, needle in ((["--loop", "1"], "--loop (--loops)"),
                         (["--loops=2"], "--loops: a step runs"),
                         (["--repo=x.json"], "--repo (--report)"),
                         (["--dur", "3"], "--dur (--duration)"),
                         (["--bul", "off"], "--bul (--bulk)"),
                         (["--stats", "1"], "--stats (--stats-period)"),
                         (["--re", "1"], "--re: ambiguous")):
        p = sweep(*(sweep_cmd(out) + args))
        refused(p, 2, needle, " ".join(args))
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert not os.path.exists(out), "a result written"
    # An abbreviation of an option the sweep leaves alone, and the value
    # of an option that looks like one, pass.
    p = sweep(*(sweep_cmd(out) + ["--latency-ev", "1", "--metrics-file",
                                  "--loops"]), cwd=TMP)
    clean(p, "passed through")
    assert p.returncode == 0, p.stderr[-1500:]


def case_sweep_fraction_ranges_as_said():
    # '--tolerance 1' was "a fraction in 0..1", the help said 0..1: the
    # sweep takes 0 <= tolerance < 1 and 0 < resolution < 1.
    base = path("frac.json")
    for opt_, v, needle in (("--tolerance", "1", "0 <= FRACTION < 1"),
                            ("--resolution", "0", "0 < FRACTION < 1"),
                            ("--resolution", "1", "0 < FRACTION < 1")):
        refused(sweep(*([opt_, v] + sweep_cmd(base))), 2, needle,
                opt_ + " " + v)
    h = " ".join(sweep("--help").stdout.split())
    assert "0 <= FRACTION < 1" in h and "0 < FRACTION < 1" in h and \
        "0..1" not in h, h


def case_sweep_sent_not_reported():
    # A sender whose count --sent-regex does not find: "12345 of None",
    # "sent None". Said in words; the JSON keeps null.
    out = path("unsent.json")
    p = sweep(*sweep_cmd(out, sender="echo done # {pps}"))
    clean(p, "no sent count")
    assert p.returncode == 0, p.stderr[-1500:]
    assert "None" not in p.stdout and "sent not reported" in p.stdout, \
        p.stdout
    with open(out) as f:
        st = json.load(f)["strategies"][0]["steps"][0]
    assert st["sent"] is None and st["unaccounted"] is None, st


def case_sweep_consumer_drops_are_loss():
    # consumer_full is counted in rx_packets (received, then dropped by
    # the application): the sweep added it to what rxrefill saw and did
    # not count it lost, so a step whose consumers dropped nearly
    # everything passed.
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("rxrefill_sweep", SWEEP)
    spec = importlib.util.spec_from_loader("rxrefill_sweep", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    full = {"consumer_full": 47232, "rx_nombuf": 0}
    assert mod.step_loss(48000, full, 48000) == (47232 / 48000, 48000)
    assert mod.step_loss(48000, full, None) == (47232 / 48000, 48000)
    # Causes before receiving still add to what was seen.
    assert mod.step_loss(1000, {"rx_nombuf": 200}, None) == (200 / 1200,
                                                            1200)
    assert mod.step_loss(1000, {"rx_nombuf": 200}, 1250) == (250 / 1250,
                                                            1200)
    assert mod.step_loss(0, {}, None) == (0.0, 0)


def to_full(cmd):
    """cmd with its standard output on /dev/full (a redirect only)."""
    with open("/dev/full", "w") as full:
        try:
            return subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=120)
        except subprocess.TimeoutExpired:
            raise AssertionError("hung: %s" % " ".join(cmd)[:300])


def case_sweep_names_standard_output_when_full():
    # 'rxrefill-sweep ... > /dev/full' said "?: No space left on device".
    if not os.path.exists("/dev/full"):
        raise tap.Skip("no /dev/full")
    p = to_full([sys.executable, SWEEP] + sweep_cmd(path("full.json")))
    refused(p, 1, "rxrefill-sweep: standard output: No space left on "
            "device", "sweep > /dev/full")
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def case_plot_names_standard_output_when_full():
    # 'rxrefill-plot -o F r.json > /dev/full': an OSError traceback.
    if not os.path.exists("/dev/full"):
        raise tap.Skip("no /dev/full")
    p = to_full([PY, PLOT, "-o", path("fullfig"), report()])
    refused(p, 1, "rxrefill-plot: standard output: No space left on device",
            "plot > /dev/full")
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def fake_rxrefill(name, report_text):
    """A program the sweep takes for rxrefill: it names bh in its options
    table, starts as rxrefill does and writes report_text as its report."""
    rep = path(name + ".report")
    with open(rep, "w") as f:
        f.write(report_text)
    prog = path(name)
    with open(prog, "w") as f:
        f.write("#!/bin/sh\n"
                "case \" $* \" in *' --options-table '*)\n"
                "  printf '# options-table 1 rxrefill\\nstrategy\\t-\\tLIST"
                "\\tall\\tlist:bh,all\\tRuns\\tx\\n'; exit 0;; esac\n"
                "while [ $# -gt 0 ]; do [ \"$1\" = --report ] && r=$2; "
                "shift; done\n"
                "echo 'Gbit/s | port'; sleep 0.5; cat %s > \"$r\"\n" % rep)
    os.chmod(prog, 0o755)
    return prog


def case_sweep_step_report_not_a_report():
    # A step's report that is JSON but not a valid report gave a
    # traceback (AttributeError, KeyError, TypeError): now the C
    # validation's one line.
    with open(report()) as f:
        good = json.load(f)
    for name, edit, needle in (
            ("runs_str", lambda d: d.update(runs="x"), "runs: expected an "
             "array"),
            ("no_drops", lambda d: d["runs"][0].pop("drops"),
             "runs[0].drops: missing"),
            ("str_count", lambda d: d["runs"][0].update(rx_packets="5"),
             "runs[0].rx_packets: expected an integer"),
            ("two_runs", lambda d: None, "2 runs, not 1")):
        d = json.loads(json.dumps(good))
        d["runs"] = d["runs"][:2]
        d["runs"][1]["rep"] = 1
        edit(d)
        prog = fake_rxrefill("fake_" + name, json.dumps(d))
        cmd = sweep_cmd(path("fake_%s.json" % name), extra=["--margin", "1"])
        cmd[cmd.index(RXREFILL)] = prog
        p = sweep(*cmd)
        refused(p, 1, needle, "step report " + name)
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def case_sweep_regex_time_limit():
    # --sent-regex '(a+)+$' over 40,000 characters of the sender's output
    # backtracked for minutes: the match runs 10 s at most, then a clear
    # error.
    out = path("regex.json")
    cmd = sweep_cmd(out, sender="head -c 40000 /dev/zero | tr '\\0' a; "
                    "echo '!' # {pps}", extra=["--sent-regex", "(a+)+$"])
    t0 = time.time()
    p = sweep(*cmd, timeout=90)
    refused(p, 1, "--sent-regex '(a+)+$': no answer in 10 s", "(a+)+$")
    assert time.time() - t0 < 60, "took %.0f s" % (time.time() - t0)
    assert not os.path.exists(out), "a result written"


def case_plot_sweep_values_in_range():
    # A sweep with 150% or -0.5 loss, or bh twice, was drawn: loss is
    # 0..1 (loss_pct 0..100), as the documentation says; one line each.
    for name, doc, needle in (
            ("loss150", {"strategies": [{"strategy": "bh", "steps": [
                {"rate": 1, "loss": 1.5}]}]}, "steps[0].loss: 1.5 is "
             "outside 0..1"),
            ("lossneg", {"strategies": [{"strategy": "bh", "steps": [
                {"rate": 1, "loss": -0.5}]}]}, "outside 0..1"),
            ("twice", {"strategies": [
                {"strategy": "bh", "steps": [{"rate": 1, "loss": 0}]},
                {"strategy": "bh", "steps": [{"rate": 2, "loss": 1}]}]},
             "strategies[1]: bh bulk on again"),
            ("tolerance", {"tolerance": 2, "strategies": [
                {"strategy": "bh", "steps": [{"rate": 1, "loss": 0}]}]},
             "tolerance: 2 is outside 0..1"),
            ("pct", {"points": [{"offered_mpps": 1, "loss_pct": 150}]},
             "loss_pct: 150 is outside 0..100"),
            ("ratio", {"points": [{"offered_mpps": 1, "loss_ratio": -0.5}]},
             "loss_ratio: -0.5 is outside 0..1"),
            ("recv", {"points": [{"offered_mpps": 1, "sent": 10,
                                  "received": 20}]}, "received: 20 is "
             "outside 0..10")):
        doc = dict(doc, schema="rxrefill-sweep/1", unit="pps")
        p = path("range_%s.json" % name)
        with open(p, "w") as f:
            json.dump(doc, f)
        r = plot("-o", path("range_" + name), "--sweep", p)
        refused(r, 1, needle, "sweep " + name)
        assert not [f for f in os.listdir(TMP)
                    if f.startswith("range_%s-" % name)], "figure written"


def case_plot_exit_status_as_documented():
    # The plot exits 128+N on INT/TERM/HUP/QUIT; its --help (and so its
    # man page) said 0, 1 or 2 only.
    h = " ".join(plot("--help").stdout.split())
    assert "128+N when stopped by signal N" in h, h[-600:]
    d = path("pexit")
    os.mkdir(d)
    for sig in (signal.SIGINT, signal.SIGHUP):
        p = subprocess.Popen([PY, PLOT, "-o", os.path.join(d, "f"),
                              report()], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        time.sleep(0.2)
        p.send_signal(sig)
        p.communicate(timeout=60)
        if p.returncode == 0:
            raise tap.Skip("the plot ended before the signal")
        assert p.returncode in (-sig, 128 + sig), (sig, p.returncode)
        assert not leftovers(d), os.listdir(d)


def case_default_job_lines_fit():
    # The default job's round line grew to 127 columns when a run was
    # disturbed ("[round 2, up to 8] 10 runs, 3.003 to 19.145 Gbit/s, 1
    # disturbed; 6 ratios undecided, widest recycle-nobulk 0.68x (CI
    # 0.06-8.46)"). The default job's shape, shorter, with a busy loop on
    # a poll CPU so that every run is disturbed: no line past 120.
    busy = subprocess.Popen(["taskset", "-c", "1", "sh", "-c",
                             "while :; do :; done"])
    try:
        p = sh([RXREFILL] + EAL + ["--", "--replay", capture(),
                                   "--consumer", "inline", "--strategy",
                                   "bh,all", "--bulk", "both", "--reps",
                                   "auto:6", "--warmup", "0", "--duration",
                                   "0.15", "--progress", "rounds",
                                   "--report", path("dj.json")], timeout=600)
    finally:
        busy.kill()
        busy.wait()
    assert p.returncode == 0, p.stderr[-1500:]
    assert "disturbed" in p.stdout and "ratios undecided" in p.stdout, \
        p.stdout[-2000:]
    # Both streams: the busy loop brings on the note on streams counted
    # by the poll lcores (the main lcore cannot keep up).
    long = [l for l in (p.stdout + p.stderr).splitlines() if len(l) > 120]
    assert not long, "\n".join("%d: %s" % (len(l), l) for l in long)


def limited(kb):
    """preexec_fn: files of at most kb KiB (ulimit -f)."""
    import resource

    def set_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (kb << 10, kb << 10))
    return set_limit


def case_file_size_limit_is_a_write_error():
    # Under ulimit -f, SIGXFSZ killed rxrefill (exit 153, no message) and
    # rxrefill-gen (153, *.tmp.* left behind): a file past the limit is
    # the write error it is (EFBIG), said, with no temporary file left.
    d = path("fsz")
    os.mkdir(d)

    def run(cmd, kb, what, needle):
        p = sh(cmd, timeout=300, preexec_fn=limited(kb))
        refused(p, 1, needle, what)
        assert not leftovers(d), "%s: left %s" % (what, os.listdir(d))

    run([GEN, "-o", os.path.join(d, "g"), "--quiet", "-q", "1", "-s", "4",
         "-n", "20000"], 8, "rxrefill-gen", "File too large")
    run([RXREFILL] + EAL + ["--no-shconf", "--vdev", "net_null0", "--",
                            "--strategy", "bh", "--reps", "1", "--duration",
                            "0.2", "--warmup", "0", "--no-table", "--report",
                            os.path.join(d, "r.json")], 8, "rxrefill",
        "File too large")
    run([PY, PLOT, "-o", os.path.join(d, "f"), report()], 8,
        "rxrefill-plot", "File too large")
    out = os.path.join(d, "compare.out")
    with open(out, "w") as f:
        p = subprocess.run([COMPARE, report()], stdout=f,
                           stderr=subprocess.PIPE, text=True, timeout=60,
                           preexec_fn=limited(1))
    refused(p, 1, "writing the output: File too large", "rxrefill-compare")
    # The sweep writes its result as the plot does (rxrefill_tool's
    # Outputs): run that writer past the limit.
    child = ("import sys\nsys.path.insert(0, sys.argv[1])\n"
             "import rxrefill_tool as t\nt.on_signals()\n"
             "o = t.Outputs()\no.add(sys.argv[2])\n"
             "try:\n    o.write(sys.argv[2], lambda f: f.write(b'x' * "
             "(1 << 20)))\nexcept t.ToolError as e:\n"
             "    sys.exit(t.fail('rxrefill-sweep', e))\n")
    p = sh([sys.executable, "-c", child, os.path.dirname(SWEEP),
            os.path.join(d, "s.json")], preexec_fn=limited(8))
    refused(p, 1, "s.json: cannot write: File too large", "sweep's writer")
    assert not leftovers(d) and "s.json" not in os.listdir(d), os.listdir(d)


def main():
    try:
        return tap.run(globals(), ONLY)
    finally:
        for d in os.listdir(TMP):
            if os.path.ismount(path(d)):
                sh(["umount", "-l", path(d)])
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
