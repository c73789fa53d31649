#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's two commands on a fresh Debian 12 machine, as root:
#   bash usertools/quickstart.sh run    install what is missing, build, run the default job
#                                       (extra arguments replace the default rxrefill command line)
#   bash usertools/quickstart.sh test   install what is missing, build, run every suite but perf:
#                                       debug checks, then ASan+UBSan, TSan and short fuzz runs
# Each install step asks apt only for packages that are not there yet.
set -euo pipefail

cd "$(dirname "$0")/.."

PKGS="python3 gcc clang libclang-rt-14-dev meson ninja-build pkg-config libdpdk-dev dpdk-dev libpcap-dev libibverbs-dev libjansson-dev tcpreplay iproute2"

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

# setup DIR [meson options...]: configure once, reconfigure when options change.
setup() {
	local dir=$1; shift
	if [ -d "$dir" ] && [ -f "$dir/build.ninja" ]; then
		meson configure "$dir" "$@" >/dev/null
	else
		rm -rf "$dir"
		meson setup "$dir" "$@" >/dev/null
	fi
	ninja -C "$dir"
}

case "${1:-}" in
run)
	install_missing
	setup build -Ddebug_checks=false
	shift
	# The default job, no NIC needed: 8 TCP streams of 1500-byte frames,
	# split over 2 RX queues as mlx5's RSS would, generated once.
	cap=build/capture/default
	if [ ! -f "$cap.json" ]; then
		mkdir -p build/capture
		./build/app/gen/rxrefill-gen -o "$cap" -q 2 -s 8 -n 2000 -l 1500
	fi
	if [ $# -eq 0 ]; then
		set -- -l 0-1 --no-pci -- --replay "$cap.q0.pcap,$cap.q1.pcap"
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
*)
	echo "usage: $0 run|test" >&2
	exit 2
	;;
esac
