#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Layers of a static library: no call circle between its files, and
every global symbol carries one of the given prefixes.

Usage: report_layers.py [--graph] LIB.a PREFIX... [--order SOURCE...]
       report_layers.py --build BUILDDIR
Reads `nm` of the archive: a symbol one member leaves undefined and
another defines is a call (or a read) from the first file to the second.
With --order, each file may call only files listed before it.
With --build, every static library and program under app/, lib/ and
drivers/ of a meson build is checked for a circle, one test each.
Prints TAP; exits non-zero on a circle, a call up the order or an
unprefixed symbol.
"""

import glob
import json
import os
import subprocess
import sys


def members(*paths):
    """{member: (defined globals, undefined symbols)} from nm of an archive
    or of object files."""
    out = subprocess.run(['nm', '--print-file-name', *paths], check=True,
                         capture_output=True, text=True).stdout
    files = {}
    for line in out.splitlines():
        where, sym = line.rsplit(':', 1)
        cur = os.path.basename(where).rsplit('.c.o', 1)[0]
        defs, undefs = files.setdefault(cur, (set(), set()))
        parts = sym.split()
        # Names starting "__" are the implementation's (sanitizers add
        # __odr_asan.*, __asan_*, __ubsan_*, __tsan_* to every object).
        if len(parts) < 2 or parts[-1].startswith('__'):
            continue
        if len(parts) == 3 and parts[1] in 'TDBRCGSVW':
            defs.add(parts[2])
        elif parts[0] == 'U':
            undefs.add(parts[1])
    return files


def graph(files):
    """{file: {file it calls: symbols}}."""
    owner = {s: f for f, (defs, _) in files.items() for s in defs}
    g = {f: {} for f in files}
    for f, (_, undefs) in files.items():
        for s in undefs:
            t = owner.get(s)
            if t is not None and t != f:
                g[f].setdefault(t, set()).add(s)
    return g


def circle(g):
    """A list of files that call each other round, or None."""
    state, stack = {}, []

    def visit(f):
        state[f] = 1
        stack.append(f)
        for t in sorted(g[f]):
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state:
                c = visit(t)
                if c:
                    return c
        stack.pop()
        state[f] = 2
        return None

    for f in sorted(g):
        if f not in state:
            c = visit(f)
            if c:
                return c
    return None


def build_targets(build):
    """[(name, [archive] or [object...])]: the static libraries and
    programs of app/, lib/ and drivers/ in a meson build."""
    with open(os.path.join(build, 'meson-info', 'intro-targets.json')) as f:
        targets = json.load(f)
    out = []
    for t in targets:
        path = t['filename'][0]
        name = os.path.relpath(path, build)
        if not name.startswith(('app/', 'lib/', 'drivers/')):
            continue
        if t['type'] == 'static library':
            out.append((name, [path]))
        elif t['type'] == 'executable':
            srcs = {os.path.basename(s) + '.o' for ts in t['target_sources']
                    for s in ts.get('sources', []) if s.endswith('.c')}
            objs = [o for o in glob.glob(path + '.p/**/*.o', recursive=True)
                    if os.path.basename(o) in srcs]
            out.append((name, sorted(objs)))
    return sorted(out)


def circle_said(g, c):
    """A circle as the calls that make it."""
    return '; '.join('%s -> %s (%s)' % (a, b, ', '.join(sorted(g[a][b])))
                     for a, b in zip(c, c[1:]))


def check_build(build):
    """One test a library or program: no call circle between its files."""
    targets = build_targets(build)
    print('1..%d' % len(targets))
    failed = 0
    for n, (name, paths) in enumerate(targets, 1):
        g = graph(members(*paths)) if paths else {}
        c = circle(g)
        if not g or c:
            failed += 1
            print('not ok %d - %s: %s' % (n, name, 'call circle: ' +
                  circle_said(g, c) if c else 'no objects (not built?)'))
        else:
            print('ok %d - %s: no call circle between %d files' %
                  (n, name, len(g)))
    return 1 if failed or not targets else 0


def main(argv):
    if argv[1:2] == ['--build'] and len(argv) == 3:
        return check_build(argv[2])
    show = argv[1:2] == ['--graph']
    if show:
        argv = argv[1:]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    order = []
    if '--order' in argv:
        i = argv.index('--order')
        order = [os.path.basename(a).rsplit('.c', 1)[0] for a in argv[i + 1:]]
        argv = argv[:i]
    files = members(argv[1])
    if not files:
        print('Bail out! no object files in %s' % argv[1])
        return 1
    prefixes = tuple(argv[2:])
    g = graph(files)
    if show:
        for f in sorted(g):
            print('# %s -> %s' % (f, ' '.join(sorted(g[f])) or '-'))
    print('1..3')
    c = circle(g)
    if c:
        print('not ok 1 - no call circle between files: ' + circle_said(g, c))
    else:
        print('ok 1 - no call circle between %d files' % len(g))
    bad = sorted('%s in %s' % (s, f) for f, (defs, _) in files.items()
                 for s in defs if not s.startswith(prefixes))
    if bad:
        print('not ok 2 - globals without a prefix (%s): %s' %
              (' '.join(prefixes), ', '.join(bad)))
    else:
        print('ok 2 - every global has a prefix of: ' + ' '.join(prefixes))
    up = sorted('%s -> %s (%s)' % (f, t, ', '.join(sorted(g[f][t])))
                for f in g for t in g[f]
                if f in order and t in order and order.index(t) > order.index(f))
    if up:
        print('not ok 3 - calls up the order of the sources: ' + '; '.join(up))
    elif order:
        print('ok 3 - each file calls only files listed before it')
    else:
        print('ok 3 # SKIP no --order given')
    return 1 if c or bad or up else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
