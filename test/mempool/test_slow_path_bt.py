#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The slow paths' backtraces: a refill that misses the lcore's cache and
a free that overflows it, each stopped where it reaches the zone, under
gdb (batch mode) on slow_path_bt, a build of the allocator's sources with
debug information. Prints every frame from the zone up to the PMD's call,
inlined ones too, and counts the product files they are in (a header with
the source of its name); fails when either path runs through more than 4 (driver, strategy, pcp,
zone) for any strategy, or when bh's two paths were not seen (TAP).

Usage: test_slow_path_bt.py SLOW_PATH_BT SOURCE_ROOT [STRATEGY...]
"""

import os
import re
import subprocess
import sys
import tempfile

MAX_FILES = 4
CASES = {"refill_miss": "rxr_zone_alloc_bulk_locked",
         "drain_overflow": "rxr_zone_free_bulk_locked"}

# Runs inside gdb: at each stop in the zone under one of the cases, the
# frames up to that case's function, "frame|function|file|line|kind".
GDB_PY = r'''
import gdb
CASES = %r
seen = set()

def on_stop(ev):
    f, rows, case = gdb.newest_frame(), [], None
    stop = f.name()
    while f is not None:
        fn = f.function()
        name = fn.name if fn else (f.name() or "??")
        if CASES.get(name) == stop:
            case = name
            break
        sal = f.find_sal()
        rows.append("%%s|%%s|%%d|%%s" %% (name,
            sal.symtab.fullname() if sal.symtab else "?", sal.line,
            "inline" if f.type() == gdb.INLINE_FRAME else "call"))
        f = f.older()
    if case is not None and case not in seen:
        seen.add(case)
        print("BT-BEGIN " + case)
        for r in rows:
            print("BT " + r)
        print("BT-END")
    gdb.execute("continue")

gdb.events.stop.connect(on_stop)
''' % (CASES,)


def backtraces(prog, strategy):
    """{case: [(function, file, line, kind), ...]} of one run, and the
    program's output."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(GDB_PY)
        script = f.name
    cmd = ["gdb", "-nx", "-batch", "-ex", "set pagination off",
           "-ex", "set breakpoint pending on", "-ex", "source " + script]
    for fn in sorted(set(CASES.values())):
        cmd += ["-ex", "break " + fn]
    cmd += ["-ex", "run", "--args", prog, strategy]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=300).stdout
    finally:
        os.unlink(script)
    bts, cur = {}, None
    for ln in out.splitlines():
        if ln.startswith("BT-BEGIN "):
            cur = bts.setdefault(ln.split()[1], [])
        elif ln.startswith("BT ") and cur is not None:
            cur.append(tuple(ln[3:].split("|")))
        elif ln == "BT-END":
            cur = None
    return bts, out


def product_file(path, root):
    """The product source a frame is in (app/, lib/, drivers/), relative
    to the root; None outside the product."""
    rel = os.path.relpath(os.path.realpath(path), root)
    return rel if re.match(r"(app|lib|drivers)/", rel) else None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    prog, root = sys.argv[1], os.path.realpath(sys.argv[2])
    strategies = sys.argv[3:] or ["bh", "irqsave", "recycle", "rseq",
                                  "zone"]
    n = failed = 0
    for s in strategies:
        bts, out = backtraces(prog, s)
        if "refused" in out or "not available" in out:
            n += 1
            print("ok %d - %s # SKIP not available here" % (n, s))
            continue
        for case in CASES:
            n += 1
            frames = bts.get(case)
            if frames is None:
                ok = s != "bh"
                print("%s %d - %s %s: no zone transfer" %
                      ("ok" if ok else "not ok", n, s, case))
                failed += not ok
                continue
            files = []
            for fn, path, line, kind in frames:
                pf = product_file(path, root)
                print("#   %-28s %s:%s%s" % (fn, pf or path, line,
                      " (inlined)" if kind == "inline" else ""))
                # A header and the source of its name are one file.
                if pf and os.path.splitext(pf)[0] not in files:
                    files.append(os.path.splitext(pf)[0])
            ok = len(files) <= MAX_FILES
            failed += not ok
            print("%s %d - %s %s: %d product files: %s" %
                  ("ok" if ok else "not ok", n, s, case, len(files),
                   ", ".join(files)))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
