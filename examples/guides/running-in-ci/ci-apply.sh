#!/usr/bin/env bash
# Runs terraform in a CI job so that any stop reaches it as exactly one interrupt: the
# job's own time limit here, a Cancel, or the runner's time limit. On that one
# interrupt terraform stops gracefully: the calls on the wire finish, the state keeps
# every object the platform holds, the provider removes its token (but one whose grant
# was still on the wire when the stop bound ended: the create that waited for it says
# so, and that token stays live until it expires). On a second one it exits at once
# and saves nothing. Terraform runs in a session of its own, so a terminal that hangs
# up (SIGHUP) does not reach it.
#
#   exec bash ./ci-apply.sh                    # terraform apply -auto-approve -input=false -no-color
#   exec bash ./ci-apply.sh destroy -auto-approve -input=false
#
# Run it with exec, as the step's last command: runners that signal only the step's
# shell then signal this script. Runners reach processes in three ways: one PID, the
# process group, every process that holds the job's environment tag (or every process
# of the container). So terraform runs in a session of its own, without the tags, and
# not as a child of this script: only this script signals it, once. A runner that
# signals every process of a container reaches terraform before this script (the
# higher PID first): a sentinel, started after terraform and out of reach of every
# other kind of signal, tells this script that terraform has had its signal.
#
# APPLY_TIME_LIMIT (seconds, default 600): then terraform gets one SIGTERM, and the
# script exits 124. APPLY_KILL_AFTER (default 120): how long after its signal a
# terraform that does not stop is killed, the last resort; give it more than the
# provider's stop bound (about 8 s). Needs bash and util-linux's setsid (every Linux runner).
set -u

limit=${APPLY_TIME_LIMIT:-600}
kill_after=${APPLY_KILL_AFTER:-120}
if [ "$#" -eq 0 ]; then
	set -- apply -auto-approve -input=false -no-color
fi

# The variables by which runners find a job's processes: GitHub Actions, Azure
# Pipelines, Jenkins (sh steps, and the ProcessTreeKiller at the build's end).
tags=(RUNNER_TRACKING_ID VSTS_PROCESS_LOOKUP_ID JENKINS_SERVER_COOKIE JENKINS_NODE_COOKIE BUILD_ID)
untagged=(env)
for tag in "${tags[@]}"; do
	untagged+=(-u "$tag")
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/ci-apply.XXXXXX") || exit 1
# A stop that comes while terraform starts is kept for when it has started.
pending=''
trap 'pending=1' INT TERM HUP

# terraform's parent, detached from this script: it writes terraform's PID and exit
# status, and sits out the signals of a runner that signals every process.
# shellcheck disable=SC2016 # expanded by the detached shell
parent='trap : INT TERM HUP
terraform "$@" &
echo "$!" >"$0/pid"
while kill -0 "$!" 2>/dev/null; do wait "$!"; done
wait "$!"
echo "$?" >"$0/status"'
# The sentinel ends with this script, or when something other than this script
# signals it.
# shellcheck disable=SC2016
sentinel='while kill -0 "$0" 2>/dev/null; do sleep 0.2; done'

# A command substitution detaches them: its subshell exits at once, so they are
# children of no process of the job. Their output is the job's (fds 3 and 4).
exec 3>&1 4>&2
detached=$("${untagged[@]}" setsid bash -c "$parent" "$dir" "$@" </dev/null >&3 2>&4 3>&- 4>&- & echo "$!")
sentinel=$("${untagged[@]}" setsid sh -c "$sentinel" "$$" </dev/null >/dev/null 2>&1 3>&- 4>&- & echo "$!")
exec 3>&- 4>&-

# alive: the process exists and is not a zombie (a detached process is reaped by init).
alive() {
	local stat
	[ -n "$1" ] && read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

stopped='' killer=''
# stop sends terraform its one signal, once, however many the runner sends.
stop() {
	[ -z "$stopped" ] || return 0
	stopped=$1
	kill "$timer" 2>/dev/null
	if [ "$stopped" = runner ] && ! alive "$sentinel"; then
		echo "ci-apply.sh: stop received; the runner signalled every process, terraform first: waiting for it" >&2
	else
		local pid=''
		while ! read -r pid 2>/dev/null <"$dir/pid" && alive "$detached"; do
			sleep 0.05
		done
		echo "ci-apply.sh: stop received ($stopped): terraform gets one SIGTERM and stops gracefully" >&2
		[ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null
	fi
	sleep "$kill_after" &
	killer=$!
}
sleep "$limit" &
timer=$!
trap 'stop runner' INT TERM HUP
[ -z "$pending" ] || stop runner

# Wait in short steps, or until a timer ends: a signal interrupts wait, and its trap
# runs at once.
while alive "$detached"; do
	sleep 0.1 &
	wait -n
	if [ -z "$stopped" ] && ! kill -0 "$timer" 2>/dev/null && wait "$timer"; then
		stop "time limit"
	elif [ -n "$killer" ] && ! kill -0 "$killer" 2>/dev/null && wait "$killer"; then
		echo "ci-apply.sh: terraform did not stop within ${kill_after} s of its signal: killing it" >&2
		kill -KILL -- "-$detached" 2>/dev/null
		killer=
	fi
done

# terraform is done: a late signal changes nothing. Leave nothing behind.
trap '' INT TERM HUP
kill -- -"$sentinel" "$timer" ${killer:+"$killer"} 2>/dev/null
wait
status=137
read -r status 2>/dev/null <"$dir/status"
rm -rf "$dir"
if [ "$stopped" = "time limit" ]; then
	echo "terraform $1 stopped at its time limit (${limit} s): the state holds what was created; run again to finish" >&2
	[ "$status" -eq 137 ] || status=124
fi
exit "$status"
