# SPDX-License-Identifier: BSD-3-Clause
"""The options table of rxrefill-plot and rxrefill-sweep: their argparse
parsers are the table, and the hidden option --options-table prints it in
the form the C programs print theirs, for the man page (mkman.py), the
bash completion and test/app/test_options.py:

    # options-table 1 PROGRAM
    LONG<TAB>SHORT<TAB>ARG<TAB>DEFAULT<TAB>COMPLETE<TAB>SECTION<TAB>HELP

one line per option in --help order ("-" for an empty field). Add the
options with opt(), which records how the completion completes the
argument (COMPLETE: none, file, file:EXT,..., files:EXT, dir,
words:A,B, list:A,B, profile; default: the choices as words, else none),
in argument groups whose titles are the sections; then call
table_option(parser).

Like rxrefill_paths.py, this file is copied into the installed scripts
(see subst_version.py); in the source tree they import it from their own
directory.
"""

import argparse
import sys

__all__ = ["opt", "table_option", "options_table", "TABLE_HEADER",
           "table_longs", "long_option"]

TABLE_HEADER = "# options-table 1"


def opt(where, *names, complete=None, **kw):
    """where.add_argument(*names, **kw), remembering complete (a string,
    or a function returning one, called only when the table is printed)."""
    a = where.add_argument(*names, **kw)
    a.complete = complete
    return a


def _one_line(s):
    return " ".join(str(s).split())


def _row(ap, a, section):
    longs = [o[2:] for o in a.option_strings if o.startswith("--")]
    shorts = [o[1:] for o in a.option_strings
              if len(o) == 2 and o[0] == "-" and o[1] != "-"]
    takes = a.nargs != 0
    if takes:
        m = a.metavar or a.dest.upper()
        if isinstance(m, tuple):
            m = " ".join(m)
        arg = "[%s]" % m if a.nargs == "?" else m
    else:
        arg = "-"
    d = a.default
    if not takes or d is None or d is argparse.SUPPRESS or d == [] or \
            d == "":
        default = "-"
    elif isinstance(d, float):
        default = "%g" % d
    else:
        default = str(d)
    comp = getattr(a, "complete", None)
    if callable(comp):
        comp = comp()
    if not comp:
        comp = "words:" + ",".join(str(c) for c in a.choices) \
            if takes and a.choices else "none"
    helps = a.help or ""
    if "%" in helps:    # argparse's %(default)s, as a user would type it
        helps = helps % dict(vars(a), prog=ap.prog, default=default)
    return "\t".join(_one_line(x) or "-" for x in (
        longs[0] if longs else "-", shorts[0] if shorts else "-", arg,
        default, comp, section, helps))


def options_table(ap):
    """The table of parser ap, as text (every option its --help shows)."""
    lines = ["%s %s" % (TABLE_HEADER, ap.prog)]
    for g in ap._action_groups:
        for a in g._group_actions:
            if a.option_strings and a.help != argparse.SUPPRESS:
                lines.append(_row(ap, a, g.title or "Options"))
    return "\n".join(lines) + "\n"


class _TableAction(argparse.Action):
    def __init__(self, option_strings, dest, **kw):
        argparse.Action.__init__(self, option_strings, dest, nargs=0,
                                 default=argparse.SUPPRESS,
                                 help=argparse.SUPPRESS)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(options_table(parser))
        sys.stdout.flush()
        parser.exit(0)


def table_option(ap):
    """Give ap the hidden --options-table: print the table, exit 0."""
    ap.add_argument("--options-table", action=_TableAction)


def table_longs(text):
    """{LONG: ARG} of an options table's text (ARG "-" for none, "[X]"
    for an optional one): the long options its program's getopt_long
    knows; {} when text is no table."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith(TABLE_HEADER):
        return {}
    longs = {}
    for row in lines[1:]:
        f = row.split("\t")
        if len(f) == 7 and f[0] != "-":
            longs[f[0]] = f[2]
    return longs


def long_option(word, longs):
    """The long options of longs getopt_long may take word ("--NAME" or
    "--NAME=VALUE") for: [NAME] itself, or those NAME abbreviates; one
    is the option ("--loop" for --loops), several an ambiguous
    abbreviation, none no option of longs (the program refuses both)."""
    name = word[2:].split("=", 1)[0]
    if name in longs:
        return [name]
    return [n for n in longs if n.startswith(name)] if name else []
