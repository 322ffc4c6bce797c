#!/usr/bin/env bash
#
# Fails when docs/ is not what `make generate` would write: regenerates the
# documentation in a temporary copy of the sources (so the checkout is left as it
# was, on a clean clone too) and compares it with docs/. Then runs
# `tfplugindocs validate` on the committed docs/.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd go terraform diff
cd "$repo_root"

work=$(mktemp -d "${TMPDIR:-/tmp}/mediaplatform-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT

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

note "tfplugindocs generate (into a temporary copy)"
if ! "${tfplugindocs[@]}" generate --provider-dir "$src" \
	--provider-name mediaplatform --rendered-provider-name "Media Platform" >"$work/generate.log" 2>&1; then
	cat "$work/generate.log" >&2
	die "tfplugindocs generate failed"
fi

note "comparing with docs/"
if ! diff -ruN docs "$src/docs"; then
	printf '\ndocs/ is out of date: run make generate and commit the result\n' >&2
	exit 1
fi

note "tfplugindocs validate"
if ! "${tfplugindocs[@]}" validate --provider-dir "$src" --provider-name mediaplatform >"$work/validate.log" 2>&1; then
	cat "$work/validate.log" >&2
	die "tfplugindocs validate failed"
fi

printf 'docs/ is up to date (%ds)\n' $((SECONDS - start))
