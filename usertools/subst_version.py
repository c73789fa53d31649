#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Copy a script, replacing @VERSION@ with the project version and `git
describe` when the source is a checkout (as rxr_version() prints it), and
make the copy executable; a line "from rxrefill_paths import *" is
replaced by that module's text, so that the installed script stands alone.
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
mod = os.path.join(os.path.dirname(os.path.abspath(src)), "rxrefill_paths.py")
if re.search(r"^from rxrefill_paths import \*.*$", text, re.M):
    with open(mod, encoding="utf-8") as f:
        body = f.read()
    text = re.sub(r"^from rxrefill_paths import \*.*$",
                  lambda m: "# --- %s, copied in at build time ---\n%s"
                  "# --- end of %s ---" % (os.path.basename(mod), body,
                                           os.path.basename(mod)),
                  text, count=1, flags=re.M)
with open(dst + ".tmp", "w", encoding="utf-8") as f:
    f.write(text)
os.chmod(dst + ".tmp", 0o755)
os.replace(dst + ".tmp", dst)
