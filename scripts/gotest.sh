#!/usr/bin/env bash
# gotest.sh [GO TEST ARGUMENTS...]: runs `go test -v` with the arguments and prints a
# short report: each package's result, the number of tests (subtests included) that
# passed, failed and were skipped, and every skipped test with its reason (e.g. a
# feature gated on a newer Terraform than the one in use). On a failure it prints the
# whole output. Exits with go test's status.
set -uo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"${GO:-go}" test -v "$@" >"$log" 2>&1
rc=$?

grep -E '^(ok|FAIL|---)[[:space:]]|^panic:' "$log" | grep -vE '^--- (PASS|SKIP)'
count() { grep -cE "^[[:space:]]*--- $1:" "$log"; }
note "tests: $(count PASS) passed, $(count FAIL) failed, $(count SKIP) skipped"
if [ "$(count SKIP)" -gt 0 ]; then
	note "skipped, and why:"
	# Go prints a skipped test's reason on the line after its "--- SKIP" line.
	grep -EA1 '^[[:space:]]*--- SKIP:' "$log" | grep -v '^--$' |
		sed -E 's/^[[:space:]]*--- SKIP: ([^ ]+).*/  \1/; s/^[[:space:]]+[^ ]+\.go:[0-9]+: /      /'
fi
if [ "$rc" -ne 0 ]; then
	note "go test failed (exit $rc); its whole output:"
	cat "$log"
fi
exit "$rc"
