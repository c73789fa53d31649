#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Makes doc/figures' PNGs anew from the current code, as root on Debian 12:
#   bash doc/figures/regenerate.sh          the default job's figures
#   bash doc/figures/regenerate.sh --lab    and the veth lab's sweep
# Each figure's foot names the commit, CPU, memory and command of its
# report; doc/figures/README.md gets the same as captions.
set -euo pipefail

cd "$(dirname "$0")/../.."
lab=false
case "${1:-}" in
"") ;;
--lab) lab=true ;;
-h|--help)
	sed -n '4,8p' "$0" | sed 's/^# \{0,1\}//'
	exit 0 ;;
*)
	echo "regenerate.sh: unknown argument '$1' (--lab or nothing)" >&2
	exit 2 ;;
esac

out=doc/figures
# The commit the figures are made from, before they change the tree.
commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The default job exactly as the quick start runs it (it installs and
# builds what is missing); it writes rxrefill-report.json here.
bash usertools/quickstart.sh run
report=rxrefill-report.json
plot() { /usr/bin/python3 usertools/rxrefill-plot "$@" >/dev/null; }
plot -o "$out/default-job" "$report"

cpu=$(lscpu | sed -n 's/^Model name:[ \t]*//p' | head -n 1)
memory=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["env"]["memory"])' "$report")
{
	echo "# Figures"
	echo
	echo "Made by \`bash doc/figures/regenerate.sh$($lab && echo ' --lab')\` at commit"
	echo "\`$commit\`, on $(nproc) CPUs of $cpu, $memory."
	echo
	echo "- \`default-job-gbps\`: the quick start's default job"
	echo "  (\`bash usertools/quickstart.sh run\`), Gbit/s and Mpps per"
	echo "  configuration, the mean with the report's own 95% interval, each"
	echo "  repetition a dot."
	echo "- \`default-job-latency\`: the same job's refill latency, histogram"
	echo "  and CDF."
} > "$tmp/README.md"

if $lab; then
	build/app/gen/rxrefill-gen -o "$tmp/sw" -q 1 -s 8 -n 500 -l 64 >/dev/null
	/usr/bin/python3 usertools/rxrefill-sweep --lab --strategy bh,zone \
		--min 10000 --max 1000000 --seconds 1 --max-steps 6 \
		--json "$tmp/sweep.json" \
		--sender "tcpreplay -i {iface} --pps {pps} --loop 0 --duration {seconds} $tmp/sw.q0.pcap" \
		-- build/app/rxrefill/rxrefill -l 0-1 --no-pci --
	plot -o "$out/lab" --sweep "$tmp/sweep.json"
	{
		echo "- \`lab-sweep\`: loss against the load tcpreplay sent on the veth"
		echo "  lab (doc/lab.md), bh and zone, six steps each, 64-byte frames;"
		echo "  dashed: the no-drop rate the sweep found."
	} >> "$tmp/README.md"
elif [ -f "$out/lab-sweep.png" ]; then
	echo "- \`lab-sweep\`: from an earlier \`regenerate.sh --lab\`; run it again to" >> "$tmp/README.md"
	echo "  make it at this commit." >> "$tmp/README.md"
fi
mv "$tmp/README.md" "$out/README.md"
# The tree keeps the PNGs only; rxrefill-plot writes SVGs beside them.
rm -f "$out"/*.svg
echo "regenerate.sh: $out at $commit ($cpu, $memory)"
