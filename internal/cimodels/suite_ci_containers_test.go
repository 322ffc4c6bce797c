//go:build linux

package cimodels

// The places around Terraform that stop it in their own ways, modelled as the CI runner
// models are (suite_ci_runners_test.go) and run with the stand-in terraform
// (internal/acctest/standin.go): a container whose stop reaches only its main process
// (`docker stop`, Kubernetes' pod termination, GitLab's FF_USE_NATIVE_CONTAINER_STOP),
// Terragrunt, Atlantis and HCP Terraform. A container is a real PID namespace
// (util-linux's `unshare --pid --fork`, which needs root): its first process is PID 1,
// to which the kernel delivers only the signals it has a handler for, and when PID 1
// ends the kernel kills every other process in it.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/provider"
)

// placeScale divides the places' own delays (docker stop's 10 s, Kubernetes' 30 s,
// Terragrunt's 15 s and 30 s) and terraform's stop (the provider's stopBound, or the
// request_timeout that bounded it before) alike, so that the models keep their order
// of events and take half the time. Each margin left (the 2 s between the stop bound
// and docker stop's kill is the smallest) is 1 s here: far more than a signal takes to
// reach terraform through the script on a machine 4× slower than this one.
const placeScale = 2

// scaled is a delay of a place or of terraform, as the models run it.
func scaled(d time.Duration) time.Duration { return d / placeScale }

// The places' delays, from their sources and documentation.
const (
	dockerStopGrace   = 10 * time.Second // `docker stop` (and the GitLab runner's native stop): SIGKILL 10 s after SIGTERM
	kubernetesGrace   = 30 * time.Second // terminationGracePeriodSeconds' default; the Atlantis chart sets none
	terragruntForward = 15 * time.Second // terragrunt passes a signal on to terraform this long after it
	terragruntKill    = 30 * time.Second // and kills terraform this long after the first signal
	formerStopGrace   = 30 * time.Second // how long terraform could take to stop before the stop bound: request_timeout's default
)

// terragruntModel stands for terragrunt: it runs terraform as its child, in its own
// process group; a SIGINT or SIGTERM it receives it passes on to terraform
// TG_FORWARD microseconds later, and it kills terraform TG_KILL microseconds after the
// first (terragrunt's timers, without a process of their own). It ends when terraform
// has ended. Its traps are set before terraform starts: the test stops it once
// terraform has started, and a container's PID 1 without a handler drops a SIGTERM.
const terragruntModel = `#!/usr/bin/env bash
first='' due=()
now() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
pass() {
	due+=("$1:$(($(now) + ${TG_FORWARD%.*}))")
	[ -n "$first" ] || first=$(now)
}
trap 'pass INT' INT
trap 'pass TERM' TERM
terraform "$@" &
child=$!
while kill -0 "$child" 2>/dev/null; do
	sleep 0.05 &
	wait "$!"
	t=$(now) left=()
	for d in "${due[@]}"; do
		if [ "${d#*:}" -le "$t" ]; then kill "-${d%%:*}" "$child" 2>/dev/null; else left+=("$d"); fi
	done
	due=("${left[@]}")
	if [ -n "$first" ] && [ "$t" -ge $((first + ${TG_KILL%.*})) ]; then kill -KILL "$child" 2>/dev/null; fi
done
`

// waitingServerModel stands for Atlantis' server (behind its image's `dumb-init
// --single-child`, which passes the pod's SIGTERM to the server alone) and for an HCP
// Terraform agent: it runs terraform as its child and, on SIGTERM, waits for the
// running apply without signalling terraform. The agent's Cancel Run (SIGUSR1 here,
// standing for the platform's message) sends terraform one SIGINT. Its traps, too,
// are set before terraform starts; a Cancel that comes before terraform's process id
// is known is passed on once it is.
const waitingServerModel = `#!/usr/bin/env bash
cancel=''
trap 'echo "server: SIGTERM: waiting for the running apply" >&2' TERM
trap 'cancel=1' USR1
terraform "$@" &
child=$!
while kill -0 "$child" 2>/dev/null; do
	if [ -n "$cancel" ]; then cancel=''; kill -INT "$child"; fi
	sleep 0.05 &
	wait "$!"
done
`

// placeWant is what a model's stop does to terraform.
type placeWant int

const (
	oneInterrupt   placeWant = iota // one interrupt, terraform stops by itself: nothing lost
	finishes                        // no interrupt, the apply runs to its end before the kill: nothing lost
	killedUnawares                  // no interrupt at all, terraform killed: what it had made is lost, its token left
	killedStopping                  // one interrupt, terraform killed before it stopped
	twoInterrupts                   // a second interrupt: terraform exits at once and saves nothing
)

func (w placeWant) String() string {
	return [...]string{"one interrupt, terraform stops by itself (nothing lost)",
		"no interrupt, the apply runs to its end (nothing lost)",
		"no interrupt, terraform killed (its scores lost, its token left)",
		"one interrupt, terraform killed while stopping (its scores lost, its token left)",
		"two interrupts, terraform exits at once (nothing saved)"}[w]
}

// placeOutcome classifies what the stand-in recorded.
func placeOutcome(r acctest.StandInRun) placeWant {
	switch {
	case len(r.Signals) >= 2:
		return twoInterrupts
	case len(r.Signals) == 1 && r.Exit != "":
		return oneInterrupt
	case len(r.Signals) == 1:
		return killedStopping
	case r.Exit == "0":
		return finishes
	}
	return killedUnawares
}

// placeJob is one run under a place's model.
type placeJob struct {
	*ciJob
	container bool
	killed    bool // the stop ended with SIGKILL: the job did not end within its grace
}

// mainProcess is the container's PID 1 as the host sees it: unshare's only child.
func (j *placeJob) mainProcess() int {
	var pid int
	acctest.WaitFor(time.Minute, func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", j.cmd.Process.Pid, j.cmd.Process.Pid))
		if err != nil {
			return true
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

// stopContainer stops the container as `docker stop` and Kubernetes do: SIGTERM to
// its main process, SIGKILL to it when grace has passed (the kernel then kills every
// process in it). The container is over when its main process has ended.
func stopContainer(grace time.Duration) func(j *placeJob) {
	return func(j *placeJob) {
		pid1 := j.mainProcess()
		_ = syscall.Kill(pid1, syscall.SIGTERM)
		if !j.exited(grace) {
			j.killed = true
			_ = syscall.Kill(pid1, syscall.SIGKILL)
			j.exited(time.Minute)
		}
	}
}

// placeCase is one model: where terraform runs, how it is stopped, and what the stop
// does to it.
type placeCase struct {
	name string
	// argv is the process the place starts (the container's main process), in the
	// job's directory; nil for the guide's shell block of the heading "Containers".
	argv      []string
	container bool
	stop      func(j *placeJob)
	// terraformStop is how long terraform takes to stop after its interrupt; apply how
	// long the apply would run (a minute when 0).
	terraformStop, apply time.Duration
	want                 placeWant
	// orWant is another outcome the model allows: a race of the stop with the kill
	// that either side may win.
	orWant *placeWant
	why    string // what the model saves, or cannot
}

// TestCIRunners_containersAndWrappers runs the models of the places around Terraform
// with the stand-in terraform and checks what each stop does to it, as the guide's
// "Stopping a run in CI" states it: one interrupt and a stop by itself where the guide
// says the setup saves the run, and the harm where it says it cannot. A plain test: no
// TF_ACC, no provider.
func TestCIRunners_containersAndWrappers(t *testing.T) {
	acctest.SkipWithout(t, "bash", "sh", "setsid", "unshare")
	if err := exec.CommandContext(context.Background(), "unshare", "--pid", "--fork", "true").Run(); err != nil {
		t.Skipf("no PID namespace for the container models (unshare --pid --fork needs root): %v", err)
	}
	t.Parallel()
	recipe := ciRecipe(t)
	bound := scaled(provider.StopBound)
	cases := []placeCase{
		{
			name: "docker stop, terraform as PID 1 (exec form)", argv: []string{"terraform", "apply", "-auto-approve", "-input=false"},
			container: true, stop: stopContainer(scaled(dockerStopGrace)), terraformStop: bound, want: oneInterrupt,
			why: "terraform handles SIGTERM as PID 1 and stops within the provider's stop bound, before docker's kill",
		},
		{
			name: "docker stop, the guide's command: the script as PID 1 (exec)", container: true,
			stop: stopContainer(scaled(dockerStopGrace)), terraformStop: bound, want: oneInterrupt,
			why: "the script traps SIGTERM as PID 1 and passes it on once; terraform stops before docker's kill",
		},
		{
			name: "Kubernetes, the guide's command: the script as PID 1 (exec)", container: true,
			stop: stopContainer(scaled(kubernetesGrace)), terraformStop: bound, want: oneInterrupt,
			why: "as under docker stop, with 30 s before the kill",
		},
		{
			name: "docker stop, a sh -c entrypoint as PID 1", argv: []string{"sh", "-c", "terraform init -input=false && terraform apply -auto-approve -input=false"},
			container: true, stop: stopContainer(scaled(dockerStopGrace)), terraformStop: bound, want: killedUnawares,
			why: "sh (dash) as PID 1 has no SIGTERM handler, so the kernel drops the signal: terraform is killed at the grace period",
		},
		{
			name: "docker stop --init (tini), a sh -c entrypoint", argv: []string{"tini", "--", "sh", "-c", "terraform init -input=false && terraform apply -auto-approve -input=false"},
			container: true, stop: stopContainer(scaled(dockerStopGrace)), terraformStop: bound, want: killedUnawares,
			why: "tini passes SIGTERM to the shell, which dies of it; tini ends with its child, and the kernel kills terraform with the container at once",
		},
		{
			name: "docker stop, tini -g (the process group), a sh -c entrypoint", argv: []string{"tini", "-g", "--", "sh", "-c", "terraform init -input=false && terraform apply -auto-approve -input=false"},
			container: true, stop: stopContainer(scaled(dockerStopGrace)), terraformStop: bound, want: killedUnawares, orWant: new(killedStopping),
			why: "tini -g signals the shell's group, terraform too; the shell dies of it, tini ends with it, and terraform is killed at once, whether or not it took the signal in",
		},
		{
			name: "Terragrunt, Ctrl-C in a terminal", argv: []string{"terragrunt", "apply", "-auto-approve"},
			stop: groupInterrupt, terraformStop: bound, want: oneInterrupt,
			why: "terraform gets the group's SIGINT and stops within the stop bound, before terragrunt passes the signal on 15 s later",
		},
		{
			name: "Terragrunt, Ctrl-C, terraform stopping for request_timeout (before the stop bound)", argv: []string{"terragrunt", "apply", "-auto-approve"},
			stop: groupInterrupt, terraformStop: scaled(formerStopGrace), want: twoInterrupts,
			why: "a terraform still stopping at 15 s gets terragrunt's copy of the SIGINT as a second interrupt",
		},
		{
			name: "Terragrunt as a container's PID 1, docker stop", argv: []string{"terragrunt", "apply", "-auto-approve"},
			container: true, stop: stopContainer(scaled(dockerStopGrace)), terraformStop: bound, want: killedUnawares,
			why: "terragrunt would pass the SIGTERM on at 15 s; docker kills the container at 10 s",
		},
		{
			name: "Terragrunt as a container's PID 1, Kubernetes (30 s)", argv: []string{"terragrunt", "apply", "-auto-approve"},
			container: true, stop: stopContainer(scaled(kubernetesGrace)), terraformStop: bound, want: oneInterrupt,
			why: "terragrunt passes the SIGTERM on at 15 s, and terraform stops within the stop bound, before the kill at 30 s",
		},
		{
			name: "Atlantis, pod deleted, the chart's 30 s, an apply with more to run", argv: []string{"atlantis", "apply", "-auto-approve"},
			container: true, stop: stopContainer(scaled(kubernetesGrace)), terraformStop: bound, want: killedUnawares,
			why: "Atlantis never signals terraform and waits for it; the pod is killed at its grace period",
		},
		{
			name: "Atlantis, pod deleted, grace period above the longest apply", argv: []string{"atlantis", "apply", "-auto-approve"},
			container: true, stop: stopContainer(scaled(120 * time.Second)), terraformStop: bound, apply: scaled(20 * time.Second), want: finishes,
			why: "the apply runs to its end before the pod's grace period is over",
		},
		{
			name: "HCP Terraform, Cancel Run", argv: []string{"hcp-agent", "apply", "-auto-approve"},
			stop: cancelRun, terraformStop: bound, want: oneInterrupt,
			why: "Cancel Run sends terraform one interrupt",
		},
		{
			name: "HCP Terraform agent under docker stop", argv: []string{"hcp-agent", "apply", "-auto-approve"},
			container: true, stop: stopContainer(scaled(dockerStopGrace)), terraformStop: bound, want: killedUnawares,
			why: "the agent does not pass the SIGTERM on; docker kills it with its run at 10 s",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.argv) > 0 {
				if _, err := exec.LookPath(c.argv[0]); err != nil && c.argv[0] == "tini" {
					t.Skip("tini is not on PATH")
				}
			}
			t.Parallel()
			got, killed := runPlace(t, c, recipe)
			t.Logf("%s: %s, as the guide says: %s", got.what, placeOutcome(got.run), c.why)
			if outcome := placeOutcome(got.run); outcome != c.want && (c.orWant == nil || outcome != *c.orWant) || len(got.outlived) > 0 {
				t.Errorf("%s; want %s (%s)\n--- the job:\n%s", got, c.want, c.why, got.out)
			}
			if killed && (c.want == oneInterrupt || c.want == finishes) {
				t.Errorf("%s: terraform ended by itself, and the container did not end with it: it was killed at its grace period\n--- the job:\n%s", got.what, got.out)
			}
		})
	}
}

// groupInterrupt is Ctrl-C in a terminal: SIGINT to the foreground process group.
func groupInterrupt(j *placeJob) {
	j.signalStep(syscall.SIGINT, true)
	j.exited(time.Minute)
}

// cancelRun is HCP Terraform's Cancel Run, which its agent turns into one SIGINT to
// terraform (SIGUSR1 to the agent's model).
func cancelRun(j *placeJob) {
	j.signalStep(syscall.SIGUSR1, false)
	j.exited(time.Minute)
}

// runPlace runs one model with the stand-in terraform, stops it 300 ms after the
// stand-in started, and returns what the stop left and whether it ended in a kill.
func runPlace(t *testing.T, c placeCase, recipe string) (standInStop, bool) {
	t.Helper()
	dir := t.TempDir()
	acctest.WriteFile(t, filepath.Join(dir, "ci-apply.sh"), recipe)
	standIn, record := acctest.StandInTerraform(t)
	// terraform: `init` does nothing (and records nothing), anything else is the
	// stand-in itself (exec: the same process).
	bin := t.TempDir()
	for name, script := range map[string]string{
		"terraform":  "#!/bin/sh\n[ \"$1\" = init ] && exit 0\nexec \"$TERRAFORM_STAND_IN\" \"$@\"\n",
		"terragrunt": terragruntModel,
		"atlantis":   waitingServerModel,
		"hcp-agent":  waitingServerModel,
	} {
		acctest.WriteFile(t, filepath.Join(bin, name), script)
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	argv := c.argv
	if argv == nil {
		// The guide's block is the container's command line: bash splits it into the
		// command's words and execs it, so that its first word is the main process.
		argv = []string{"bash", "-c", "exec " + ciStepCommands(t, "Containers")}
	} else if _, err := os.Stat(filepath.Join(bin, argv[0])); err == nil {
		argv = append([]string{filepath.Join(bin, argv[0])}, argv[1:]...)
	}
	if c.container {
		// Its own /proc too, as a container has: the script reads its processes there.
		argv = append([]string{"unshare", "--pid", "--fork", "--mount-proc", "--kill-child"}, argv...)
	}
	apply := c.apply
	if apply == 0 {
		apply = time.Minute
	}
	micros := func(d time.Duration) string { return strconv.FormatInt(d.Microseconds(), 10) }
	j := &placeJob{ciJob: &ciJob{t: t, dir: dir, marker: fmt.Sprintf("%d-place-%d", os.Getpid(), time.Now().UnixNano()), done: make(chan struct{})}, container: c.container}
	j.cmd = exec.CommandContext(context.Background(), argv[0], argv[1:]...)
	j.cmd.Dir = dir
	j.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	j.cmd.Env = append(acctest.CleanEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TERRAFORM_STAND_IN="+filepath.Join(standIn, "terraform"), acctest.StandInRecordVar+"="+record, acctest.StandInRunVar+"="+apply.String(), acctest.StandInGraceVar+"="+c.terraformStop.String(),
		"TG_FORWARD="+micros(scaled(terragruntForward)), "TG_KILL="+micros(scaled(terragruntKill)), ciJobVar+"="+j.marker)
	logFile, err := os.Create(filepath.Join(t.TempDir(), "job.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	j.cmd.Stdout, j.cmd.Stderr = logFile, logFile
	j.launch()
	if !acctest.WaitFor(time.Minute, func() bool { return acctest.ReadStandIn(record).Started }) {
		t.Fatalf("%s: the stand-in terraform did not start within a minute:\n%s", c.name, mustRead(t, logFile.Name()))
	}
	o := standInStop{what: c.name}
	if !j.exited(300 * time.Millisecond) {
		c.stop(j)
	}
	o.outlived = outlivers(j.ciJob)
	<-j.done
	o.run, o.out = acctest.ReadStandIn(record), string(mustRead(t, logFile.Name()))
	return o, j.killed
}

// dockerStop stops a job started in a container of its own (containerStart) as
// `docker stop` does: SIGTERM to the container's main process, SIGKILL to it 10 s
// later; the job is over when the main process has ended.
func dockerStop(j *ciJob) {
	(&placeJob{ciJob: j}).stopAfter(dockerStopGrace)
}

// stopAfter is stopContainer(grace) with the place's own delay, unscaled.
func (j *placeJob) stopAfter(grace time.Duration) { stopContainer(grace)(j) }

// containerStart starts the step as a container's command: its first word is PID 1
// of a PID namespace with its own /proc.
func containerStart(j *ciJob, step string) *exec.Cmd {
	cmd := exec.CommandContext(context.Background(), "unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "bash", "-c", "exec "+step)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// TestAccCIRunners_containers runs the guide's container command (heading
// "Containers") with the real terraform and provider as the main process of a
// container, and stops it as `docker stop` does, early and late in an apply that
// replaces every score and at the script's own time limit, as TestAccCIRunners does
// for the runners: one interrupt, nothing lost, no credential left, the next apply
// creates only what is missing.
func TestAccCIRunners_containers(t *testing.T) {
	terraformPath := acctest.CLI(t)
	acctest.SkipWithout(t, "bash", "setsid", "unshare")
	if err := exec.CommandContext(context.Background(), "unshare", "--pid", "--fork", "--mount-proc", "true").Run(); err != nil {
		t.Skipf("no PID namespace for the container model (unshare --pid --fork needs root): %v", err)
	}
	t.Parallel()
	docker := ciRunner{name: "Containers", start: containerStart, stop: dockerStop}
	// The command's `terraform init` finds the provider through the harness's
	// development override, which init cannot install offline: init does nothing here,
	// and every other command is terraform itself (exec: the same process).
	const skipInit = "#!/bin/sh\n[ \"$1\" = init ] && exit 0\nexec \"$TERRAFORM_CLI_PATH/terraform-bin\" \"$@\"\n"
	runCIStops(t, docker, terraformPath, acctest.ProviderCLIConfig(t), ciRecipe(t), ciStepCommands(t, "Containers"), skipInit, ciRequireSafe, false)
}

// TestAccCIRunners_containerEntrypoints runs an apply of 24 scores (each publish's
// answer held 2 s) as a container's command with the real terraform and provider, and
// stops it as `docker stop` does (SIGKILL 10 s after SIGTERM) a few scores in: with
// `exec` in front of terraform, it is PID 1, takes the SIGTERM as its one interrupt
// and stops by itself with nothing lost; without, the shell is PID 1, the kernel drops
// the SIGTERM, and terraform is killed at 10 s, which is what the guide's heading
// "Containers" warns of. Each logs the seconds from the stop to the container's end,
// the interrupts, the scores lost, the credentials left and the next apply.
func TestAccCIRunners_containerEntrypoints(t *testing.T) {
	newWorkspace := acctest.Workspaces(t)
	if err := exec.CommandContext(context.Background(), "unshare", "--pid", "--fork", "--mount-proc", "true").Run(); err != nil {
		t.Skipf("no PID namespace for the container model (unshare --pid --fork needs root): %v", err)
	}
	t.Parallel()
	for _, c := range []struct {
		name, command string
		safe          bool
	}{
		{"sh -c with exec: terraform as PID 1", "sh -c 'exec terraform apply -auto-approve -input=false -no-color'", true},
		{"sh -c without exec: the shell as PID 1", "sh -c 'terraform version >/dev/null && terraform apply -auto-approve -input=false -no-color'", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			const scores = 24
			emu, proxy := acctest.StartProxied(t, emulator.Options{RenderDelay: acctest.RenderDelay})
			ctl := emu.Emulator
			w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score" "s" {
  count     = %d
  score_url = "https://cdn.example/scores/entry-${count.index}.sib"
  score_id  = "entry-${count.index}"
}
`, scores))
			proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Delay: 2 * time.Second})
			j := &ciJob{t: t, dir: w.Dir, marker: fmt.Sprintf("%d-entry-%d", os.Getpid(), time.Now().UnixNano()), done: make(chan struct{})}
			j.cmd = containerStart(j, c.command)
			j.cmd.Dir = w.Dir
			j.cmd.Env = append(w.Command("version").Env, "PATH="+filepath.Dir(w.Terraform)+string(os.PathListSeparator)+os.Getenv("PATH"),
				"TF_CLI_ARGS_apply=-parallelism=2", ciJobVar+"="+j.marker)
			var out strings.Builder
			j.cmd.Stdout, j.cmd.Stderr = &out, &out
			j.launch()
			if !acctest.WaitFor(2*time.Minute, func() bool { return ctl.Stats().Scores >= 4 }) {
				t.Fatalf("the apply made fewer than 4 scores in 2 minutes:\n%s", out.String())
			}
			stopped := time.Now()
			pj := &placeJob{ciJob: j}
			pj.stopAfter(dockerStopGrace)
			took := time.Since(stopped)
			<-j.done
			proxy.Clear()

			interrupts := strings.Count(out.String(), "Interrupt received")
			made := ctl.Stats().Scores
			lost := made - len(stateIDs(w.Dir))
			acctest.WaitFor(5*time.Second, func() bool { s := ctl.Stats(); return s.LiveTokens+s.LiveSessions == 0 })
			s := ctl.Stats()
			tokens := s.LiveTokens + s.LiveSessions
			// A credential the kill left is counted; it would expire in time.
			ctl.Expire(true, true)
			next, err := w.Command("apply", "-auto-approve").CombinedOutput()
			nextApply := "the next apply creates only what is missing"
			if err != nil {
				nextApply = fmt.Sprintf("the next apply fails %d × %q", strings.Count(string(next), "Unable to publish score"), "Unable to publish score")
			}
			t.Logf("%s: the container ended %s after docker stop (killed: %t); %d interrupts, %d of %d scores made, %d lost, %d credentials left; %s",
				c.name, took.Round(10*time.Millisecond), pj.killed, interrupts, made, scores, lost, tokens, nextApply)
			if c.safe && (pj.killed || interrupts != 1 || lost != 0 || tokens != 0 || err != nil) {
				t.Errorf("with exec, the stop was not one interrupt with nothing lost:\n%s\n--- the next apply:\n%s", out.String(), next)
			}
			if !c.safe && (!pj.killed || interrupts != 0 || lost+tokens == 0) {
				t.Errorf("without exec, the stop did no harm, which the guide says it does:\n%s", out.String())
			}
			if err == nil {
				w.Run("destroy", "-auto-approve")
			}
		})
	}
}

// stateIDs lists the ids of the resources in the workspace's state file (none when
// there is no state).
func stateIDs(dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		return nil
	}
	var st struct {
		Resources []struct {
			Instances []struct {
				Attributes struct {
					ID string `json:"id"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if json.Unmarshal(b, &st) != nil {
		return nil
	}
	var ids []string
	for _, r := range st.Resources {
		for _, in := range r.Instances {
			ids = append(ids, in.Attributes.ID)
		}
	}
	return ids
}
