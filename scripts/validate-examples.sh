#!/usr/bin/env bash
#
# Checks every configuration under examples/: formatting (terraform fmt), that each
# type of the provider has its documentation example, and `terraform validate` in
# every directory that holds .tf files, against a provider binary built from this
# checkout and a dev_overrides CLI configuration in a temporary directory.
# Directories are validated in temporary copies, so the checkout is left as it was.
#
# Exit status 0 when everything is valid, 1 otherwise.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd go terraform
cd "$repo_root"

work=$(mktemp -d "${TMPDIR:-/tmp}/mediaplatform-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT

start=$SECONDS
failed=0
# The CLI configuration is in place before the first terraform command; the provider
# binary it names is built below.
use_dev_overrides "$work/bin" "$work/terraformrc"

note "terraform fmt -check -recursive examples"
if ! terraform fmt -check -recursive -diff examples; then
	printf 'examples are not formatted: run make generate (or terraform fmt -recursive examples)\n' >&2
	failed=1
fi

# Every type the provider has (design §3), as "<kind> <name>": each one needs its
# documentation example.
provider_types=(
	"resource mediaplatform_external_authentication"
	"resource mediaplatform_score"
	"resource mediaplatform_score_view"
	"ephemeral mediaplatform_score_view"
	"ephemeral mediaplatform_access_token"
	"data mediaplatform_external_authentication"
	"data mediaplatform_score"
	"data mediaplatform_scores"
	"data mediaplatform_score_count"
	"data mediaplatform_health"
	"data mediaplatform_systems"
	"data mediaplatform_system_model"
	"data mediaplatform_asset_model"
	"data mediaplatform_command"
	"function localized_label"
	"function evaluate_expression"
	"list mediaplatform_score"
	"action mediaplatform_cancel_command"
)

# The documentation example each type needs (tfplugindocs conventions).
note "documentation examples for every type of the provider"
for type in "${provider_types[@]}"; do
	kind=${type%% *} name=${type#* }
	case $kind in
	resource) f=examples/resources/$name/resource.tf ;;
	data) f=examples/data-sources/$name/data-source.tf ;;
	ephemeral) f=examples/ephemeral-resources/$name/ephemeral-resource.tf ;;
	function) f=examples/functions/$name/function.tf ;;
	list) f=examples/list-resources/$name/list-resource.tfquery.hcl ;;
	action) f=examples/actions/$name/action.tf ;;
	esac
	if [[ ! -f $f ]]; then
		printf 'missing example %s for %s %s\n' "$f" "$kind" "$name" >&2
		failed=1
	fi
done
# The importable resources (design §3) show both ways to import.
for name in mediaplatform_external_authentication mediaplatform_score; do
	for f in "examples/resources/$name/import.sh" "examples/resources/$name/import-by-string-id.tf"; do
		if [[ ! -f $f ]]; then
			printf 'missing import example %s\n' "$f" >&2
			failed=1
		fi
	done
done
# A resource with an identity shows the import by identity too.
for name in mediaplatform_score; do
	for f in "examples/resources/$name/import-by-identity.tf"; do
		if [[ ! -f $f ]]; then
			printf 'missing import example %s\n' "$f" >&2
			failed=1
		fi
	done
done
for f in examples/resources/*/import.sh; do
	[[ -f $f ]] || continue
	bash -n "$f" || failed=1
done

note "building the provider"
build_provider "$work/bin"

# Examples of features newer than the terraform in use cannot be validated with it:
# actions (1.14) and imports by identity (1.12) are left out then, and named.
tf_version=$(terraform version -json | sed -n 's/.*"terraform_version": *"\([^"]*\)".*/\1/p')
note "terraform validate in every example directory (Terraform $tf_version)"
valid=0
invalid=0
while IFS= read -r dir; do
	if [[ $dir == examples/actions/* ]] && ! version_at_least "$tf_version" 1.14.0; then
		printf '  skipped  %s (actions need Terraform 1.14 or later)\n' "$dir"
		continue
	fi
	copy=$work/examples/$dir
	copy_config "$dir" "$copy"
	if [[ -f $copy/import-by-identity.tf ]]; then
		# The two import examples import the same resource: one at a time.
		if version_at_least "$tf_version" 1.12.0; then
			copy_config "$dir" "$copy-identity"
			rm "$copy-identity/import-by-string-id.tf"
			if check_config "$copy-identity"; then
				printf '  valid    %s/import-by-identity.tf\n' "$dir"
			else
				printf '  INVALID  %s/import-by-identity.tf\n' "$dir"
				invalid=$((invalid + 1))
				failed=1
			fi
		else
			printf '  skipped  %s/import-by-identity.tf (import by identity needs Terraform 1.12 or later)\n' "$dir"
		fi
		rm "$copy/import-by-identity.tf"
	fi
	if check_config "$copy"; then
		printf '  valid    %s\n' "$dir"
		valid=$((valid + 1))
	else
		printf '  INVALID  %s\n' "$dir"
		invalid=$((invalid + 1))
		failed=1
	fi
done < <(find examples -name '*.tf' -exec dirname {} \; | sort -u)

printf '%d valid, %d invalid example directories (%ds)\n' "$valid" "$invalid" $((SECONDS - start))
exit "$failed"
