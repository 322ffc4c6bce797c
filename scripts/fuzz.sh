#!/usr/bin/env bash
# fuzz.sh [REGEXP]: runs every native Go fuzz target of the repository, one at a time
# (go test -fuzz takes one target per run), for FUZZTIME each (default 60s; for
# example FUZZTIME=10s), and fails if any fails. The targets are found by grepping
# `^func Fuzz` in the test files, so a new target cannot be forgotten; REGEXP, when
# given, keeps only the targets whose name matches it (grep -E).
#
# A failing input is kept by go test in the package's testdata/fuzz/<Target>/: commit
# it with the fix, and it runs as a seed in every `go test` from then on. FUZZ_WORKERS
# sets the number of parallel workers (go test -parallel; default GOMAXPROCS).
# FUZZMINIMIZETIME bounds the minimization of each new input (default 100x, 100
# executions, where go test's own is 60s): minimizing the inputs grown from a large
# seed (a 145 KB data model) took most of a 25 s run, counting no execution meanwhile.
#
# At the end it prints each target's executions (total and per second, as go test last
# reported them) and the targets that failed.
set -uo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
cd "$repo_root"

go=${GO:-go}
fuzztime=${FUZZTIME:-60s}
minimizetime=${FUZZMINIMIZETIME:-100x}
filter=${1:-.}
workers=()
if [[ -n ${FUZZ_WORKERS:-} ]]; then
	workers=(-parallel "$FUZZ_WORKERS")
fi

# Every "<package directory> <target>" pair, sorted.
mapfile -t targets < <(grep -r --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' internal cmd . 2>/dev/null |
	sed -E 's|^\./||; s|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*$|\1 \2|; s|^[^/ ]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*$|. \1|' |
	sort -u | awk -v re="$filter" '$2 ~ re')
[[ ${#targets[@]} -gt 0 ]] || die "no fuzz target matches $filter"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=()
summary=()
note "${#targets[@]} fuzz targets, $fuzztime each"
for entry in "${targets[@]}"; do
	read -r dir target <<<"$entry"
	note "$target ($dir)"
	run() {
		"$go" test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" "${workers[@]}" "./$dir" 2>&1 | tee "$log"
		return "${PIPESTATUS[0]}"
	}
	run
	status=$?
	if [[ $status -ne 0 ]] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
		# go test's own failure when -fuzztime ends while a worker still runs (on a busy
		# machine): no input failed. Run the target once more; a second time fails.
		note "$target: context deadline exceeded with no failing input; once more"
		run
		status=$?
	fi
	# The last progress line: "fuzz: elapsed: 31s, execs: 123456 (3982/sec), …".
	execs=$(grep -E 'elapsed: [0-9]+s, execs: [0-9]+' "$log" | tail -1 |
		sed -E 's/.*elapsed: ([0-9]+)s, execs: ([0-9]+).*/\2 \1/' |
		awk '{ printf "%d executions in %d s (%d per second)", $1, $2, ($2 > 0 ? $1 / $2 : $1) }')
	summary+=("$(printf '%-26s %-20s %s' "$target" "$dir" "${execs:-no executions reported}")")
	if [[ $status -ne 0 ]]; then
		failed+=("$target ($dir)")
	fi
done

note "executions per target"
printf '%s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
	printf 'FAILED: %s\n' "${failed[@]}" >&2
	exit 1
fi
note "every fuzz target passed"
