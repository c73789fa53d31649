# SPDX-License-Identifier: BSD-3-Clause
"""The path rules rxrefill-sweep and rxrefill-plot share with the C
programs: inputs are regular files read without blocking; an output is
never an input, a device, a FIFO or a directory, and is written to a
temporary file in its own directory that is renamed over it only when
complete (a symbolic link is replaced, its target is never written); a
failed or interrupted run leaves what was there. Messages read
"PROG: PATH: reason", with control characters escaped.

rxrefill-plot is installed with this file copied into it (see
subst_version.py); rxrefill-sweep imports it from its own directory.
"""

import errno
import json
import math
import os
import re
import signal
import stat
import subprocess
import sys

__all__ = ["EXIT_INPUT", "EXIT_USAGE", "ToolError", "shown", "kind_of",
           "read_input", "load_json", "check_output", "Outputs",
           "same_file", "on_signals", "finite", "fail", "tool_version",
           "to_stdout"]

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
    if not isinstance(s, str):
        s = str(s)
    out = []
    for ch in s:
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


def _err(path, reason, status=EXIT_INPUT):
    return ToolError("%s: %s" % (shown(path), reason), status)


def kind_of(mode):
    for test, name in ((stat.S_ISREG, "a regular file"),
                       (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def _strerror(e):
    return e.strerror or os.strerror(e.errno or errno.EIO)


def read_input(path, limit):
    """The bytes of a regular file of at most limit bytes. stat() before
    open() and O_NONBLOCK: a FIFO or a device is never waited on."""
    if path == "":
        raise ToolError("empty file name", EXIT_USAGE)
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise _err(path, "is %s, not a regular file" %
                       kind_of(st.st_mode))
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC |
                     os.O_NOCTTY)
    except OSError as e:
        raise _err(path, _strerror(e))
    try:
        st = os.fstat(fd)       # what was opened, not what was checked
        if not stat.S_ISREG(st.st_mode):
            raise _err(path, "is %s, not a regular file" %
                       kind_of(st.st_mode))
        chunks, n = [], 0
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            n += len(b)
            if n > limit:
                raise _err(path, "larger than %d MiB, not an input of "
                           "this program" % (limit >> 20))
            chunks.append(b)
        return b"".join(chunks)
    except OSError as e:
        raise _err(path, _strerror(e))
    finally:
        os.close(fd)


def _no_duplicates(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("key %s appears twice in an object" %
                             json.dumps(shown(k, 64)))
        d[k] = v
    return d


def _no_constant(name):
    raise ValueError("%s is not a JSON number" % name)


def _finite_float(s):
    v = float(s)
    if not math.isfinite(v):
        raise ValueError("number %s is out of range" % shown(s, 40))
    return v


def _int64(s):
    v = int(s)
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError("number %s is out of range" % shown(s, 40))
    return v


def load_json(path, limit=256 << 20):
    """The JSON document in path, as strict as the C programs read it:
    UTF-8, no duplicate keys, no NaN or Infinity, finite numbers and
    integers of 64 bits (what jansson reads)."""
    data = read_input(path, limit)
    if not data:
        raise _err(path, "empty file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _err(path, "not UTF-8 text (byte %d)" % e.start)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates,
                          parse_constant=_no_constant,
                          parse_float=_finite_float, parse_int=_int64)
    except RecursionError:
        raise _err(path, "malformed JSON: nested too deeply")
    except json.JSONDecodeError as e:
        raise _err(path, "%d:%d: malformed JSON: %s" % (e.lineno, e.colno,
                                                       e.msg))
    except ValueError as e:
        raise _err(path, "malformed JSON: %s" % e)


def finite(v):
    """A JSON number (not a boolean) that is finite."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v)


def _same(a, b):
    return a.st_dev == b.st_dev and a.st_ino == b.st_ino


def _spelled(path):
    """path with its directory resolved (links, "..", "."), its last
    name kept: what a rename over path replaces, however it is spelled."""
    d, base = os.path.split(path)
    return os.path.join(os.path.realpath(d or "."), base)


def same_file(a, b):
    """a and b name one file: the same path once spelled out, or (when
    both exist) the same device and inode, as hard links are."""
    if _spelled(a) == _spelled(b):
        return True
    try:
        return _same(os.lstat(a), os.lstat(b))
    except OSError:
        return False


def check_output(path, inputs=(), what=None):
    """Refuse an output that would replace what is not a regular file,
    write over an input (also through a link), or cannot be made in its
    directory. Raises ToolError with exit status 2: all of this is known
    before any work starts."""
    name = "%s %s" % (what, shown(path)) if what else shown(path)

    def refuse(reason):
        return ToolError("%s: %s" % (name, reason), EXIT_USAGE)

    if path == "":
        raise ToolError("%s: empty file name" % (what or "output"),
                        EXIT_USAGE)
    if path.endswith("/"):
        raise refuse("names a directory, not a file")
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        lst = None
    except OSError as e:
        raise refuse(_strerror(e))
    if lst is not None and not stat.S_ISREG(lst.st_mode) and \
            not stat.S_ISLNK(lst.st_mode):
        raise refuse("is %s, not a regular file: refusing to replace it" %
                     kind_of(lst.st_mode))
    try:
        target = os.stat(path) if lst is not None else None
    except OSError:
        target = None       # a dangling link: replaced, nothing behind it
    # A link to a file descriptor (/dev/stdout -> /proc/self/fd/1) or to
    # what is not a regular file: the user means what is behind it, and the
    # rename would replace the link itself, /dev/stdout included.
    if lst is not None and stat.S_ISLNK(lst.st_mode):
        to = _fd_link(path)
        if to is not None:
            raise refuse("is a symbolic link to a file descriptor (%s), not "
                         "a file: refusing to replace it" % to)
        if target is not None and not stat.S_ISREG(target.st_mode):
            raise refuse("is a symbolic link to %s, not a regular file: "
                         "refusing to replace it" % kind_of(target.st_mode))
    for i in inputs:
        try:
            ist = os.stat(i)
        except OSError:
            continue
        if lst is not None and _same(lst, ist):
            raise refuse("is also the input %s: refusing to overwrite it" %
                         shown(i))
        if target is not None and _same(target, ist):
            raise refuse("is a symbolic link to the input %s: refusing to "
                         "replace it" % shown(i))
    d = os.path.dirname(path) or "."
    try:
        dst = os.stat(d)
    except OSError as e:
        raise refuse("directory %s: %s" % (shown(d), _strerror(e)))
    if not stat.S_ISDIR(dst.st_mode):
        raise refuse("directory %s: %s" % (shown(d),
                                           os.strerror(errno.ENOTDIR)))
    if not os.access(d, os.W_OK | os.X_OK):
        # access(2)'s own reason, as the C programs print it: os.access()
        # keeps no errno, and root is refused only by a read-only mount.
        why = errno.EACCES
        try:
            if os.statvfs(d).f_flag & os.ST_RDONLY:
                why = errno.EROFS
        except OSError:
            pass
        raise refuse("cannot write in %s: %s" % (shown(d),
                                                 os.strerror(why)))


# Temporary files not yet renamed: removed on an error and on a signal.
_temps = set()
_stoppers = []
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def _remove_temps():
    for t in list(_temps):
        try:
            os.unlink(t)
        except OSError:
            pass
        _temps.discard(t)


def _on_signal(sig, frame):
    # Ignore the others while cleaning up, then die of the same signal.
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(s, signal.SIG_IGN)
    for stop in _stoppers:
        try:
            stop()
        except Exception:   # nothing may keep the cleanup from ending
            pass
    _remove_temps()
    if sig != signal.SIGQUIT:       # no core file for a stop asked for
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(128 + sig)


def on_signals(stop=None):
    """On SIGINT, SIGTERM, SIGHUP or SIGQUIT: call stop (if given), remove
    the temporary files, then end by the same signal (exit 128 + N)."""
    if stop is not None:
        _stoppers.append(stop)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(s, _on_signal)


class Outputs:
    """Outputs written all or none: each to a temporary file in its own
    directory (O_EXCL, fsync), renamed over its path only when every one
    of them is complete. Usage: o = Outputs(inputs); o.add(path) for
    each, before any work (checks them); o.write(path, fn) calls fn(file);
    o.commit(). A failure removes the temporary files."""

    def __init__(self, inputs=(), what=None):
        self.inputs = list(inputs)
        self.what = what
        self.paths = []
        self.whats = {}
        self.done = {}

    def add(self, path, what=None):
        """Check path as an output (what: the option naming it)."""
        what = what or self.what
        for p in self.paths:
            if same_file(p, path):
                raise ToolError("%s %s: named twice as an output%s" % (
                    what or "output", shown(path), "" if p == path else
                    " (also as %s%s)" % (
                        self.whats[p] + " " if self.whats[p] else "",
                        shown(p))), EXIT_USAGE)
        check_output(path, self.inputs, what)
        self.paths.append(path)
        self.whats[path] = what

    def _temp(self, path):
        d, base = os.path.split(path)
        d = d or "."
        for _ in range(100):
            t = os.path.join(d, ".%s.tmp.%s" % (base[:200],
                                                os.urandom(4).hex()))
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
        """Write path's content through fn(binary file) to a temporary
        file; raises ToolError naming path with the system's reason."""
        assert path in self.paths
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
        except OSError as e:
            self._drop(t)
            raise _err(path, "cannot write: %s" % _strerror(e))
        except BaseException:
            self._drop(t)
            raise
        self.done[path] = t

    def _drop(self, t):
        if t is not None:
            try:
                os.unlink(t)
            except OSError:
                pass
            _temps.discard(t)

    def abort(self):
        for t in self.done.values():
            self._drop(t)
        self.done = {}

    def commit(self):
        """Rename every temporary file over its path; checked again first,
        so that what appeared meanwhile is not replaced."""
        try:
            for p in self.done:
                check_output(p, self.inputs, self.whats[p])
        except ToolError:
            self.abort()
            raise
        for p, t in list(self.done.items()):
            try:
                os.rename(t, p)
            except OSError as e:
                self.abort()
                raise _err(p, "cannot write: %s" % _strerror(e))
            _temps.discard(t)
            del self.done[p]
        # The renames on disk too: a crash now keeps old or new, not none.
        for d in {os.path.dirname(p) or "." for p in self.paths}:
            try:
                fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError:
                pass


def tool_version(version, script):
    """The project's version: version as the installed copy has it
    (subst_version.py replaced its placeholder), or else that of the
    source tree script runs from, from its meson.build and git."""
    if "@" not in version:
        return version
    src = os.path.dirname(os.path.dirname(os.path.abspath(script)))
    try:
        with open(os.path.join(src, "meson.build"), encoding="utf-8") as f:
            m = re.search(r"version\s*:\s*'([^']+)'", f.read())
        v = m.group(1) if m else "unknown"
    except OSError:
        v = "unknown"
    try:
        d = subprocess.run(["git", "-C", src, "describe", "--always",
                            "--dirty", "--tags"], capture_output=True,
                           text=True, timeout=10).stdout.strip()
        if d and d != v:
            v = "%s (git %s)" % (v, d)
    except (OSError, subprocess.SubprocessError):
        pass
    return v


def _fd_link(path):
    """The hop of path's chain of links that names a file descriptor
    (/proc/..., /dev/fd/...; a link to /dev/stdout does at its second
    hop), else None: what such a chain leads to depends on where the
    process's descriptors point."""
    cur = path
    for _ in range(40):                 # the kernel's MAXSYMLINKS
        try:
            to = os.readlink(cur)
        except OSError:
            return None
        if to.startswith("/proc/") or to.startswith("/dev/fd/"):
            return to
        cur = os.path.join(os.path.dirname(cur), to)
    return None


def to_stdout(text):
    """Write text to standard output now. A failure (a full disk, a
    closed pipe) raises ToolError naming standard output; what is left
    unwritten is dropped, so that Python's own flush at exit does not
    fail again with its "Exception ignored" lines."""
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
        raise ToolError("standard output: %s" % _strerror(e))


def fail(prog, e):
    """Print a ToolError as "PROG: message" and return its exit status."""
    print("%s: %s" % (prog, e), file=sys.stderr)
    return e.status
