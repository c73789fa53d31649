#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Options and documented commands cannot drift from the programs.

    test_options.py SRCDIR RXREFILL GEN COMPARE PLOT SWEEP MANDIR [CASE...]

1. Each program and script prints its options table (PROGRAM
   --options-table, its format in usertools/rxrefill_tool.py): the
   options its parser declares (the option tables in app/, the argparse
   calls of the scripts) are the table's; every option of the table appears in its --help, in
   its man page (as built, rendered by man when man-db is installed) and in
   what the bash completion offers; each --help exits 0 and has an "Exit
   status:" paragraph; the argument of one option of each COMPLETE kind
   present completes as that kind says (bash with the completion loaded).
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

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import fixtures  # noqa: E402
import tap  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine_family  # noqa: E402

SRC, RXREFILL, GEN, COMPARE, PLOT, SWEEP, MANDIR = [
    os.path.abspath(a) for a in sys.argv[1:8]]
ONLY = sys.argv[8:]
TMP = tempfile.mkdtemp(prefix="rxr_options_")
BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
COMPLETION = os.path.join(SRC, "usertools", "rxrefill.bash-completion")
# Debian's python3, which has python3-matplotlib, for rxrefill-plot.
SYS_PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
    else sys.executable

PROGS = {
    # name: (program argv, parser sources...)
    "rxrefill": ([RXREFILL], "app/rxrefill/*.[ch]"),
    "rxrefill-gen": ([GEN], "app/gen/*.[ch]"),
    "rxrefill-compare": ([COMPARE], "app/compare/*.[ch]"),
    "rxrefill-plot": ([SYS_PY, PLOT], "usertools/rxrefill-plot",
                      "usertools/rxrefill_tool.py"),
    "rxrefill-sweep": ([SYS_PY, SWEEP], "usertools/rxrefill-sweep",
                       "usertools/rxrefill_tool.py"),
}
# The hidden option that prints the table: in no table, help or page.
HIDDEN = {"options-table"}
KINDS = re.compile(r"^(none|file|dir|profile|(file|files):[\w.+-]+(,[\w.+-]+)*"
                   r"|(words|list):[^,\s]+(,[^,\s]+)*)$")


def sh(cmd, timeout=120, **kw):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=timeout, **kw)


def sources(name):
    paths = [p for g in PROGS[name][1:]
             for p in sorted(glob.glob(os.path.join(SRC, g)))]
    assert paths, "no source for " + name
    text = ""
    for path in paths:
        with open(path) as f:
            text += f.read()
    return text


def declared(name):
    """(long, short) option names the program's parser declares in its
    source: the struct rxr_opt entries of a C program's table, the
    add_argument() and opt() calls of a script."""
    text = sources(name)
    if not PROGS[name][1].endswith("*.[ch]"):
        longs, shorts = [], []
        for call in re.findall(r"\b(?:add_argument|opt)\(([^)]*)", text):
            for o in re.findall(r'"(-[^"]+)"', call):
                (longs if o.startswith("--") else shorts).append(
                    o.lstrip("-"))
        if "add_help=False" not in text:
            longs.append("help")
            shorts.append("h")
        assert longs, "no option found in the source of " + name
    else:
        # struct rxr_opt initializers: { "long", 'x' or 0, ...
        rows = re.findall(r'\{\s*"([a-z0-9][a-z0-9-]*)",\s*'
                          r"(0|'[A-Za-z0-9]')\s*,", text)
        longs = [r[0] for r in rows]
        shorts = [r[1].strip("'") for r in rows if r[1] != "0"]
        assert longs, "no struct rxr_opt entry in the source of " + name
    return sorted(set(longs) - HIDDEN), sorted(set(shorts))


def table(name):
    """The rows of the program's --options-table as dicts, or None when
    the program prints no table."""
    p = sh(PROGS[name][0] + ["--options-table"], timeout=30)
    if p.returncode != 0 or not p.stdout.startswith("# options-table 1"):
        return None
    lines = p.stdout.splitlines()
    assert lines[0] == "# options-table 1 " + name, lines[0]
    rows, seen = [], set()
    for n, line in enumerate(lines[1:], 2):
        f = line.split("\t")
        assert len(f) == 7, "%s --options-table line %d: %d fields: %r" % (
            name, n, len(f), line)
        r = dict(zip(("long", "short", "arg", "default", "complete",
                      "section", "help"), f))
        assert all(f), "%s line %d: an empty field" % (name, n)
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", r["long"]), line
        assert re.fullmatch(r"[A-Za-z0-9]|-", r["short"]), line
        assert KINDS.match(r["complete"]), "%s --%s: COMPLETE %r" % (
            name, r["long"], r["complete"])
        assert r["arg"] != "-" or r["complete"] == "none", line
        for k in ("--" + r["long"], "-" + r["short"]):
            assert k not in seen or k == "--", "%s: %s twice" % (name, k)
            seen.add(k)
        rows.append(r)
    assert rows, name + ": an empty options table"
    return rows


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


def completions(name, words, cwd=None):
    """What the completion offers for the command line words (the last
    one being completed), run in cwd."""
    script = (
        'source %s; source %s; PATH=%s:$PATH; COMP_WORDS=(%s); '
        'COMP_CWORD=%d; COMP_LINE="${COMP_WORDS[*]}"; '
        'COMP_POINT=${#COMP_LINE}; _rxrefill %s "${COMP_WORDS[COMP_CWORD]}" '
        '"${COMP_WORDS[COMP_CWORD-1]}"; printf "%%s\\n" "${COMPREPLY[@]}"'
    ) % (BASH_COMPLETION, COMPLETION, ":".join(
        os.path.dirname(p) for p in (RXREFILL, GEN, COMPARE, PLOT, SWEEP)),
        " ".join("'%s'" % w for w in [name] + words), len(words), name)
    p = sh(["bash", "-c", script], timeout=60, cwd=cwd)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def has(text, opt):
    return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), text)


def check_program(name):
    longs, shorts = declared(name)
    rows = table(name)
    helps, man = help_text(name), man_text(name)
    missing = []
    assert rows is not None, name + " prints no --options-table"
    t_longs = sorted(r["long"] for r in rows)
    t_shorts = sorted(r["short"] for r in rows if r["short"] != "-")
    assert longs == t_longs, "%s: the parser's long options %s, " \
        "the table's %s" % (name, longs, t_longs)
    assert shorts == t_shorts, "%s: the parser's short options " \
        "%s, the table's %s" % (name, shorts, t_shorts)
    opts = ["--" + o for o in t_longs] + ["-" + o for o in t_shorts]
    for o in opts:
        if not has(helps, o):
            missing.append("%s not in --help" % o)
        if not has(man, o):
            missing.append("%s not in the man page" % o)
    for o in HIDDEN:
        assert not has(helps, "--" + o), "%s --help shows --%s" % (name, o)
    assert re.search(r"^Exit status: ", helps, re.M), \
        "%s --help says nothing of its exit status" % name
    assert re.search(r"^EXIT STATUS", man, re.M), name + ": no EXIT STATUS"
    if os.path.exists(BASH_COMPLETION):
        got = set(completions(name, (["--"] if name == "rxrefill" else [])
                              + ["-"]))
        for o in opts:
            if o not in got:
                missing.append("%s not completed" % o)
    else:
        print("# bash-completion not installed: completion not checked")
    assert not missing, "%s: %s" % (name, "; ".join(missing))
    print("# %s: %d options in %s, --help, man page and completion" % (
        name, len(opts), "its table" if rows else "its source"))


def case_rxrefill_options():
    check_program("rxrefill")


def case_gen_options():
    check_program("rxrefill-gen")


def case_compare_options():
    check_program("rxrefill-compare")


def case_plot_options():
    check_program("rxrefill-plot")


def case_sweep_options():
    check_program("rxrefill-sweep")


def case_help_version():
    for name, (argv, *_) in PROGS.items():
        for o in ("--help", "--version"):
            p = sh(argv + [o], timeout=30)
            assert p.returncode == 0 and p.stdout.strip(), \
                "%s %s: exit %d %s" % (name, o, p.returncode, p.stderr)


def kind_check(kind, got, d):
    """Does what the completion offered (got, in folder d) complete as
    COMPLETE kind says? d holds x1.json, x2.txt, x3.profile, x4.pcap and
    the folder sub/; the word completed is given by kind_word()."""
    files = {"x1.json", "x2.txt", "x3.profile", "x4.pcap"}
    base = kind.split(":", 1)[0]
    vals = kind.split(":", 1)[1].split(",") if ":" in kind else []
    if base == "none":
        return got == []
    if base == "file":
        want = files | {"sub"} if not vals else \
            {f for f in files if f.rsplit(".", 1)[1] in vals} | {"sub"}
        return set(got) == want
    if base == "files":
        return set(got) == {"x4.pcap,sub/"} | {
            "x4.pcap," + f for f in files if f.rsplit(".", 1)[1] in vals}
    if base == "dir":
        return got == ["sub"] or got == ["sub/"]
    if base == "words":
        return sorted(got) == sorted(vals)
    if base == "list":
        return sorted(got) == sorted("%s,%s" % (vals[0], v) for v in vals)
    if base == "profile":
        return "x3.profile" in got and not {"x1.json", "x2.txt"} & set(got)
    return False


def kind_word(kind):
    """The word completed for a kind: a list after its first item."""
    if kind.startswith("list:"):
        return kind[5:].split(",")[0] + ","
    if kind.startswith("files:"):
        return "x4.pcap,"
    return ""


def case_completion_kinds():
    if not os.path.exists(BASH_COMPLETION):
        raise tap.Skip("bash-completion is not installed")
    d = os.path.join(TMP, "kinds")
    os.makedirs(os.path.join(d, "sub"))
    for f in ("x1.json", "x2.txt", "x3.profile", "x4.pcap"):
        open(os.path.join(d, f), "w").close()
    tried, errors = {}, []
    for name in PROGS:
        rows = table(name)
        for r in rows or []:
            kind = r["complete"]
            # file and file:EXT are two kinds, words:A and words:B one.
            base = kind.split(":")[0] + (":" if ":" in kind else "")
            if r["arg"] == "-" or base in tried or r["arg"].startswith("["):
                continue
            opt = "--" + r["long"]
            words = (["--"] if name == "rxrefill" else []) + \
                [opt, kind_word(kind)]
            got = completions(name, words, cwd=d)
            tried[base] = "%s %s" % (name, opt)
            if not kind_check(kind, got, d):
                errors.append("%s %s (%s): offered %s" % (
                    name, opt, kind, got))
    print("# kinds tried: " + ", ".join(
        "%s (%s)" % (k, v) for k, v in sorted(tried.items())))
    assert not errors, "\n".join(errors)
    for k in ("none", "file", "file:", "dir", "words:", "list:"):
        assert k in tried, "no option of kind %s in any table" % k


def case_completion_values():
    if not os.path.exists(BASH_COMPLETION):
        raise tap.Skip("bash-completion is not installed")
    got = completions("rxrefill", ["--", "--strategy", "bh,"])
    assert "bh,zone" in got and "bh,recycle" in got, got
    # A strategy's settings: the registry's STRATEGY.NAME words, after
    # a setting already given too.
    row = [r for r in table("rxrefill") if r["long"] == "strategy-setting"]
    keys = [w for w in row[0]["complete"].split(":", 1)[1].split(",")
            if "." in w]
    assert keys, row
    s = keys[0].split(".")[0]
    got = completions("rxrefill", ["--", "--strategy-setting", s + "."])
    assert sorted(got) == sorted(k for k in keys if k.startswith(s + ".")), \
        got
    got = completions("rxrefill", ["--", "--strategy-setting",
                                   "%s=1,%s" % (keys[0], keys[-1][:-1])])
    assert got == ["%s=1,%s" % (keys[0], keys[-1])], got
    open(os.path.join(TMP, "x1.pcap"), "w").close()
    got = completions("rxrefill", ["--", "--replay", "a.pcap,x"], cwd=TMP)
    assert "a.pcap,x1.pcap" in got, got
    got = completions("rxrefill", ["-"])
    for o in ("-l", "--file-prefix", "--no-huge", "-m", "-a", "--no-pci",
              "--lcores", "--in-memory", "--log-level", "--vdev", "--"):
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
    got = completions("rxrefill-sweep", ["--strategy", "bh,"])
    assert "bh,zone" in got, got
    got = completions("rxrefill-sweep", ["--bulk=b"])
    assert got == ["both"], got


# --- documented commands ----------------------------------------------------

BLOCK = re.compile(r"^```(\w*)[ \t]*\n(.*?)^```", re.M | re.S)
MARK = re.compile(r"<!--\s*doc-test:\s*skip:\s*(.*?)\s*-->\s*$")
OURS = ("rxrefill", "rxrefill-gen", "rxrefill-compare", "rxrefill-plot",
        "usertools/", "build/", "meson", "ninja", "bash ", "./build")
# What only a block marked skip may do.
MACHINE = re.compile(r"/sys/|/proc/|\bmount\b|quickstart\.sh|\bmeson\b|"
                     r"\bninja\b|\bip netns\b|\bsudo\b|dpdk-hugepages|"
                     r"\bsysctl\b|\bmodprobe\b")
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
    mine_family("rxr_doc_%d_" % os.getpid())
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
    fixtures.write_sweep(os.path.join(d, "sweep.json"))
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
    return tap.run(globals(), ONLY, tmp=TMP)


if __name__ == "__main__":
    sys.exit(main())
