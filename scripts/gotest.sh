#!/usr/bin/env bash
# gotest.sh [GO TEST ARGUMENTS...]: runs `go test -json` with the arguments and prints
# a short report (scripts/testreport): each package's result, the number of tests
# (subtests included) that passed, failed and were skipped, every skipped test with
# its reason (e.g. a feature gated on a newer Terraform than the one in use), and the
# whole output of every failed test. Fails when go test or a test failed.
set -uo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
cd "$repo_root"

go=${GO:-go}
report=$(mktemp -d)
trap 'rm -rf "$report"' EXIT
"$go" build -o "$report/testreport" ./scripts/testreport || exit 1
"$go" test -json "$@" 2>&1 | "$report/testreport"
status=("${PIPESTATUS[@]}")
[[ ${status[0]} -eq 0 && ${status[1]} -eq 0 ]]
