#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Copy a script, replacing @VERSION@ with the project version and `git
describe` when the source is a checkout (as rxr_version() prints it), and
make the copy executable; each line "from rxrefill_X import *" is
replaced by the text of usertools/rxrefill_X.py (rxrefill_tool.py: what
the Python tools share), so that the installed script stands alone.
Usage: subst_version.py IN OUT VERSION SRCDIR"""

import os
import re
import sys

# The path rules of the C programs: OUT is never a device, a FIFO, a
# directory or an input, and is replaced only when complete.
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from rxrefill_tool import (EXIT_USAGE, Outputs, ToolError,  # noqa: E402
                           git_version, on_signals, read_text)


def copy(src, dst, version, srcdir):
    out = Outputs([src, os.path.join(here, "rxrefill_tool.py")], "OUT")
    out.add(dst)
    out.check()         # before any work
    text = read_text(src).replace("@VERSION@", git_version(version, srcdir))
    base = os.path.dirname(os.path.abspath(src))

    def inline(m):
        name = m.group(1) + ".py"
        body = read_text(os.path.join(base, name))
        return "# --- %s, copied in at build time ---\n%s# --- end of " \
            "%s ---" % (name, body, name)

    text = re.sub(r"^from (rxrefill_\w+) import \*.*$", inline, text,
                  flags=re.M)

    def write(f):
        os.fchmod(f.fileno(), 0o755)    # a script: executable
        f.write(text.encode("utf-8"))

    out.write(dst, write)
    out.commit()


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__ + "\n")
        return 0
    if len(argv) != 5 or argv[1].startswith("-"):
        sys.stderr.write("usage: subst_version.py IN OUT VERSION SRCDIR "
                         "(see --help)\n")
        return EXIT_USAGE
    on_signals()
    try:
        copy(*argv[1:5])
    except ToolError as e:
        sys.stderr.write("subst_version: %s\n" % e)
        return e.status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
