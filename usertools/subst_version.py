#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Copy a script, replacing @VERSION@ with the project version and `git
describe` when the source is a checkout (as rxr_version() prints it), and
make the copy executable; each line "from rxrefill_X import *" is
replaced by the text of usertools/rxrefill_X.py (the path rules, the
options table), so that the installed script stands alone.
Usage: subst_version.py IN OUT VERSION SRCDIR"""

import os
import re
import subprocess
import sys

src, dst, version, srcdir = sys.argv[1:5]
try:
    d = subprocess.run(["git", "-C", srcdir, "describe", "--always",
                        "--dirty", "--tags"], capture_output=True,
                       text=True, check=True).stdout.strip()
    if d and d != version:
        version = "%s (git %s)" % (version, d)
except (OSError, subprocess.CalledProcessError):
    pass
with open(src, encoding="utf-8") as f:
    text = f.read().replace("@VERSION@", version)
here = os.path.dirname(os.path.abspath(src))


def inline(m):
    name = m.group(1) + ".py"
    with open(os.path.join(here, name), encoding="utf-8") as f:
        body = f.read()
    return "# --- %s, copied in at build time ---\n%s# --- end of %s ---" % (
        name, body, name)


text = re.sub(r"^from (rxrefill_\w+) import \*.*$", inline, text,
              flags=re.M)
with open(dst + ".tmp", "w", encoding="utf-8") as f:
    f.write(text)
os.chmod(dst + ".tmp", 0o755)
os.replace(dst + ".tmp", dst)
