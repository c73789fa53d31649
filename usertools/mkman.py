#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Build a program's man page: a hand-written roff template whose OPTIONS
section is made from the program's own options table (PROGRAM
--options-table, the table its parser, --help and the bash completion
come from), so the man page lists the options the program has and never
drifts from it.

    mkman.py TEMPLATE OUTPUT VERSION PROGRAM [ARG...]

runs PROGRAM [ARG...] --options-table and --help and writes TEMPLATE to
OUTPUT with @OPTIONS@ replaced by the options as roff (a .SS per SECTION
of the table, a .TP per option with its argument, its help and its
default), @EXIT_STATUS@ by the help's "Exit status:" paragraph, and
@VERSION@, @DATE@ by the version and the date (SOURCE_DATE_EPOCH when set,
for reproducible builds). A help without options or without an exit
status paragraph is an error: every program documents both.
"""

import datetime
import os
import re
import subprocess
import sys

# The path rules of the C programs: OUTPUT is never a device, a FIFO, a
# directory or TEMPLATE, and is replaced only when complete.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rxrefill_tool import (EXIT_USAGE, TABLE_HEADER, Outputs,  # noqa: E402
                           ToolError, on_signals, shown)


def esc(s):
    """Text for roff: backslashes, dashes, and no request at a line start."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def table_roff(table):
    """The options of an --options-table text as roff."""
    out, section = [], None
    for n, line in enumerate(table.splitlines()[1:], 2):
        if not line.strip():
            continue
        f = line.split("\t")
        if len(f) != 7:
            raise ValueError("line %d: %d fields, not 7" % (n, len(f)))
        long_, short, arg, default, _complete, sect, text = f
        if sect != section:
            section = sect
            out.append('.SS "%s"' % esc(sect))
        names = (["\\fB\\-%s\\fR" % esc(short)] if short != "-" else []) + \
            (["\\fB\\-\\-%s\\fR" % esc(long_)] if long_ != "-" else [])
        tag = ", ".join(names)
        if arg.startswith("[") and arg.endswith("]"):
            # An optional argument is attached: --opt=N, -oN.
            tag += "[%s\\fI%s\\fR]" % ("=" if long_ != "-" else "",
                                      esc(arg[1:-1]))
        elif arg != "-":
            tag += " \\fI%s\\fR" % esc(arg)
        out.append(".TP")
        out.append(tag)
        body = esc(text) if text != "-" else ""
        if default != "-" and not re.search(r"\bdefault\b", text, re.I):
            if body and body[-1] not in ".!?":
                body += "."
            body += "%sDefault: \\fI%s\\fR." % (" " if body else "",
                                              esc(default))
        if body:
            out.append(body)
    return "\n".join(out)


def exit_status(help_text):
    """The help's paragraph that starts with "Exit status:", as roff."""
    m = re.search(r"^Exit status: (.*?)(?:\n\s*\n|\Z)", help_text,
                  re.M | re.S)
    if not m:
        return None
    text = " ".join(m.group(1).split())
    return esc(text[:1].upper() + text[1:])


def run(prog, option):
    """PROGRAM [ARG...] OPTION's output; ToolError when it cannot be run or
    says nothing, exits non-zero or prints no options table."""
    what = " ".join(prog + [option])
    try:
        p = subprocess.run(prog + [option], capture_output=True, text=True,
                           timeout=60)
    except OSError as e:
        raise ToolError("%s: cannot run: %s" % (shown(prog[0]),
                                                e.strerror or e))
    except subprocess.TimeoutExpired:
        raise ToolError("%s: no answer in 60 s" % shown(what))
    if p.returncode != 0 or not p.stdout.strip() or (
            option == "--options-table" and
            not p.stdout.startswith(TABLE_HEADER)):
        raise ToolError("%s: exit %d, no %s\n%s" % (
            what, p.returncode, option[2:], p.stderr))
    return p.stdout


def build_date():
    """SOURCE_DATE_EPOCH (reproducible builds) when set, else now."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return datetime.datetime.now(datetime.timezone.utc)
    try:
        if not re.fullmatch(r"\d{1,15}", epoch):
            raise ValueError
        return datetime.datetime.fromtimestamp(int(epoch),
                                               datetime.timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise ToolError("SOURCE_DATE_EPOCH '%s': not a number of seconds "
                        "since 1970" % shown(epoch, 40), EXIT_USAGE)


def main(argv):
    usage = "usage: mkman.py TEMPLATE OUTPUT VERSION PROGRAM [ARG...]"
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        sys.stdout.write("%s\n\n%s" % (usage, __doc__))
        return 0
    if len(argv) < 5 or argv[1].startswith("-"):
        sys.stderr.write("%s (see --help)\n" % usage)
        return EXIT_USAGE
    on_signals()
    try:
        make(*argv[1:4], argv[4:])
    except ToolError as e:
        sys.stderr.write("mkman: %s\n" % e)
        return e.status
    return 0


def make(template, output, version, prog):
    when = build_date()
    out = Outputs([template] + prog, "OUTPUT")
    out.add(output)
    out.check()         # before any work; TEMPLATE a regular file
    try:
        with open(template, "rb") as f:
            text = f.read().decode("utf-8")
    except OSError as e:
        raise ToolError("%s: %s" % (shown(template), e.strerror))
    except UnicodeDecodeError as e:
        raise ToolError("%s: not UTF-8 text (byte %d)" % (shown(template),
                                                         e.start))
    try:
        opts = table_roff(run(prog, "--options-table"))
    except ValueError as e:
        raise ToolError("%s --options-table: %s" % (prog[-1], e))
    status = exit_status(run(prog, "--help"))
    if ".TP" not in opts or status is None:
        raise ToolError("%s: no options, or no 'Exit status:' paragraph in "
                        "its --help" % prog[-1])
    text = (text.replace("@OPTIONS@", opts)
            .replace("@EXIT_STATUS@", status).replace("@VERSION@", version)
            .replace("@DATE@", when.strftime("%Y-%m-%d")))
    # A temporary file of its own beside OUTPUT, renamed over it whole.
    out.write(output, lambda f: f.write(text.encode("utf-8")))
    out.commit()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
