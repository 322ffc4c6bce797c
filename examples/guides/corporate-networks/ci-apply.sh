#!/usr/bin/env bash
# Apply in CI within a time limit. When the limit is reached, timeout sends SIGTERM to
# terraform and the provider (their process group): terraform stops gracefully, the
# provider finishes the calls already on the wire, the state keeps every score the
# platform holds, and the provider removes its platform token. Run it again to finish.
set -euo pipefail

status=0
timeout -s TERM "${APPLY_TIME_LIMIT:-600}" terraform apply -auto-approve -input=false -no-color || status=$?
if [ "$status" -eq 124 ]; then
	echo "terraform apply stopped at its time limit (${APPLY_TIME_LIMIT:-600} s): the state holds what was created; apply again to finish" >&2
fi
exit "$status"
