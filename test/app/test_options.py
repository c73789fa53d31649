#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Options and documented commands cannot drift from the programs.

    test_options.py SRCDIR RXREFILL GEN COMPARE PLOT MANDIR

1. Every option of every program, as its parser declares it (the getopt
   tables in app/, the argparse calls of rxrefill-plot), appears in its
   --help, in its man page (as built, rendered by man when man-db is
   installed) and in what the bash completion offers; each --help exits 0
   and has an "Exit status:" paragraph.
2. Every command in a ```sh block of README.md and doc/*.md runs and exits
   0, in a scratch folder with small captures and reports under the names
   the docs use (a.pcap, q0.pcap, a.json, rxrefill-report.json, ...), the
   programs first in PATH and rxrefill given a file prefix of its own and
   --no-huge. A block that cannot run here says why in the line before it:

       <!-- doc-test: skip: needs a NIC -->

   A block of commands must be marked sh (output: text): an unmarked one
   whose first word is one of our programs is an error, and so is an sh
   block without a skip mark that would change the machine (sysfs, mounts,
   namespaces, builds, installs): the test never runs those.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import tap  # noqa: E402

SRC, RXREFILL, GEN, COMPARE, PLOT, MANDIR = [
    os.path.abspath(a) for a in sys.argv[1:7]]
ONLY = sys.argv[7:]
TMP = tempfile.mkdtemp(prefix="rxr_options_")
BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
COMPLETION = os.path.join(SRC, "usertools", "rxrefill.bash-completion")

PROGS = {
    # name: (program argv, parser source, getopt short string or None)
    "rxrefill": ([RXREFILL], "app/rxrefill/opts.c"),
    "rxrefill-gen": ([GEN], "app/gen/gen_opts.c"),
    "rxrefill-compare": ([COMPARE], "app/compare/rxrefill_compare.c"),
    "rxrefill-plot": ([sys.executable, PLOT], "usertools/rxrefill-plot"),
}


def sh(cmd, timeout=120, **kw):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=timeout, **kw)


def declared(name):
    """(long, short) option names the program's parser declares."""
    path = os.path.join(SRC, PROGS[name][1])
    with open(path) as f:
        text = f.read()
    if path.endswith(".c"):
        # The C programs' parser is built from their table: read it.
        p = sh(PROGS[name][0] + ["--options-table"], timeout=30)
        assert p.returncode == 0, p.stderr
        rows = [r.split("\t") for r in p.stdout.splitlines()
                if not r.startswith("#")]
        longs = [r[0] for r in rows]
        shorts = [r[1] for r in rows if r[1] != "-"]
    else:
        longs, shorts = [], []
        for call in re.findall(r"add_argument\(([^)]*)", text):
            for o in re.findall(r'"(-[^"]+)"', call):
                (longs if o.startswith("--") else shorts).append(
                    o.lstrip("-"))
        shorts.append("h")
        longs.append("help")
    assert longs, "no option found in " + path
    return sorted(set(longs)), sorted(set(shorts))


def help_text(name):
    p = sh(PROGS[name][0] + ["--help"], timeout=30)
    assert p.returncode == 0, "%s --help: exit %d %s" % (
        name, p.returncode, p.stderr)
    return p.stdout


def man_text(name):
    path = os.path.join(MANDIR, name + ".1")
    assert os.path.isfile(path), "no man page " + path
    if shutil.which("man"):
        p = sh(["man", "-l", "-P", "cat", path],
               env=dict(os.environ, MANWIDTH="200"))
        assert p.returncode == 0, p.stderr
        # man hyphenates and may join with U+2010; undo both.
        return p.stdout.replace("\u2010", "-").replace("\u2212", "-")
    print("# man (man-db) not installed: %s read as roff" % path)
    with open(path) as f:
        return f.read().replace("\\-", "-").replace("\\fB", "") \
            .replace("\\fR", "").replace("\\fI", "")


def completions(name, words):
    """What the completion offers for the command line words (the last
    one being completed)."""
    script = (
        'source %s; source %s; PATH=%s:$PATH; COMP_WORDS=(%s); '
        'COMP_CWORD=%d; COMP_LINE="${COMP_WORDS[*]}"; '
        'COMP_POINT=${#COMP_LINE}; %s %s "${COMP_WORDS[COMP_CWORD]}" '
        '"${COMP_WORDS[COMP_CWORD-1]}"; printf "%%s\\n" "${COMPREPLY[@]}"'
    ) % (BASH_COMPLETION, COMPLETION, ":".join(
        os.path.dirname(p) for p in (RXREFILL, GEN, COMPARE, PLOT)),
        " ".join("'%s'" % w for w in [name] + words), len(words),
        "_rxrefill" if name == "rxrefill" else "_rxrefill_tool", name)
    p = sh(["bash", "-c", script], timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def check_program(name):
    longs, shorts = declared(name)
    helps, man = help_text(name), man_text(name)
    missing = []
    for o in longs:
        if not re.search(r"(?<![\w-])--%s\b" % re.escape(o), helps):
            missing.append("--%s not in --help" % o)
        if not re.search(r"(?<![\w-])--%s\b" % re.escape(o), man):
            missing.append("--%s not in the man page" % o)
    for o in shorts:
        if not re.search(r"(?<![\w-])-%s\b" % re.escape(o), helps):
            missing.append("-%s not in --help" % o)
        if not re.search(r"(?<![\w-])-%s\b" % re.escape(o), man):
            missing.append("-%s not in the man page" % o)
    assert re.search(r"^Exit status: ", helps, re.M), \
        "%s --help says nothing of its exit status" % name
    assert re.search(r"^EXIT STATUS", man, re.M), name + ": no EXIT STATUS"
    if os.path.exists(BASH_COMPLETION):
        got = set(completions(name, (["--"] if name == "rxrefill" else [])
                              + ["-"]))
        for o in longs:
            if "--" + o not in got:
                missing.append("--%s not completed" % o)
        for o in shorts:
            if "-" + o not in got:
                missing.append("-%s not completed" % o)
    else:
        print("# bash-completion not installed: completion not checked")
    assert not missing, "%s: %s" % (name, "; ".join(missing))
    print("# %s: %d long and %d short options in --help, man page and "
          "completion" % (name, len(longs), len(shorts)))


def case_rxrefill_options():
    check_program("rxrefill")


def case_gen_options():
    check_program("rxrefill-gen")


def case_compare_options():
    check_program("rxrefill-compare")


def case_plot_options():
    check_program("rxrefill-plot")


def case_completion_values():
    if not os.path.exists(BASH_COMPLETION):
        raise tap.Skip("bash-completion is not installed")
    got = completions("rxrefill", ["--", "--strategy", "bh,"])
    assert "bh,zone" in got and "bh,recycle" in got, got
    open(os.path.join(TMP, "x1.pcap"), "w").close()
    cwd = os.getcwd()
    os.chdir(TMP)
    try:
        got = completions("rxrefill", ["--", "--replay", "a.pcap,x"])
    finally:
        os.chdir(cwd)
    assert "a.pcap,x1.pcap" in got, got
    got = completions("rxrefill", ["-"])
    for o in ("-l", "--file-prefix", "--no-huge", "-m", "-a", "--no-pci",
              "--lcores", "--"):
        assert o in got, (o, got)
    assert "--strategy" not in got, "rxrefill's options before '--'"
    got = completions("rxrefill-compare", ["-m", ""])
    for m in ("gbps", "mpps", "zone_lock.wait_share", "fairness.jain"):
        assert m in got, (m, got)
    got = completions("rxrefill-compare", ["-m", "gbps,mp"])
    assert got == ["gbps,mpps"], got
    for opt in ("-s", "-p", "--rss-key"):
        got = completions("rxrefill-gen", [opt, ""])
        assert not any(os.path.exists(g) for g in got), (opt, got)
    assert completions("rxrefill-gen", ["-p", ""]) == ["tcp", "udp"]


# --- documented commands ----------------------------------------------------

BLOCK = re.compile(r"^```(\w*)[ \t]*\n(.*?)^```", re.M | re.S)
MARK = re.compile(r"<!--\s*doc-test:\s*skip:\s*(.*?)\s*-->\s*$")
OURS = ("rxrefill", "rxrefill-gen", "rxrefill-compare", "rxrefill-plot",
        "usertools/", "build/", "meson", "ninja", "bash ", "./build")
# What only a block marked skip may do.
MACHINE = re.compile(r"/sys/|/proc/|\bmount\b|quickstart\.sh|\bmeson\b|"
                     r"\bninja\b|\bip netns\b|\bsudo\b|dpdk-hugepages|"
                     r"\bsysctl\b|\bmodprobe\b")
# Debian's python3, which has python3-matplotlib, for rxrefill-plot.
SYS_PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
    else sys.executable


def doc_blocks():
    """(file, line, lang, text, skip reason or None) of every block."""
    files = [os.path.join(SRC, "README.md")] + sorted(
        os.path.join(SRC, "doc", f) for f in os.listdir(
            os.path.join(SRC, "doc")) if f.endswith(".md"))
    for path in files:
        with open(path) as f:
            text = f.read()
        for m in BLOCK.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            mk = MARK.search(before)
            yield (os.path.relpath(path, SRC), line, m.group(1),
                   m.group(2), mk.group(1) if mk else None)


def scratch():
    """The folder the commands run in: the names the docs use."""
    d = os.path.join(TMP, "docs")
    os.makedirs(os.path.join(d, "bin"))
    real = {"rxrefill": RXREFILL, "rxrefill-gen": GEN,
            "rxrefill-compare": COMPARE, "rxrefill-plot": PLOT}
    # rxrefill: a file prefix of its own and ordinary memory, so that it
    # neither meets another DPDK process nor needs hugepages.
    wrapper = ("#!/bin/sh\n"
               "n=0; for a in \"$@\"; do n=$((n + 1)); [ \"$a\" = -- ] && "
               "exec %s --file-prefix rxr_doc_%d_$$ --no-huge -m 512 \"$@\"; "
               "done\nexec %s \"$@\"\n") % (RXREFILL, os.getpid(), RXREFILL)
    for name, path in real.items():
        dst = os.path.join(d, "bin", name)
        if name == "rxrefill":
            with open(dst, "w") as f:
                f.write(wrapper)
            os.chmod(dst, 0o755)
        elif name == "rxrefill-plot":
            with open(dst, "w") as f:
                f.write("#!/bin/sh\nexec %s %s \"$@\"\n" % (SYS_PY, path))
            os.chmod(dst, 0o755)
        else:
            os.symlink(path, dst)
    # build/app/<...>/<program> and usertools/ as the docs name them.
    for sub, name in (("app/rxrefill", "rxrefill"), ("app/gen", "rxrefill-gen"),
                      ("app/compare", "rxrefill-compare"),
                      ("usertools", "rxrefill-plot")):
        os.makedirs(os.path.join(d, "build", sub), exist_ok=True)
        os.symlink(os.path.join(d, "bin", name),
                   os.path.join(d, "build", sub, name))
    os.symlink(os.path.join(SRC, "usertools"), os.path.join(d, "usertools"))
    os.makedirs(os.path.join(d, "doc", "figures"))
    os.makedirs(os.path.join(d, "out"))
    env = dict(os.environ, PATH=os.path.join(d, "bin") + ":" +
               os.environ["PATH"])
    p = sh([GEN, "-o", "cap", "-q", "2", "-s", "8", "-n", "300", "-l", "64",
            "-a", "--quiet"], cwd=d)
    assert p.returncode == 0, p.stderr
    for src, dsts in (("cap.q0.pcap", ("a.pcap", "q0.pcap")),
                      ("cap.q1.pcap", ("b.pcap", "q1.pcap")),
                      ("cap.all.pcap", ("real.pcap",))):
        for dst in dsts:
            shutil.copy(os.path.join(d, src), os.path.join(d, dst))
    p = sh(["rxrefill", "-l", "0-1", "--no-pci", "--", "--replay",
            "a.pcap,b.pcap", "--loops", "1", "--reps", "2", "--strategy",
            "bh,zone", "--bulk", "on", "--no-table", "--report",
            "rxrefill-report.json"], cwd=d, env=env, timeout=300)
    assert p.returncode == 0, p.stdout[-1500:] + p.stderr[-1500:]
    for dst in ("a.json", "b.json", "before.json", "after.json"):
        shutil.copy(os.path.join(d, "rxrefill-report.json"),
                    os.path.join(d, dst))
    # A sweep result as usertools/rxrefill-sweep writes it.
    with open(os.path.join(d, "sweep.json"), "w") as f:
        json.dump({"schema": "rxrefill-sweep/1", "unit": "pps",
                   "tolerance": 0.0, "strategies": [
                       {"strategy": s, "bulk": True, "no_drop_rate": 2e6,
                        "first_failing_rate": 4e6, "at_max": False,
                        "steps": [{"rate": r, "sent": 1000,
                                   "rx_packets": 1000 - int(loss * 1000),
                                   "loss": loss, "pass": loss == 0}
                                  for r, loss in ((1e6, 0), (4e6, 0.02),
                                                  (2e6, 0.0))]}
                       for s in ("bh", "zone")]}, f)
    return d, env


def case_doc_commands():
    d, env = scratch()
    ran, skipped, errors = 0, [], []
    for path, line, lang, text, skip in doc_blocks():
        first = text.lstrip().split("\n", 1)[0]
        if lang == "" and first.startswith(OURS):
            errors.append("%s:%d: a block not marked sh (commands) or "
                          "text (output)" % (path, line))
            continue
        if lang != "sh":
            continue
        if skip is not None:
            skipped.append("%s:%d (%s)" % (path, line, skip))
            continue
        if MACHINE.search(text):
            errors.append("%s:%d: would change the machine; mark it "
                          "<!-- doc-test: skip: why -->" % (path, line))
            continue
        p = sh(["bash", "-e", "-o", "pipefail", "-c", text], cwd=d,
               env=env, timeout=600)
        ran += 1
        if p.returncode != 0:
            errors.append("%s:%d: exit %d\n%s\n%s%s" % (
                path, line, p.returncode, text, p.stdout[-800:],
                p.stderr[-1500:]))
    for s in skipped:
        print("# skipped " + s)
    print("# %d blocks ran, %d skipped" % (ran, len(skipped)))
    assert not errors, "\n".join(errors)
    assert ran >= 3, "only %d documented blocks ran" % ran


def main():
    try:
        return tap.run(globals(), ONLY)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
