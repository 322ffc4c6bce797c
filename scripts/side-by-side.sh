#!/usr/bin/env bash
# side-by-side.sh COMMAND...: runs each COMMAND (a shell command line) at the same time
# as the others, for phases that mostly wait (on real-time limits, on terraform
# processes) and so leave the machine's cores to each other. The first command's
# output is shown as it comes; each other's is kept and shown whole, in the order
# given, once the first has ended, with a line naming it. Fails when any command
# failed, and names those. Ctrl-C or TERM stops them all.
set -uo pipefail

[[ $# -gt 0 ]] || { echo "usage: ${0##*/} COMMAND..." >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/side-by-side.XXXXXX")
pids=()
stop() {
	# Each command leads a process group of its own (set -m below): the whole of it
	# is stopped, go test's test binaries and their terraform processes too.
	local pid
	for pid in "${pids[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || true
	done
	{ wait; } 2>/dev/null # without the shell's word on each job it stopped
	rm -rf "$out"
	exit 130
}
trap stop INT TERM
set -m # a process group for each command, so that stop reaches all of it

for i in $(seq 2 $#); do
	bash -c "${!i}" >"$out/$i" 2>&1 &
	pids+=($!)
done
bash -c "$1" &
first=$!
pids+=("$first")
wait "$first"
status=$?
failed=()
[[ $status -eq 0 ]] || failed+=("$1")
for i in $(seq 2 $#); do
	wait "${pids[$((i - 2))]}"
	s=$?
	printf '==> %s (run beside %s): exit %d\n' "${!i}" "$1" "$s"
	cat "$out/$i"
	[[ $s -eq 0 ]] || failed+=("${!i}")
done
rm -rf "$out"
if [[ ${#failed[@]} -gt 0 ]]; then
	printf '%s: failed: %s\n' "${0##*/}" "${failed[*]}" >&2
	exit 1
fi
