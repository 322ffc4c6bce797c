#!/usr/bin/env bash
#
# Fails when docs/ is not what `make generate` would write: regenerates the
# documentation in a temporary copy of the sources (so the checkout is left as it
# was, on a clean clone too) and compares it with docs/. Then runs
# `tfplugindocs validate` on the committed docs/.
#
# Terraform reports list resources and actions from 1.14 on (resource identities
# from 1.12): with an older terraform (and no DOCS_TERRAFORM naming a newer one) the
# pages that show them cannot be regenerated here. They are then left out of the
# comparison, named in the output as not checked; that every type has its page is
# checked by the Go test TestDocsCoverEveryType, whatever the Terraform version.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd go diff
cd "$repo_root"

work=$(mktemp -d "${TMPDIR:-/tmp}/mediaplatform-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT
use_docs_terraform "$work/bin"

start=$SECONDS
tfplugindocs=(go tool -modfile="$repo_root/tools/go.mod" tfplugindocs)

# What tfplugindocs reads: the provider's sources (it builds the provider and asks
# Terraform for its schema), the templates and the examples. docs/ is copied too, as
# generate keeps files it does not manage.
src=$work/src
mkdir -p "$src"
cp go.mod go.sum ./*.go "$src"/
cp -R internal templates examples "$src"/
[[ -d docs ]] && cp -R docs "$src"/
if [[ $docs_tf_complete == 0 ]]; then
	rm -rf "$src/examples"
	older_examples examples "$src/examples"
fi

note "tfplugindocs generate (into a temporary copy)"
if ! "${tfplugindocs[@]}" generate --provider-dir "$src" \
	--provider-name mediaplatform --rendered-provider-name "Media Platform" >"$work/generate.log" 2>&1; then
	cat "$work/generate.log" >&2
	die "tfplugindocs generate failed"
fi

note "comparing with docs/ (schemas from Terraform $docs_tf_version)"
committed=docs generated=$src/docs
if [[ $docs_tf_complete == 0 ]]; then
	mapfile -t unchecked < <(newer_docs_pages docs)
	committed=$work/compare/committed generated=$work/compare/generated
	mkdir -p "$work/compare"
	cp -R docs "$committed"
	cp -R "$src/docs" "$generated"
	partly=() skipped=()
	for page in "${unchecked[@]}"; do
		if [[ $page == resources/* ]]; then
			# A resource page is checked but for its identity parts.
			strip_identity_parts "$committed/$page"
			partly+=("$page")
		else
			rm -f "$committed/$page" "$generated/$page"
			skipped+=("$page")
		fi
	done
	if ((${#skipped[@]})); then
		printf 'not checked: Terraform %s cannot generate these pages (%s and later can; set DOCS_TERRAFORM to check them):\n' \
			"$docs_tf_version" "$newer_docs_version"
		printf '  docs/%s\n' "${skipped[@]}"
	fi
	if ((${#partly[@]})); then
		printf 'checked without their identity parts (Terraform %s reports no resource identity; %s and later check them whole):\n' \
			"$docs_tf_version" "$newer_docs_version"
		printf '  docs/%s\n' "${partly[@]}"
	fi
fi
if ! diff -ruN "$committed" "$generated"; then
	printf '\ndocs/ is out of date: run make generate and commit the result\n' >&2
	exit 1
fi

note "tfplugindocs validate"
if ! "${tfplugindocs[@]}" validate --provider-dir "$src" --provider-name mediaplatform >"$work/validate.log" 2>&1; then
	cat "$work/validate.log" >&2
	die "tfplugindocs validate failed"
fi

printf 'docs/ is up to date (%ds)\n' $((SECONDS - start))
