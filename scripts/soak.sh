#!/usr/bin/env bash
# soak.sh SECONDS [SEED]: runs TestAccSoak (internal/provider/suite_soak_test.go) for
# SECONDS, in test processes of at most 300 s each, or the one cycle of SEED. A test
# process that runs the in-process provider through some 750 cycles reaches the
# open-files limit of 20000 (each terraform command's plugin server leaves a few), so
# one process per chunk keeps a long soak within it. Prints every failing seed.
set -uo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
cd "$repo_root"

seconds=${1:-600}
seed=${2:-}
if [ -n "$seed" ]; then
	TF_ACC=1 MEDIAPLATFORM_SOAK_SEED=$seed bash scripts/gotest.sh -count=1 -timeout 0 -run '^TestAccSoak$' ./internal/provider/
	exit
fi
status=0
end=$((SECONDS + seconds))
while [ "$SECONDS" -lt "$end" ]; do
	chunk=$((end - SECONDS))
	[ "$chunk" -gt 300 ] && chunk=300
	TF_ACC=1 MEDIAPLATFORM_SOAK_SECONDS=$chunk bash scripts/gotest.sh -count=1 -timeout 0 -run '^TestAccSoak$' ./internal/provider/ ||
		status=1
done
exit "$status"
