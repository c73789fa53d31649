#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's two commands on a fresh Debian 12 machine, as root:
#   bash usertools/quickstart.sh run    (build, run the default job)
#   bash usertools/quickstart.sh test   (build, run every suite but perf)
# and the steps they take alone: see usage() below, or --help. Each install
# step asks apt only for packages that are not there yet.
set -euo pipefail

cd "$(dirname "$0")/.."

# Build: compilers, meson, DPDK and the libraries. Tests: dpdk-dev's
# programs, tcpreplay, iproute2 and procps for the veth lab, man-db and
# bash-completion for the install test, git for --version's commit, gdb for
# the slow paths' backtraces, tshark for the truth of the capture corpus.
PKGS="python3 gcc binutils clang libclang-rt-14-dev meson ninja-build pkg-config libdpdk-dev dpdk-dev libpcap-dev libibverbs-dev libjansson-dev tcpreplay iproute2 procps python3-matplotlib man-db bash-completion git valgrind gdb tshark"

install_missing() {
	local missing=() p
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "quickstart: installing ${missing[*]}"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# 2 MiB hugepages for the run, as root when none are free: sysfs plus a
# hugetlbfs mount, creating the mount point (/dev/hugepages is not there on
# every machine). Without them rxrefill falls back to --no-huge and says so.
HUGE_PAGES=1024
HUGE_DIR=/sys/kernel/mm/hugepages/hugepages-2048kB
HUGE_MNT=/dev/hugepages

# A hugetlbfs of 2 MiB pages is mounted: pagesize=2M, or no pagesize= where
# the default hugepage size is 2 MiB, as EAL reads /proc/mounts.
mounted_2m() {
	awk -v def="$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)" '
		$3 == "hugetlbfs" && ($4 ~ /(^|,)pagesize=2M(,|$)/ ||
			($4 !~ /(^|,)pagesize=/ && def == 2048)) { found = 1 }
		END { exit !found }' /proc/mounts
}

# Free 2 MiB pages not already reserved by a mapping (reserved pages stay
# in free_hugepages until touched, but nobody else can have them).
free_unreserved() {
	local f r
	f=$(cat "$HUGE_DIR/free_hugepages" 2>/dev/null || echo 0)
	r=$(cat "$HUGE_DIR/resv_hugepages" 2>/dev/null || echo 0)
	echo $((f > r ? f - r : 0))
}

hugepages() {
	local free mounted=false mnt=$HUGE_MNT
	free=$(free_unreserved)
	mounted_2m && mounted=true
	if [ "$free" -gt 0 ] && $mounted; then
		echo "quickstart: $free free 2 MiB hugepages, hugetlbfs of 2 MiB pages mounted"
		return 0
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "quickstart: no free hugepages and not root: rxrefill runs with --no-huge"
		return 0
	fi
	if [ ! -d "$HUGE_DIR" ]; then
		echo "quickstart: this kernel has no 2 MiB hugepages: rxrefill runs with --no-huge"
		return 0
	fi
	if [ "$free" -eq 0 ]; then
		local total want
		total=$(cat "$HUGE_DIR/nr_hugepages")
		want=$((total + HUGE_PAGES))
		echo "quickstart: reserving $HUGE_PAGES 2 MiB hugepages in $HUGE_DIR/nr_hugepages"
		echo "$want" > "$HUGE_DIR/nr_hugepages" || true
		free=$(free_unreserved)
		echo "quickstart: $free 2 MiB hugepages free now"
	fi
	if ! $mounted; then
		# A hugetlbfs of another page size there already: beside it.
		if mountpoint -q "$mnt" 2>/dev/null; then
			mnt=$HUGE_MNT-2M
		fi
		mkdir -p "$mnt"
		echo "quickstart: mounting hugetlbfs of 2 MiB pages on $mnt"
		mount -t hugetlbfs -o pagesize=2M nodev "$mnt" || \
			echo "quickstart: could not mount hugetlbfs: rxrefill runs with --no-huge"
	fi
}

# The default job's captures (README.md), made again whenever they are not
# what the manifest of this very traffic says.
CAP_GEN=${RXREFILL_GEN:-./build/app/gen/rxrefill-gen}
CAP=${RXREFILL_CAPTURE:-build/capture/default64}
CAP_QUEUES=2 CAP_STREAMS=8 CAP_PACKETS=4000 CAP_SIZE=64 CAP_PROTO=tcp

# Prints why the captures must be made again; nothing when they match.
# What rxrefill-gen did not write is never removed: said on stderr, exit 2.
capture_stale() {
	RXREFILL_COMPARE=${RXREFILL_COMPARE:-./build/app/compare/rxrefill-compare} \
	python3 - "$CAP" "$CAP_QUEUES" "$CAP_STREAMS" "$CAP_PACKETS" \
		"$CAP_SIZE" "$CAP_PROTO" <<'PY'
import os, re, stat, sys
sys.path.insert(0, "usertools")
from rxrefill_tool import ToolError, finite, read_json, shown

SCHEMA = "rxrefill-gen-manifest/"
cap, queues, streams, packets, size, proto = sys.argv[1:]
man = cap + ".json"


def stale(why):
    print(why)
    sys.exit(0)


def refuse(why, what="remove"):
    print("quickstart: %s: refusing to %s it; move it away or set "
          "RXREFILL_CAPTURE to another prefix" % (why, what),
          file=sys.stderr)
    sys.exit(2)


if not os.path.lexists(man):
    stale("%s: missing" % shown(man))
try:
    doc = read_json([man])[0]
except ToolError as e:     # "MANIFEST: reason" or "MANIFEST:L:C: reason"
    bad = str(e)[len(shown(man)) + 1:].lstrip() if \
        str(e).startswith(shown(man) + ":") else str(e)
    # Ours cut short (an interrupted copy, a full disk) when it starts as
    # rxrefill-gen writes a manifest; else someone else's file.
    head = ""
    try:
        if os.path.isfile(man):
            with open(man, "rb") as f:
                head = f.read(200).decode("utf-8", "replace")
    except OSError:
        pass
    if not re.match(r'\s*\{\s*"schema"\s*:\s*"%s' % SCHEMA, head):
        refuse("%s: not a manifest of rxrefill-gen (%s)" % (shown(man), bad))
    stale("%s: unreadable (%s)" % (shown(man), bad))
if not isinstance(doc, dict) or not isinstance(doc.get("schema"), str) or \
        not doc["schema"].startswith(SCHEMA):
    refuse('%s: not a manifest of rxrefill-gen (no "schema": "%s...")' %
           (shown(man), SCHEMA))
t, q, rss = doc.get("traffic"), doc.get("queues"), doc.get("rss")
lacks = [k for k, v, typ in (("traffic", t, dict), ("queues", q, list),
                             ("rss", rss, dict)) if not isinstance(v, typ)]
if doc["schema"] != SCHEMA + "1" or lacks:
    stale("%s: a manifest of another rxrefill-gen version (schema %s%s)"
          % (shown(man), shown(doc["schema"], 60),
             ", no " + " or ".join(lacks) if lacks else ""))
if not (doc.get("mode") == "generate" and
        rss.get("queues") == int(queues) and len(q) == int(queues) and
        t.get("streams") == int(streams) and
        t.get("packets_per_stream") == int(packets) and
        t.get("size") == size and t.get("proto") == proto):
    stale("%s: of other traffic" % shown(man))
for i, e in enumerate(q):
    pcap = "%s.q%d.pcap" % (cap, i)
    n, b = (e.get(k) if isinstance(e, dict) else None
            for k in ("packets", "captured_bytes"))
    if not all(finite(v) and v == int(v) and v >= 0 for v in (n, b)):
        stale("%s: queue %d without its packets and captured_bytes" %
              (shown(man), i))
    try:
        if not stat.S_ISREG(os.stat(pcap).st_mode):  # a FIFO would block
            refuse("%s: not a regular file" % shown(pcap), "replace")
        with open(pcap, "rb") as f:
            head = f.read(4)
            have = os.fstat(f.fileno()).st_size
    except FileNotFoundError:
        stale("%s: missing" % shown(pcap))
    except OSError as e:
        stale("%s: unreadable (%s)" % (shown(pcap), e.strerror))
    if have == 0:
        stale("%s: empty" % shown(pcap))
    if head not in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4",
                    b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d"):
        stale("%s: not a pcap capture" % shown(pcap))
    want = 24 + 16 * int(n) + int(b)
    if have != want:
        stale("%s: %d bytes, the manifest's %d packets make %d" %
              (shown(pcap), have, n, want))
PY
}

capture() {
	local why rc=0
	why=$(capture_stale) || rc=$?
	# 2: what is not ours where a capture goes (said on stderr already).
	[ $rc -eq 0 ] || exit "$rc"
	[ -z "$why" ] && return 0
	[ -x "$CAP_GEN" ] || {
		echo "quickstart: $CAP_GEN: no generator (build first, or set RXREFILL_GEN)" >&2
		return 1
	}
	echo "quickstart: $why: generating $CAP.{json,q0.pcap,q1.pcap}"
	mkdir -p "$(dirname "$CAP")"
	# No manifest until the captures are whole: the generator writes it last.
	rm -f "$CAP.json"
	"$CAP_GEN" -o "$CAP" -q "$CAP_QUEUES" -s "$CAP_STREAMS" \
		-n "$CAP_PACKETS" -l "$CAP_SIZE" -p "$CAP_PROTO" --quiet
}

# setup DIR [meson options...]: configure once, reconfigure when options
# change, build. One line; meson's and ninja's output go to DIR/quickstart.log
# and are printed only when the build fails.
setup() {
	local dir=$1 log=$1/quickstart.log configure=configure; shift
	if [ ! -f "$dir/build.ninja" ]; then
		rm -rf "$dir"
		configure=setup
	fi
	mkdir -p "$dir"
	printf 'quickstart: building %s ... ' "$dir"
	if { meson "$configure" "$dir" "$@" && ninja -C "$dir"; } >"$log" 2>&1; then
		echo "done (log: $log)"
	else
		echo "failed:"
		cat "$log" >&2
		return 1
	fi
}

# "0-2,5" -> "0 1 2 5": a kernel CPU list as words.
cpu_words() {
	local part out=() IFS=$',\n'
	for part in $1; do
		out+=($(seq "${part%-*}" "${part#*-}"))
	done
	IFS=' '
	echo "${out[*]:-}"
}

# The default job's EAL --lcores on the CPUs this shell may run on
# (README.md), the choice said on stderr.
cpus() {
	local allowed a b sib c
	allowed=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
	read -ra all <<<"$(cpu_words "$allowed")"
	if [ ${#all[@]} -eq 0 ]; then
		echo "quickstart: cannot read this shell's CPUs from /proc/self/status" >&2
		return 1
	fi
	a=${all[0]}
	if [ ${#all[@]} -eq 1 ]; then
		echo "quickstart: one CPU to run on ($a): one poll lcore takes both queues, beside the main lcore; no second CPU shares the zone" >&2
		echo "(0,1)@$a"
		return 0
	fi
	sib=" $(cpu_words "$(cat "/sys/devices/system/cpu/cpu$a/topology/thread_siblings_list" 2>/dev/null)") "
	b=${all[1]}
	for c in "${all[@]:1}"; do
		if [[ $sib != *" $c "* ]]; then
			b=$c
			break
		fi
	done
	echo "quickstart: poll CPUs $a and $b (this shell may run on $allowed)" >&2
	echo "(0,1)@$a,2@$b"
}

# The test suites pin their lcores to CPUs 0 and 1: a cpuset without them
# is said before anything is built. Each CPU is tried, not read: EAL widens
# a taskset mask.
test_cpus() {
	local c
	for c in 0 1; do
		if ! taskset -c "$c" true 2>/dev/null; then
			echo "quickstart: the test suites pin lcores to CPUs 0 and 1, and this shell cannot run on CPU $c (it may run on $(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)): run them on a machine or in a cpuset that has CPUs 0 and 1" >&2
			return 1
		fi
	done
}

# The default job's start: built, its captures made, hugepages reserved.
prepare() {
	install_missing
	setup build -Ddebug_checks=false
	capture
	hugepages
}

# EAL's start-up notes left out of the default job's output.
EAL_QUIET=(--no-pci --log-level lib.eal:notice --log-level lib.telemetry:error)

# The ThreadSanitizer stage (doc/testing.md): the test-only 'none' strategy
# races on purpose; TSan does not see EAL's own hand-offs (dpdk-handoff).
tsan_setup() {
	CC=clang setup build-tsan -Ddebug_checks=true -Db_lundef=false \
		-Db_sanitize=thread
}

tsan_stage() {
	local rc=0
	TSAN_OPTIONS=halt_on_error=1 \
	meson test -C build-tsan --suite unit --no-suite dpdk-handoff \
		--print-errorlogs --num-processes 2 "$@" || rc=1
	TSAN_OPTIONS=halt_on_error=1 RXR_STRESS_SCALE=10 \
	meson test -C build-tsan --suite stress --no-suite corruption \
		--print-errorlogs --num-processes 1 "$@" || rc=1
	return $rc
}

usage() {
	cat <<EOF
usage: $0 run|test|tsan [N]|zeroing|hugepages|capture|cpus|test-cpus|--help
  run        install what is missing, build, run the default job
             (extra arguments replace the default rxrefill command line)
  test       install what is missing, build, run every suite but perf
  tsan [N]   build, run test's ThreadSanitizer stage N times (default 30)
             in a row, so that a race that shows now and then is seen;
             prints how many runs passed
  zeroing    build, run the zeroing comparison on 1500-byte frames, then
             count nt's and contig's cache misses under callgrind
  hugepages  only reserve and mount 2 MiB hugepages, as run does
  capture    only make the default job's captures, as run does
             (RXREFILL_GEN=PROGRAM, RXREFILL_CAPTURE=PREFIX)
  cpus       only print the default job's EAL --lcores
  test-cpus  only check that CPUs 0 and 1 can be used, as test does
Exit status: 0 done, 1 a step failed, 2 bad usage or a file in the way.
EOF
}

case "${1:-}" in
run)
	shift
	# The default job (README.md, doc/design.md).
	prepare
	if [ $# -eq 0 ]; then
		lcores=$(cpus)
		set -- --lcores "$lcores" "${EAL_QUIET[@]}" -- \
			--replay "$CAP.q0.pcap,$CAP.q1.pcap" --consumer inline \
			--strategy bh,all --bulk both \
			--reps auto:8 --warmup 0.3 --duration 1 --progress rounds
	fi
	exec ./build/app/rxrefill/rxrefill "$@"
	;;
test)
	test_cpus
	install_missing
	rc=0
	# The four trees of doc/testing.md: debug, ASan+UBSan, TSan, libFuzzer.
	setup build-debug -Ddebug_checks=true
	meson test -C build-debug --no-suite perf --no-suite fuzz \
		--print-errorlogs --num-processes 2 || rc=1
	CC=gcc setup build-asan -Ddebug_checks=true -Db_lundef=false \
		-Db_sanitize=address,undefined
	ASAN_OPTIONS=detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C build-asan --suite unit --suite integration \
		--print-errorlogs --num-processes 2 || rc=1
	tsan_setup
	tsan_stage || rc=1
	CC=clang setup build-fuzz -Dfuzz=true -Ddebug_checks=true
	meson test -C build-fuzz --suite fuzz --print-errorlogs || rc=1
	exit $rc
	;;
tsan)
	n=${2:-30}
	case "$n" in
	''|*[!0-9]*|0) echo "quickstart: tsan N: N is a whole number above 0, not '$n'" >&2; exit 2 ;;
	esac
	test_cpus
	install_missing
	tsan_setup
	passed=0
	for i in $(seq 1 "$n"); do
		if tsan_stage --quiet >"build-tsan/tsan-run.log" 2>&1; then
			passed=$((passed + 1))
		else
			echo "quickstart: tsan run $i of $n failed:" >&2
			grep -E 'FAIL|WARNING: ThreadSanitizer' -A 12 \
				build-tsan/tsan-run.log | head -60 >&2
		fi
	done
	echo "tsan: $passed of $n runs passed"
	[ "$passed" -eq "$n" ]
	;;
zeroing)
	# doc/zeroing.md: the default job's streams in 1500-byte frames, then
	# callgrind's cache simulation of contig and nt (test/app/count_app.py).
	CAP=${RXREFILL_CAPTURE:-build/capture/default1500} CAP_SIZE=1500
	prepare
	./build/app/rxrefill/rxrefill --lcores "$(cpus | sed \
		's/^(0,1)@\([0-9]*\),2@/0@\1,1@/')" "${EAL_QUIET[@]}" -- \
		--profile config/profiles/zeroing.profile \
		--replay "$CAP.q0.pcap,$CAP.q1.pcap" "${@:2}" || exit 1
	echo "Cache misses per packet, callgrind's simulation (non-temporal stores are simulated as ordinary ones):"
	for m in contig nt; do
		python3 test/app/count_app.py build/app/rxrefill/rxrefill \
			"$CAP_GEN" --case 1500B --only rxrefill --seconds 0.5 -- \
			--zero-policy alloc --zero-method $m | \
			sed -n "s/^count: nohuge.1500B.rxrefill/alloc\/$m:/p" || exit 1
	done
	;;
hugepages|capture|cpus|test-cpus)
	"${1/-/_}"
	;;
-h|--help)
	usage
	;;
*)
	usage >&2
	exit 2
	;;
esac
