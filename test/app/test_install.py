#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""meson install into a temporary DESTDIR, and each file checked (TAP):
the three programs, rxrefill-plot and rxrefill-sweep, their man pages,
the bash completion under bash-completion's directory, the profiles, and
--profile NAME finding an installed profile.

Usage: test_install.py BUILD_DIR PREFIX BINDIR MANDIR DATADIR COMPLETIONSDIR
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine  # noqa: E402

BUILD, PREFIX, BINDIR, MANDIR, DATADIR, COMPDIR = sys.argv[1:7]
TMP = tempfile.mkdtemp(prefix="rxr_install_")
DEST = os.path.join(TMP, "dest")
PROGS = ["rxrefill", "rxrefill-gen", "rxrefill-compare", "rxrefill-plot",
         "rxrefill-sweep"]
results = []


def under(*parts):
    """A path of the install, under DESTDIR (absolute or prefix-relative)."""
    p = os.path.join(*parts)
    if not os.path.isabs(p):
        p = os.path.join(PREFIX, p)
    return DEST + p


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          **kw)


def check(name, fn):
    try:
        fn()
        results.append((True, name, ""))
    except AssertionError as e:
        results.append((False, name, str(e)))


def install():
    meson = shutil.which("meson")
    assert meson, "meson not in PATH"
    p = sh([meson, "install", "-C", BUILD, "--no-rebuild", "--quiet",
            "--destdir", DEST])
    assert p.returncode == 0, "meson install: %s %s" % (p.stdout[-2000:],
                                                      p.stderr[-2000:])


def programs():
    for prog in PROGS:
        path = under(BINDIR, prog)
        assert os.path.isfile(path), "missing " + path
        assert os.access(path, os.X_OK), "not executable: " + path
        cmd = [path, "--version"]
        if prog in ("rxrefill-plot", "rxrefill-sweep"):
            cmd = ["/usr/bin/python3", path, "--version"]
        p = sh(cmd)
        assert p.returncode == 0 and p.stdout.startswith(prog + " "), \
            (prog, p.stdout, p.stderr)


def man_pages():
    for prog in PROGS:
        path = under(MANDIR, "man1", prog + ".1")
        assert os.path.isfile(path), "missing " + path
        text = open(path).read()
        assert '.TH %s "1"' % prog.upper() in text, (path, text[:300])
        assert '"%s ' % prog in text, "no version in " + path
        for sec in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS",
                    "EXIT STATUS", "FILES", "EXAMPLES", "SEE ALSO"):
            assert re.search(r'^\.SH "?%s"?$' % sec, text, re.M), \
                "%s: no %s section" % (path, sec)
        # The page is the program's, not a build's: no DPDK versions.
        assert "built against" not in text, path
        # Made from --help: the options are there.
        opt = {"rxrefill": "\\-\\-strategy", "rxrefill-gen": "\\-\\-streams",
               "rxrefill-compare": "\\-\\-format",
               "rxrefill-plot": "\\-\\-sweep",
               "rxrefill-sweep": "\\-\\-sender"}[prog]
        assert opt in text or opt.replace("\\-", "-") in text, (path, opt)
        if shutil.which("man") is None:
            print("# man (man-db) not installed: %s not rendered" % path)
            continue
        p = sh(["man", "-l", "-P", "cat", path],
               env=dict(os.environ, MANWIDTH="80"))
        assert p.returncode == 0 and prog in p.stdout, p.stderr


def completion():
    for prog in PROGS:
        path = under(COMPDIR, prog)
        assert os.path.isfile(path), "missing " + path
    bc = "/usr/share/bash-completion/bash_completion"
    path = under(COMPDIR, "rxrefill")
    p = sh(["bash", "-n", path])
    assert p.returncode == 0, p.stderr
    if os.path.exists(bc):
        # Complete "rxrefill -- --strat" with the installed program.
        script = ("source %s; source %s; PATH=%s:$PATH; "
                  "COMP_WORDS=(rxrefill -- --strat); COMP_CWORD=2; "
                  "COMP_LINE='rxrefill -- --strat'; COMP_POINT=${#COMP_LINE};"
                  " _rxrefill rxrefill --strat --; "
                  "printf '%%s\\n' \"${COMPREPLY[@]}\"; "
                  "COMP_WORDS=(rxrefill -- --profile rx); COMP_CWORD=3; "
                  "COMP_LINE='rxrefill -- --profile rx'; "
                  "COMP_POINT=${#COMP_LINE}; _rxrefill rxrefill rx --profile;"
                  " printf '%%s\\n' \"${COMPREPLY[@]}\"; "
                  "COMP_WORDS=(rxrefill -- --stream-counting de); "
                  "COMP_CWORD=3; "
                  "COMP_LINE='rxrefill -- --stream-counting de'; "
                  "COMP_POINT=${#COMP_LINE}; "
                  "_rxrefill rxrefill de --stream-counting;"
                  " printf '%%s\\n' \"${COMPREPLY[@]}\"; "
                  "COMP_WORDS=(rxrefill-sweep --bulk b); COMP_CWORD=2; "
                  "COMP_LINE='rxrefill-sweep --bulk b'; "
                  "COMP_POINT=${#COMP_LINE}; "
                  "_rxrefill rxrefill-sweep b --bulk;"
                  " printf '%%s\\n' \"${COMPREPLY[@]}\"") % (
                      bc, path, under(BINDIR))
        p = sh(["bash", "-c", script])
        got = p.stdout.split()
        assert "--strategy" in got, (p.stdout, p.stderr)
        assert "rxonly" in got, (p.stdout, p.stderr)
        assert "deferred" in got, (p.stdout, p.stderr)
        # The installed sweep's own table.
        assert "both" in got, (p.stdout, p.stderr)


def profiles():
    src = os.path.join(os.path.dirname(__file__), "..", "..", "config",
                       "profiles")
    want = sorted(f for f in os.listdir(src) if f.endswith(".profile"))
    d = under(DATADIR, "rxrefill", "profiles")
    got = sorted(os.listdir(d)) if os.path.isdir(d) else []
    assert got == want, (got, want)


def profile_by_name():
    rx = under(BINDIR, "rxrefill")
    gen = under(BINDIR, "rxrefill-gen")
    cap = os.path.join(TMP, "cap")
    p = sh([gen, "-o", cap, "--quiet", "-q", "1", "-s", "2", "-n", "50"])
    assert p.returncode == 0, p.stderr
    report = os.path.join(TMP, "profile.json")
    prefix = mine("rxr_inst_%d" % os.getpid())
    # rxonly.profile: consumer none, latency off; the command line narrows
    # the strategies after it.
    p = sh([rx, "-l", "0-1", "--no-pci", "--file-prefix", prefix,
            "--log-level", "lib.eal:error", "--", "--profile", "rxonly",
            "--replay", cap + ".q0.pcap", "--loops", "1", "--reps", "1",
            "--strategy", "bh", "--report", report, "--no-table"])
    assert p.returncode == 0, (p.stdout[-1500:], p.stderr[-1500:])
    with open(report) as f:
        opts = json.load(f)["env"]["options"]
    assert opts["consumer"] == "none", opts
    p = sh([rx, "--", "--profile", "no-such-profile", "--replay", "x"])
    assert p.returncode != 0 and "no-such-profile" in p.stderr, p.stderr


def main():
    try:
        install()
    except AssertionError as e:
        print("# " + str(e).replace("\n", "\n# "))
        print("not ok 1 - install\n1..1")
        return 1
    results.append((True, "install", ""))
    for name, fn in (("programs", programs), ("man_pages", man_pages),
                     ("completion", completion), ("profiles", profiles),
                     ("profile_by_name", profile_by_name)):
        check(name, fn)
    for i, (ok, name, msg) in enumerate(results, 1):
        for line in msg.splitlines():
            print("# " + line)
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
    print("1..%d" % len(results))
    shutil.rmtree(TMP, ignore_errors=True)
    return 0 if all(r[0] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
