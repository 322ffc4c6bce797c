#!/usr/bin/env bash
# Apply in CI within a time limit. When the limit is reached, timeout sends terraform one
# SIGTERM: terraform stops gracefully, the provider finishes the calls already on the wire,
# the state keeps every object the platform holds, and the provider removes its platform
# token. Run it again to finish.
#
# setsid gives terraform (and its provider) a process group of their own: timeout signals
# its command and then its own process group, and without setsid terraform would be in
# both and get a second SIGTERM, on which it exits at once without saving its state.
# --kill-after is the last resort for a terraform that does not stop; give it more than
# the provider's request_timeout.
set -euo pipefail

status=0
timeout -s TERM --kill-after="${APPLY_KILL_AFTER:-120}" "${APPLY_TIME_LIMIT:-600}" \
	setsid terraform apply -auto-approve -input=false -no-color || status=$?
if [ "$status" -eq 124 ]; then
	echo "terraform apply stopped at its time limit (${APPLY_TIME_LIMIT:-600} s): the state holds what was created; apply again to finish" >&2
fi
exit "$status"
