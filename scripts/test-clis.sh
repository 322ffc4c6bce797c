#!/usr/bin/env bash
# test-clis.sh: runs the acceptance tests of the provider package once per CLI binary
# in TERRAFORM_BINARIES (space-separated paths; Terraform or OpenTofu), each with the
# settings it needs, and prints the pass/fail/skip counts and skip reasons per CLI.
#
#   make test-clis TERRAFORM_BINARIES="/usr/local/bin/terraform $HOME/bin/terraform-1.15 $HOME/bin/tofu"
#
# OpenTofu resolves a provider without a source to registry.opentofu.org, so the
# in-process provider is announced there (TF_ACC_PROVIDER_HOST). A TF_CLI_CONFIG_FILE
# that names a missing file is dropped: OpenTofu prints a warning for it before its
# version, which the test framework cannot parse.
set -uo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
cd "$repo_root"

[ -n "${TERRAFORM_BINARIES:-}" ] || die "set TERRAFORM_BINARIES to the CLI binaries to test, e.g. TERRAFORM_BINARIES=\"\$(command -v terraform) /opt/tofu/tofu\""
if [ -n "${TF_CLI_CONFIG_FILE:-}" ] && [ ! -e "$TF_CLI_CONFIG_FILE" ]; then
	unset TF_CLI_CONFIG_FILE
fi

status=0
summary=()
for bin in $TERRAFORM_BINARIES; do
	[ -x "$bin" ] || die "$bin is not an executable file"
	name=$("$bin" version 2>/dev/null | head -n 1)
	host=registry.terraform.io
	case "$name" in OpenTofu*) host=registry.opentofu.org ;; esac
	note "$name ($bin)"
	out=$(TF_ACC=1 TF_ACC_TERRAFORM_PATH="$bin" TF_ACC_PROVIDER_HOST="$host" \
		bash scripts/gotest.sh -count=1 -timeout 20m ./internal/provider/ ./internal/cimodels/ 2>&1)
	rc=$?
	printf '%s\n' "$out"
	summary+=("$name: $(printf '%s\n' "$out" | sed -n 's/^==> tests: //p') (exit $rc)")
	[ "$rc" -eq 0 ] || status=1
done
note "summary"
printf '  %s\n' "${summary[@]}"
exit "$status"
