#!/usr/bin/env bash
# The scheduled drift check: a refresh-only plan, which shows what changed outside
# Terraform, then its list of drifted objects: exit 0 when the platform matches the
# state, 2 when something changed outside Terraform, 1 on an error. Run it in the
# configuration's directory. (The exit code of `plan -refresh-only -detailed-exitcode`
# alone is 2 with nothing drifted on some Terraform versions, 1.11 among them,
# hashicorp/terraform#36403: the plan's resource_drift is what tells.)
set -uo pipefail

terraform plan -refresh-only -input=false -no-color -out=drift.tfplan || exit 1
drifted=$(terraform show -json drift.tfplan | jq '[.resource_drift // [] | .[] | .address] | length') || exit 1
rm -f drift.tfplan
if ((drifted > 0)); then
	echo "drift check: $drifted object(s) changed outside Terraform (see the plan above)" >&2
	exit 2
fi
echo "drift check: the platform matches the state"
