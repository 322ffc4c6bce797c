#!/usr/bin/env bash
#
# make demo: builds the provider and the emulator, starts the emulator on a free
# loopback port, applies examples/demo against it through a dev_overrides CLI
# configuration, prints the outputs, shows that a second plan has nothing to do,
# destroys, and stops the emulator.
#
# Everything it writes (binaries, CLI configuration, a copy of the configuration and
# its state) lives in one temporary directory, removed on exit: the checkout and
# ~/.terraformrc are left alone. Any failure stops it with a non-zero status.
#
# DEMO_DIR=path runs another configuration the same way (default examples/demo).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd go terraform sed
demo_dir=${DEMO_DIR:-$repo_root/examples/demo}
[[ -d $demo_dir ]] || die "no configuration at $demo_dir"
demo_dir=$(cd "$demo_dir" && pwd)

start_run demo

start=$SECONDS
timings=()
# phase NAME: records how long the step since the previous call took.
phase_start=$SECONDS
phase() {
	timings+=("$(printf '%-22s %3ds' "$1" $((SECONDS - phase_start)))")
	phase_start=$SECONDS
}

# http_request METHOD URL [BODY]: prints the response body of a JSON request to the
# emulator and fails on an error status. Uses curl, or else plain HTTP over bash's
# /dev/tcp, which is enough for the emulator on a loopback address.
http_request() {
	local method=$1 url=$2 body=${3:-}
	if command -v curl >/dev/null 2>&1; then
		if [[ -n $body ]]; then
			curl --silent --show-error --fail-with-body -X "$method" \
				-H 'Content-Type: application/json' --data "$body" "$url"
		else
			curl --silent --show-error --fail-with-body -X "$method" "$url"
		fi
		return
	fi
	[[ $url == http://* ]] || die "without curl only http:// addresses can be reached: $url"
	local rest=${url#http://} hostport path response status
	hostport=${rest%%/*}
	path=${rest#"$hostport"}
	exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}"
	LC_ALL=C printf '%s %s HTTP/1.0\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
		"$method" "${path:-/}" "$hostport" "${#body}" "$body" >&3
	response=$(cat <&3)
	exec 3<&-
	status=${response#HTTP/* }
	status=${status%% *}
	printf '%s\n' "${response#*$'\r\n\r\n'}"
	[[ $status =~ ^[0-9]+$ ]] && ((status < 400))
}

# json_string JSON KEY: the first string value of KEY in the JSON text, or nothing.
# Enough for the flat values read here (addresses, identifiers), which hold no escapes.
json_string() {
	local re="\"$2\"[[:space:]]*:[[:space:]]*\"([^\"]*)\""
	if [[ $1 =~ $re ]]; then
		printf '%s\n' "${BASH_REMATCH[1]}"
	fi
}

# json_number JSON KEY: the first numeric value of KEY in the JSON text, or nothing.
json_number() {
	local re="\"$2\"[[:space:]]*:[[:space:]]*([0-9]+)"
	if [[ $1 =~ $re ]]; then
		printf '%s\n' "${BASH_REMATCH[1]}"
	fi
}

note "building the provider and the emulator (the first build on a machine downloads the Go modules and compiles them: a few minutes; later ones take seconds)"
mkdir -p "$work/bin"
build_provider "$work/bin"
(cd "$repo_root" && go build -trimpath -o "$work/bin/mediaplatform-emulator" ./cmd/mediaplatform-emulator)
use_dev_overrides "$work/bin" "$work/terraformrc"
phase "build"

note "starting the emulator"
: >"$work/emulator.out"
emulator_log=$work/emulator.err
"$work/bin/mediaplatform-emulator" -listen 127.0.0.1:0 -render-delay 150ms \
	>"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
# The first line on stdout is one JSON object with the three base addresses.
first_line=""
for _ in $(seq 100); do
	if IFS= read -r first_line <"$work/emulator.out" && [[ $first_line == "{"* ]]; then
		break
	fi
	first_line=""
	kill -0 "$emulator_pid" 2>/dev/null || die "the emulator exited: $(cat "$work/emulator.err")"
	sleep 0.1
done
[[ -n $first_line ]] || die "the emulator printed no addresses within 10 seconds"
admin_url=$(json_string "$first_line" admin_url)
platform_url=$(json_string "$first_line" platform_url)
publishing_url=$(json_string "$first_line" publishing_url)
[[ -n $admin_url && -n $platform_url && -n $publishing_url ]] ||
	die "cannot read the addresses from the emulator's first line: $first_line"
printf '    admin_url      %s\n    platform_url   %s\n    publishing_url %s\n' \
	"$admin_url" "$platform_url" "$publishing_url"

# The provider takes its whole configuration from the environment; nothing of the
# caller's MEDIAPLATFORM_* settings may leak in.
clear_provider_settings
export MEDIAPLATFORM_ADMIN_URL=$admin_url
export MEDIAPLATFORM_ADMIN_USERNAME=admin
export MEDIAPLATFORM_ADMIN_PASSWORD=admin-secret
export MEDIAPLATFORM_PLATFORM_URL=$platform_url
export MEDIAPLATFORM_CLIENT_ID=terraform
export MEDIAPLATFORM_CLIENT_SECRET=terraform-secret
export MEDIAPLATFORM_USERNAME=alice
export MEDIAPLATFORM_PASSWORD=alice-secret
export MEDIAPLATFORM_PUBLISHING_URL=$publishing_url

# A long-running platform command for the mediaplatform_command data source to
# follow: the emulator plays it from the script in the demo directory.
if [[ -f $demo_dir/purge-command.json ]]; then
	note "scripting a platform command (POST /_emulator/commands)"
	response=$(http_request POST "$platform_url/_emulator/commands" "$(cat "$demo_dir/purge-command.json")") ||
		die "the emulator refused the command script: $response"
	command_id=$(json_string "$response" id)
	[[ -n $command_id ]] || die "no command id in the emulator's answer: $response"
	printf '    command %s\n' "$command_id"
	export TF_VAR_command_id=$command_id
fi
phase "start emulator"

# Terraform runs in a copy, so the state stays in the temporary directory.
config=$work/config
copy_config "$demo_dir" "$config"
check_config "$config" || die "the configuration in $demo_dir is not valid (see above)"
phase "validate"

# tf ARGS: terraform in the copy of the configuration, without colours unless on a
# terminal.
tf() {
	local color=()
	[[ -t 1 ]] || color=(-no-color)
	terraform -chdir="$config" "$@" "${color[@]}"
}

# tf_quiet LOG ARGS: terraform, printing only what happens to each object (the full
# output goes to LOG, and to stderr if terraform fails).
tf_quiet() {
	local log=$1
	shift
	if ! tf "$@" >"$log" 2>&1; then
		cat "$log" >&2
		return 1
	fi
	grep -E ': (Reading|Read complete|Creating|Creation complete|Modifying|Modifications complete|Destroying|Destruction complete|Still [a-z]+)|(Apply|Destroy) complete' "$log" |
		sed 's/^/    /'
}

# check_sessions WHEN: reads the emulator's counters and fails if a terraform command
# left an administrator session or a platform token open: the provider logs out and
# removes its token when Terraform shuts it down.
check_sessions() {
	local stats sessions tokens
	stats=$(http_request GET "$platform_url/_emulator/stats")
	sessions=$(json_number "$stats" liveSessions)
	tokens=$(json_number "$stats" liveTokens)
	printf '    emulator %s: %s admin login(s) and %s platform login(s) so far, %s session(s) and %s token(s) open, %s score(s)\n' \
		"$1" "$(json_number "$stats" admin)" "$(json_number "$stats" oauth)" "${sessions:-?}" "${tokens:-?}" \
		"$(json_number "$stats" scores)"
	[[ $sessions == 0 && $tokens == 0 ]] ||
		die "the provider left administrator sessions or platform tokens open"
}

note "terraform apply"
tf_quiet "$work/apply.log" apply -auto-approve -input=false
check_sessions "after apply"
phase "apply"

note "terraform output"
tf output
if viewer_url=$(tf output -raw rehearsal_viewer_url 2>/dev/null) && [[ $viewer_url == http* ]]; then
	http_request GET "$viewer_url" >/dev/null || die "the rehearsal view does not open"
	printf '\n    the rehearsal view opens: its viewer_url answers with the score viewer\n'
fi

note "terraform plan again: nothing to do"
plan_status=0
tf plan -detailed-exitcode -input=false -compact-warnings || plan_status=$?
case $plan_status in
0) ;;
2) die "the second plan is not empty: the configuration or the provider does not converge" ;;
*) die "terraform plan failed" ;;
esac
check_sessions "after plan"
phase "second plan"

note "terraform destroy"
tf_quiet "$work/destroy.log" destroy -auto-approve -input=false
check_sessions "after destroy"
phase "destroy"

note "stopping the emulator"
kill -TERM "$emulator_pid"
wait "$emulator_pid" || die "the emulator did not stop cleanly"
emulator_pid=""
phase "stop emulator"

printf '\ndemo finished in %ds:\n' $((SECONDS - start))
printf '    %s\n' "${timings[@]}"
