#!/usr/bin/env bash
# Starts the emulator in the background on a free port, seeded, and waits until it
# serves: its settings are then in emulator.env. Source that file to point Terraform
# (and `terraform test`) at it:  set -a; . ./emulator.env; set +a
set -euo pipefail

mediaplatform-emulator -listen 127.0.0.1:0 -seed seed.json -env-file emulator.env >emulator.log 2>&1 &
echo $! >emulator.pid
for _ in $(seq 100); do
	[[ -s emulator.env ]] && exit 0
	sleep 0.1
done
echo "the emulator did not start; its log:" >&2
cat emulator.log >&2
exit 1
