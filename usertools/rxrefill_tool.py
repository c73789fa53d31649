# SPDX-License-Identifier: BSD-3-Clause
"""What the Python tools (rxrefill-plot, rxrefill-sweep, mkman.py) share:
the C programs' file rules and version, applied by rxrefill-compare
(--read, --check-paths) so that the tools refuse what rxrefill refuses in
the same words; outputs written all or none; the options table
(doc/design.md), whose rows are the argparse parsers' options added with
opt() in groups titled by section, then general(parser).
"""

import argparse
import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap

EXIT_INPUT = 1
EXIT_USAGE = 2

# Longest path or name a message shows whole; longer ones keep both ends.
SHOWN_MAX = 160


class ToolError(Exception):
    """A refusal or failure the user can act on; str() is the message
    without the program name, status the exit status."""

    def __init__(self, msg, status=EXIT_INPUT):
        Exception.__init__(self, msg)
        self.status = status


def shown(s, limit=SHOWN_MAX):
    """s as a message may show it: control characters and undecodable
    bytes escaped, the middle of a very long one left out."""
    out = []
    for ch in str(s):
        o = ord(ch)
        if o < 0x20 or o == 0x7f or 0x80 <= o < 0xa0:
            out.append("\\x%02x" % o)
        elif 0xdc80 <= o <= 0xdcff:     # a byte os.fsdecode could not
            out.append("\\x%02x" % (o - 0xdc00))
        elif o in (0x2028, 0x2029) or 0xd800 <= o <= 0xdfff:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    t = "".join(out)
    if len(t) > limit:
        t = "%s...(%d characters)...%s" % (t[:limit // 2], len(t),
                                           t[-limit // 4:])
    return t


def fail(prog, e):
    """Print ToolError e, each line after "PROG: "; return its status."""
    for line in str(e).splitlines() or [""]:
        print("%s: %s" % (prog, line), file=sys.stderr)
    return e.status


def to_stdout(text):
    """Write text to standard output now, or raise ToolError naming it;
    what is left unwritten is dropped (no "Exception ignored" at exit)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as e:
        try:
            fd = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
            os.dup2(fd, sys.stdout.fileno())
            os.close(fd)
        except (OSError, ValueError):
            pass
        raise ToolError("standard output: %s" % (
            e.strerror or os.strerror(e.errno or errno.EIO)))


def finite(v):
    """A JSON number (not a boolean) that is finite."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        v - v == 0


# --- the C programs' file rules, through rxrefill-compare -----------------

def _run_compare(args, data=None):
    """rxrefill-compare ARGS with data on its standard input: its output,
    or ToolError with its message (its own prefix taken off) and status.
    The program: $RXREFILL_COMPARE, else beside this script (installed),
    else in PATH."""
    prog = os.environ.get("RXREFILL_COMPARE")
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])),
                          "rxrefill-compare")
    if not prog:
        prog = beside if os.access(beside, os.X_OK) else \
            shutil.which("rxrefill-compare")
    if not prog:
        raise ToolError("rxrefill-compare not found (beside this program, "
                        "in PATH or in $RXREFILL_COMPARE): it checks the "
                        "files this program reads and writes")
    try:
        p = subprocess.run([prog] + args, input=data, capture_output=True)
    except OSError as e:
        raise ToolError("%s: %s" % (shown(prog), e.strerror or e))
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").rstrip("\n")
        msg = re.sub(r"(?m)^rxrefill-compare: ", "", msg)
        raise ToolError(msg or "%s exited %d" % (shown(prog), p.returncode),
                        p.returncode if 0 < p.returncode < 128 else 1)
    return p.stdout


def read_json(paths, kind="json"):
    """The documents of paths, each read as the C programs read JSON (a
    regular file, UTF-8, no duplicate key, numbers in range) and, with
    kind "report", checked as an rxrefill report."""
    if not paths:
        return []
    out = _run_compare(["--read", kind, "--"] + list(paths))
    return [json.loads(line) for line in out.splitlines()]


# --- outputs: temporary files renamed over them, all or none -------------

# Temporary files not yet renamed: removed on an error and on a signal.
_temps = set()
_stoppers = []
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def _unlink(t):
    try:
        os.unlink(t)
    except OSError:
        pass
    _temps.discard(t)


def _on_signal(sig, frame):
    # Ignore the others while cleaning up, then die of the same signal.
    for s in _SIGNALS:
        signal.signal(s, signal.SIG_IGN)
    for stop in _stoppers:
        try:
            stop()
        except Exception:   # nothing may keep the cleanup from ending
            pass
    for t in list(_temps):
        _unlink(t)
    if sig != signal.SIGQUIT:       # no core file for a stop asked for
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(128 + sig)


def on_signals(stop=None):
    """On SIGINT, SIGTERM, SIGHUP or SIGQUIT: call stop (if given), remove
    the temporary files, end by the same signal. ulimit -f: a write error."""
    if stop is not None:
        _stoppers.append(stop)
    for s in _SIGNALS:
        signal.signal(s, _on_signal)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


class Outputs:
    """Outputs written all or none: add() each, check() before any work,
    write() each to a temporary file beside it, commit() renames them all
    (checked again first); a failure removes the temporary files."""

    def __init__(self, inputs=(), what=None):
        self.inputs = list(inputs)
        self.what = what
        self.paths = []
        self.whats = {}
        self.done = {}

    def add(self, path, what=None):
        self.paths.append(path)
        self.whats[path] = what or self.what

    def check(self, paths=None):
        """The inputs and outputs checked as the C programs check theirs;
        ToolError naming the first refused."""
        _run_compare(["--check-paths"], json.dumps({
            "inputs": [os.fsdecode(i) for i in self.inputs],
            "outputs": [[self.whats[p] or "output", os.fsdecode(p)]
                        for p in (self.paths if paths is None else paths)]},
            ensure_ascii=False, allow_nan=False).encode("utf-8",
                                                        "surrogateescape"))

    def _temp(self, path):
        d, base = os.path.split(path)
        for _ in range(100):
            t = os.path.join(d or ".", ".%s.tmp.%s" % (
                base[:200], os.urandom(4).hex()))
            # Made and listed as one step: a signal handled in between
            # (as soon as open() returns) left the file behind.
            old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
            try:
                fd = os.open(t, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                             os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
                _temps.add(t)
            except FileExistsError:
                continue
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
            return t, fd
        raise OSError(errno.EEXIST, os.strerror(errno.EEXIST))

    def write(self, path, fn):
        """fn(binary file) on a temporary file for path; ToolError."""
        t = None
        try:
            t, fd = self._temp(path)
            try:
                os.fchmod(fd, os.stat(path).st_mode & 0o7777)
            except OSError:
                pass        # a new file: 0644 less the umask
            with os.fdopen(fd, "wb") as f:
                fn(f)
                f.flush()
                os.fsync(f.fileno())
        except BaseException as e:
            if t is not None:
                _unlink(t)
            if isinstance(e, OSError):
                raise ToolError("%s: cannot write: %s" % (
                    shown(path), e.strerror or e))
            raise
        self.done[path] = t

    def abort(self):
        for t in self.done.values():
            _unlink(t)
        self.done = {}

    def commit(self):
        try:
            self.check(self.done)
            for p, t in list(self.done.items()):
                try:
                    os.rename(t, p)
                except OSError as e:
                    raise ToolError("%s: cannot write: %s" % (shown(p),
                                                              e.strerror))
                _temps.discard(t)
                del self.done[p]
        except ToolError:
            self.abort()
            raise
        # The renames on disk too: a crash now keeps old or new, not none.
        for d in {os.path.dirname(p) or "." for p in self.paths}:
            try:
                fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
                os.fsync(fd)
                os.close(fd)
            except OSError:
                pass


# --- the options table ----------------------------------------------------

TABLE_HEADER = "# options-table 1"


def opt(where, *names, complete=None, **kw):
    """where.add_argument(*names, **kw) with its completion: a string, or
    a function returning one when the table is printed."""
    a = where.add_argument(*names, **kw)
    a.complete = complete
    return a


def _row(ap, a, section):
    longs = [o[2:] for o in a.option_strings if o.startswith("--")]
    shorts = [o[1:] for o in a.option_strings
              if len(o) == 2 and o[0] == "-" and o[1] != "-"]
    takes = a.nargs != 0
    m = a.metavar or a.dest.upper()
    arg = ("[%s]" % m if a.nargs == "?" else m) if takes else "-"
    d = a.default
    default = str(d) if takes and d not in (None, argparse.SUPPRESS, [],
                                            "") else "-"
    comp = getattr(a, "complete", None)
    if callable(comp):
        comp = comp()
    if not comp:
        comp = "words:" + ",".join(str(c) for c in a.choices) \
            if takes and a.choices else "none"
    helps = a.help or ""
    if "%" in helps:    # argparse's %(default)s, as a user would type it
        helps = helps % dict(vars(a), prog=ap.prog, default=default)
    return "\t".join(" ".join(str(x).split()) or "-" for x in (
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


class _Print(argparse.Action):
    """An option that prints text(parser) and exits (ToolError: fails)."""

    def __init__(self, option_strings, dest, text=None, help=None):
        argparse.Action.__init__(self, option_strings, dest, nargs=0,
                                 default=argparse.SUPPRESS, help=help)
        self.text = text

    def __call__(self, parser, namespace, values, option_string=None):
        try:
            to_stdout(self.text(parser))
        except ToolError as e:
            parser.exit(fail(parser.prog, e))
        parser.exit(0)


def parser(prog, description, epilog, **kw):
    """A tool's parser: epilog's paragraphs filled; -h from general()."""
    return argparse.ArgumentParser(
        prog=prog, description=description, add_help=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(textwrap.fill(p, 78) for p in epilog), **kw)


def version(ap):
    """PROG's version line: rxrefill-compare's version."""
    line = _run_compare(["--version"]).decode("utf-8", "replace")
    return "%s %s\n" % (ap.prog, line.split("\n")[0].partition(" ")[2])


def general(ap):
    """The last section: --help, --version, hidden --options-table."""
    g = ap.add_argument_group("General")
    opt(g, "-h", "--help", action="help", help="print this help and exit")
    opt(g, "-V", "--version", action=_Print, text=version,
        help="print the version and exit")
    ap.add_argument("--options-table", action=_Print, text=options_table,
                    help=argparse.SUPPRESS)


def pyplot(missing, status=EXIT_INPUT, svg=False):
    """matplotlib.pyplot on Agg, or ToolError(missing % {"python": this
    interpreter, "error": why}). With svg, text stays text with stable
    ids, and no name is a formula ("$x^{$", "a$b$")."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        if svg:
            matplotlib.rcParams["svg.fonttype"] = "none"
            matplotlib.rcParams["svg.hashsalt"] = "rxrefill"
            if "text.parse_math" in matplotlib.rcParams:
                matplotlib.rcParams["text.parse_math"] = False
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ToolError(missing % {
            "python": shown(sys.executable or "this Python"),
            "error": shown(str(e), 100)}, status)
    return plt
