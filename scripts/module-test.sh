#!/usr/bin/env bash
#
# make module-test: runs the example module's `terraform test` suite
# (examples/modules/score-catalogue) the way a module author runs it, and walks the
# drift check of docs/guides/drift-detection.md:
#
#   1. the mock-provider tests, with no platform and no credentials;
#   2. the emulator started on a free port with the testing guide's seed and
#      -env-file, the env file sourced, and the tests that run against it;
#   3. the GitHub Actions jobs of the testing and CI guides checked by actionlint;
#   4. the drift-detection example applied, its drift check passing, the settings
#      changed outside Terraform with the guide's script, and the drift check then
#      failing (exit 2) with the change in its plan.
#
# Everything lives in one temporary directory, removed on exit; the emulator is
# stopped on every path. It prints terraform test's own summary lines.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd go terraform curl sed
start_run module-test

note "building the provider and the emulator (the testing guide's use-local-build.sh)"
# A module author runs `terraform init`, then `terraform test`: the provider comes from
# a local filesystem mirror, as from a registry (dev_overrides would not do: init would
# still ask the registry for it).
"$repo_root/examples/guides/testing/use-local-build.sh" "$repo_root" "$work/local"
export TF_CLI_CONFIG_FILE="$work/local/terraform.rc"
export PATH="$work/local/bin:$PATH"
# Only the variables set below reach the provider.
clear_provider_settings

module="$work/score-catalogue"
cp -R "$repo_root/examples/modules/score-catalogue" "$module"
terraform -chdir="$module" init -backend=false -input=false -no-color >/dev/null

note "terraform test: mock provider, no platform"
terraform -chdir="$module" test -no-color -filter=tests/mock.tftest.hcl

note "starting the emulator with the testing guide's seed"
testing="$work/testing"
cp -R "$repo_root/examples/guides/testing" "$testing"
(cd "$testing" && ./start-emulator.sh)
emulator_pid=$(cat "$testing/emulator.pid")
set -a
# shellcheck disable=SC1091
. "$testing/emulator.env"
set +a

note "terraform test: against the emulator"
terraform -chdir="$module" test -no-color -filter=tests/catalogue.tftest.hcl

note "the GitHub Actions jobs of the guides (actionlint)"
(cd "$repo_root" && go tool -modfile=tools/go.mod actionlint examples/guides/testing/github-actions.yml \
	examples/guides/running-in-ci/github-actions.yml)

note "drift detection: apply, check, change outside Terraform, check again"
drift="$work/drift-detection"
cp -R "$repo_root/examples/guides/drift-detection" "$drift"
terraform -chdir="$drift" init -input=false -no-color >/dev/null
terraform -chdir="$drift" apply -auto-approve -input=false -no-color >/dev/null
(cd "$drift" && ./drift-check.sh >"$work/drift-1.out" 2>&1) || die "the drift check failed before any change: $(cat "$work/drift-1.out")"
(cd "$drift" && ./change-settings.sh)
set +e
(cd "$drift" && ./drift-check.sh >"$work/drift-2.out" 2>&1)
status=$?
set -e
((status == 2)) || die "the drift check exited $status after the settings changed, want 2: $(cat "$work/drift-2.out")"
for want in 'enabled +\= true -> false' '- address = "dc2\.corp\.example" -> null' 'External authentication is switched off'; do
	grep -Eq -- "$want" "$work/drift-2.out" || die "the drift check's output lacks /$want/: $(cat "$work/drift-2.out")"
done
note "the drift check exited 2 and showed the change"
terraform -chdir="$drift" destroy -auto-approve -input=false -no-color >/dev/null
