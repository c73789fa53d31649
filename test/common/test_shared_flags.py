#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""No volatile object is shared between threads (TAP).

volatile is not synchronization in C11: a flag one thread writes and
another reads is an atomic (doc/testing.md, "Memory shared between
threads"). This reads every C source and header under app/, lib/, drivers/
and test/ and fails on each `volatile` that is not one of the named
exceptions: inline assembly, and objects written by a signal handler and
read by the thread it interrupted, or kept from the optimizer, in a
program or test with no other thread touching them.
Usage: test_shared_flags.py SOURCE_ROOT
"""

import os
import re
import sys

DIRS = ("app", "lib", "drivers", "test")

# (path, text of the line) -> why the volatile there is not shared.
EXCEPTIONS = {
    ("app/gen/gen_out.c", "static char *volatile live[LIVE_MAX];"):
        "rxrefill-gen is one thread: its stop handler reads the names",
    ("test/strategy/test_strategy.c", "static volatile struct {"):
        "irq_job: a handler raised on the calling thread",
    ("test/strategy/test_strategy.c",
     "static volatile unsigned int entry_allocs;"):
        "counted by the test thread and a handler it raises",
    ("test/zero/bench_zero.c",
     "static void *(*volatile memset_fn)(void *, int, size_t) = memset;"):
        "keeps the compiler from folding the baseline; one thread",
}

ASM = re.compile(r"\b(asm|__asm__)\s+(volatile|__volatile__)\b")
WORD = re.compile(r"\bvolatile\b")


def strip_comments(text):
    """Text with /* */ and // comments blanked, line count kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    bad, seen, files = [], set(), 0
    for d in DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                files += 1
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                raw = text.splitlines()
                for i, line in enumerate(strip_comments(text).splitlines()):
                    if not WORD.search(ASM.sub("", line)):
                        continue
                    key = (rel, raw[i].strip())
                    if key in EXCEPTIONS:
                        seen.add(key)
                    else:
                        bad.append("%s:%d: %s" % (rel, i + 1, raw[i].strip()))
    print("1..2")
    print("%s 1 - no volatile shared between threads (%d files read)" %
          ("not ok" if bad else "ok", files))
    for b in bad:
        print("# %s: make it an atomic (stdatomic.h), or name it in "
              "EXCEPTIONS with why no other thread touches it" % b)
    stale = sorted(set(EXCEPTIONS) - seen)
    print("%s 2 - every exception still names a line" %
          ("not ok" if stale else "ok"))
    for path, line in stale:
        print("# %s: %r is gone: remove it from EXCEPTIONS" % (path, line))
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
