#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's two commands on a fresh Debian 12 machine, as root:
#   bash usertools/quickstart.sh run    install what is missing, build, run the default job
#                                       (extra arguments replace the default rxrefill command line)
#   bash usertools/quickstart.sh test   install what is missing, build, run every suite but perf:
#                                       debug checks, then ASan+UBSan, TSan and short fuzz runs
#   bash usertools/quickstart.sh hugepages
#                                       only reserve and mount 2 MiB hugepages, as run does
# Each install step asks apt only for packages that are not there yet.
set -euo pipefail

cd "$(dirname "$0")/.."

# Build: compilers, meson, DPDK and the libraries. Tests: dpdk-dev's
# dpdk-test/dpdk-testpmd/dpdk-telemetry.py, tcpreplay, ip (iproute2) and
# sysctl (procps) for the veth lab, man (man-db) and bash-completion for the
# install test (the man pages are made by usertools/mkman.py), git for --version's commit; stdbuf, unshare, mount and
# mknod are in every Debian root (coreutils, util-linux, mount).
PKGS="python3 gcc binutils clang libclang-rt-14-dev meson ninja-build pkg-config libdpdk-dev dpdk-dev libpcap-dev libibverbs-dev libjansson-dev tcpreplay iproute2 procps python3-matplotlib man-db bash-completion git valgrind"

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

# 2 MiB hugepages for the run, as root when none are free: Debian's
# dpdk-hugepages.py (package dpdk) when installed, else sysfs plus a
# hugetlbfs mount, creating the mount point (/dev/hugepages is not there on
# every machine). Without them rxrefill falls back to --no-huge and says so.
HUGE_PAGES=1024
HUGE_DIR=/sys/kernel/mm/hugepages/hugepages-2048kB
HUGE_MNT=/dev/hugepages

# A hugetlbfs of 2 MiB pages is mounted: pagesize=2M, or no pagesize= where
# the default hugepage size is 2 MiB, as EAL reads /proc/mounts. A mount of
# 1 GiB pages (default_hugepagesz=1G) does not serve them.
mounted_2m() {
	awk -v def="$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)" '
		$3 == "hugetlbfs" {
			ps = ""
			n = split($4, o, ",")
			for (i = 1; i <= n; i++)
				if (o[i] ~ /^pagesize=/)
					ps = substr(o[i], 10)
			if (ps == "2M" || (ps == "" && def == 2048))
				found = 1
		}
		END { exit !found }' /proc/mounts
}

hugepages() {
	local free mounted=false mnt=$HUGE_MNT
	free=$(cat "$HUGE_DIR/free_hugepages" 2>/dev/null || echo 0)
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
		if command -v dpdk-hugepages.py >/dev/null; then
			echo "quickstart: reserving $HUGE_PAGES 2 MiB hugepages with dpdk-hugepages.py"
			dpdk-hugepages.py -p 2M -r "$((want * 2))M" || true
		else
			echo "quickstart: reserving $HUGE_PAGES 2 MiB hugepages in $HUGE_DIR/nr_hugepages"
			echo "$want" > "$HUGE_DIR/nr_hugepages" || true
		fi
		free=$(cat "$HUGE_DIR/free_hugepages")
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

case "${1:-}" in
run)
	install_missing
	setup build -Ddebug_checks=false
	shift
	# The default job, no NIC needed: 8 TCP streams split over 2 RX queues
	# as mlx5's RSS would, generated once, replayed on net_pcap. Two poll
	# lcores, one per CPU, each freeing its packets in its own poll loop
	# (--consumer inline), share one zone the way two CPUs' softirqs do;
	# the main lcore shares CPU 0 and only reports. Chosen by measurement:
	# zone below bh in every paired round even on a loaded 2-vCPU VM, where
	# frees by the other poll lcore left the effect inside the noise
	# (doc/design.md, "The default job"). 64-byte frames: net_pcap copies
	# every frame, and with 1500 bytes the copy hides the allocator. Every
	# strategy, bulk on and off, interleaved rounds until every ratio to
	# bh-bulk is decided (--reps auto); bh first, the baseline of every
	# column.
	# One progress line per round (disturbed repetitions counted in it),
	# EAL's start-up notes left out (telemetry's "no legacy callbacks"
	# too: errors still show), the brief table at the end (--table full
	# for every metric).
	cap=build/capture/default64
	if [ ! -f "$cap.json" ]; then
		mkdir -p build/capture
		./build/app/gen/rxrefill-gen -o "$cap" -q 2 -s 8 -n 4000 -l 64 -p tcp --quiet
	fi
	hugepages
	if [ $# -eq 0 ]; then
		set -- --lcores '(0,1)@0,2@1' --no-pci --log-level lib.eal:notice \
			--log-level lib.telemetry:error -- \
			--replay "$cap.q0.pcap,$cap.q1.pcap" --consumer inline \
			--strategy bh,all --bulk both \
			--reps auto:8 --warmup 0.3 --duration 1 --progress rounds
	fi
	exec ./build/app/rxrefill/rxrefill "$@"
	;;
test)
	install_missing
	rc=0
	# 1. Debug checks on: unit, stress, integration and system suites
	#    (system: PMDs, DPDK's own tests, the veth lab; run once, here).
	setup build-debug -Ddebug_checks=true
	meson test -C build-debug --no-suite perf --no-suite fuzz \
		--print-errorlogs --num-processes 2 || rc=1
	# 2. AddressSanitizer + UndefinedBehaviorSanitizer: unit, integration.
	CC=gcc setup build-asan -Ddebug_checks=true -Db_lundef=false \
		-Db_sanitize=address,undefined
	ASAN_OPTIONS=detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C build-asan --suite unit --suite integration \
		--print-errorlogs --num-processes 2 || rc=1
	# 3. ThreadSanitizer: the stress suite, at a tenth of its work (TSan
	#    runs 5-15x slower). The test-only 'none' strategy races on purpose.
	CC=clang setup build-tsan -Ddebug_checks=true -Db_lundef=false \
		-Db_sanitize=thread
	TSAN_OPTIONS=halt_on_error=1 RXR_STRESS_SCALE=10 \
	meson test -C build-tsan --suite stress --no-suite corruption \
		--print-errorlogs --num-processes 1 || rc=1
	# 4. libFuzzer: every input parser for a few seconds (doc/fuzzing.md).
	CC=clang setup build-fuzz -Dfuzz=true -Ddebug_checks=true
	meson test -C build-fuzz --suite fuzz --print-errorlogs || rc=1
	exit $rc
	;;
hugepages)
	hugepages
	;;
*)
	echo "usage: $0 run|test|hugepages" >&2
	exit 2
	;;
esac
