//go:build linux

package cimodels

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// The CI runners as their sources stop a job (Cancel and the runner's own time limit
// take the same path in each), modelled on this machine: how the runner starts the
// step (which shell, which process group, which environment tag) and how it stops it
// (which signals, to which processes, after which delays). The delays are the
// runners' own: they do not shrink on a faster machine, nor grow on a slower one. The
// runner's stops come at events of the apply (the round's n-th publish or deletion
// reaching the platform), which a slower machine does not move; the recipe's own time
// limit, a clock in the recipe, at fractions of a measured run.
type ciRunner struct {
	name string // the heading of the runner in the guide's "Stopping a run in CI"
	// start returns the step's process, not yet started, for the step's commands.
	start func(j *ciJob, step string) *exec.Cmd
	// stop stops the running step as the runner does and returns when the runner counts
	// the job as over.
	stop func(j *ciJob)
	// slow: the runner reaches terraform only seconds after the stop (the docker
	// executor signals the provider first and waits 6 s for it), so the run is longer.
	slow bool
}

// ciJob is one run of a step under a runner model.
type ciJob struct {
	t      *testing.T
	dir    string
	marker string // CI_MODEL_JOB: every process of the job, detached ones too ("the container")
	cmd    *exec.Cmd
	done   chan struct{} // closed when the step's process has exited
}

// ciJobVar is the harness's own tag on every process of a job. No runner uses it, and
// the recipe leaves it in place: it finds a job's processes after the job is over.
const ciJobVar = "CI_MODEL_JOB"

// until reports whether cond held before the step's process exited (within five
// minutes at most).
func (j *ciJob) until(cond func() bool) bool {
	held := false
	acctest.WaitFor(5*time.Minute, func() bool {
		if held = cond(); held {
			return true
		}
		select {
		case <-j.done:
			return true
		default:
			return false
		}
	})
	return held
}

// exited reports whether the step's process has exited within d.
func (j *ciJob) exited(d time.Duration) bool {
	select {
	case <-j.done:
		return true
	case <-time.After(d):
		return false
	}
}

// launch starts the step's process, closes done when it exits, and at the test's end
// kills every process of the job still running (the container going away).
func (j *ciJob) launch() {
	j.t.Helper()
	cmd, err := acctest.StartNotBusy(j.cmd)
	if err != nil {
		j.t.Fatal(err)
	}
	j.cmd = cmd
	go func() { _ = j.cmd.Wait(); close(j.done) }()
	j.t.Cleanup(func() {
		for _, p := range tagged(ciJobVar + "=" + j.marker) {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	})
}

// signalStep signals the step's process, or its process group with group.
func (j *ciJob) signalStep(sig syscall.Signal, group bool) {
	pid := j.cmd.Process.Pid
	if group {
		pid = -pid
	}
	_ = syscall.Kill(pid, sig)
}

// tagged lists the live processes whose environment holds kv, as runners find them.
func tagged(kv string) []acctest.Process {
	var ps []acctest.Process
	for _, p := range acctest.Processes() {
		if slices.Contains(p.Env, kv) {
			ps = append(ps, p)
		}
	}
	return ps
}

// outlivers returns the names of the job's processes still running 3 s after the
// runner or the place counted it as over, which outlived it (as in runCIStops), and
// kills them.
func outlivers(j *ciJob) []string {
	var names []string
	if !acctest.WaitFor(3*time.Second, func() bool { return len(tagged(ciJobVar+"="+j.marker)) == 0 }) {
		for _, p := range tagged(ciJobVar + "=" + j.marker) {
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p.PID))
			names = append(names, strings.TrimSpace(string(comm)))
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
	return names
}

// processGone reports whether pid has no /proc entry left (a zombie still has one).
func processGone(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return errors.Is(err, os.ErrNotExist)
}

// gitlabJobScript is the script GitLab Runner's bash shell writes for a job
// (shells/bash.go, BashWriter.Finish): a TERM trap, errexit, and the step's commands
// evaluated in the stage's pipeline.
func gitlabJobScript(step string) string {
	return "trap exit 1 TERM\n\n" +
		"if set -o | grep pipefail > /dev/null; then set -o pipefail; fi; set -o errexit\n" +
		"set +o noclobber\n" +
		": | eval '" + strings.ReplaceAll(step, "'", `'\''`) + "'\n" +
		"exit 0\n"
}

var ciRunners = []ciRunner{
	{
		// actions/runner: the step runs as `bash --noprofile --norc -eo pipefail
		// {0}` in the runner's own process group, with the job's RUNNER_TRACKING_ID in
		// its environment (ProcessInvoker.cs). A cancel sends SIGINT to the step's
		// process, SIGTERM 7.5 s later, SIGKILL 2.5 s after that; at the job's end every
		// process whose environment holds the job's RUNNER_TRACKING_ID is killed
		// (JobExtension.cs).
		name: "GitHub Actions",
		start: func(j *ciJob, step string) *exec.Cmd {
			acctest.WriteFile(j.t, filepath.Join(j.dir, "step.sh"), step+"\n")
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "step.sh")
			cmd.Env = append(cmd.Env, "RUNNER_TRACKING_ID=github_"+j.marker)
			return cmd
		},
		stop: func(j *ciJob) {
			for _, s := range []struct {
				sig   syscall.Signal
				grace time.Duration
			}{{syscall.SIGINT, 7500 * time.Millisecond}, {syscall.SIGTERM, 2500 * time.Millisecond}, {syscall.SIGKILL, 0}} {
				j.signalStep(s.sig, false)
				if j.exited(s.grace) {
					break
				}
			}
			j.exited(time.Minute)
			for _, p := range tagged("RUNNER_TRACKING_ID=github_" + j.marker) {
				_ = syscall.Kill(p.PID, syscall.SIGKILL)
			}
		},
	},
	{
		// GitLab Runner's shell executor: the job's script runs in bash in a process
		// group of its own; a cancel or the job's timeout sends SIGTERM to the group and
		// SIGKILL 10 minutes later (helpers/process/killer_unix.go). The job is over when
		// the shell exits.
		name: "GitLab Runner, shell executor",
		start: func(j *ciJob, step string) *exec.Cmd {
			acctest.WriteFile(j.t, filepath.Join(j.dir, "job.sh"), gitlabJobScript(step))
			cmd := exec.Command("bash", "job.sh")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			return cmd
		},
		stop: func(j *ciJob) {
			j.signalStep(syscall.SIGTERM, true)
			// Ten minutes in the runner; a minute here, far beyond any graceful stop.
			if !j.exited(time.Minute) {
				j.signalStep(syscall.SIGKILL, true)
				j.exited(time.Minute)
			}
		},
	},
	{
		// GitLab Runner's docker executor: the job's script runs in the container's
		// first process; a cancel runs ContainerSigTermScriptForLinux in the container
		// (shells/bash.go): SIGTERM to every process but PID 1 and itself, highest PID
		// first, waiting up to 6 s for each to be gone; then the container is stopped.
		// The container here is the processes that hold the job's tag; the step's shell
		// stands for PID 1.
		name: "GitLab Runner, docker executor",
		slow: true,
		start: func(j *ciJob, step string) *exec.Cmd {
			acctest.WriteFile(j.t, filepath.Join(j.dir, "job.sh"), gitlabJobScript(step))
			cmd := exec.Command("bash", "job.sh")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			return cmd
		},
		stop: func(j *ciJob) {
			var pids []int
			for _, p := range tagged(ciJobVar + "=" + j.marker) {
				if p.PID != j.cmd.Process.Pid {
					pids = append(pids, p.PID)
				}
			}
			slices.Sort(pids)
			slices.Reverse(pids)

			for _, pid := range pids {
				if syscall.Kill(pid, syscall.SIGTERM) != nil {
					continue
				}
				for range 6 {
					if processGone(pid) {
						break
					}
					time.Sleep(time.Second)
				}
			}
			// The container stops: everything in it is killed.
			for _, p := range tagged(ciJobVar + "=" + j.marker) {
				_ = syscall.Kill(p.PID, syscall.SIGKILL)
			}
			j.exited(time.Minute)
		},
	},
	{
		// Jenkins' sh step (durable-task): a wrapper shell runs `sh -xe script.sh` and
		// writes its status, every process with the step's JENKINS_SERVER_COOKIE (and the
		// build's JENKINS_NODE_COOKIE, BUILD_ID). Stopping the step
		// (FileMonitoringTask.stop → ProcessTree.killAll) walks the processes that hold
		// the cookie and kills each one's tree, children first: SIGTERM, then a wait of
		// up to SoftKillWaitSeconds (5 s) for it to be gone; no SIGKILL by default.
		name: "Jenkins",
		start: func(j *ciJob, step string) *exec.Cmd {
			acctest.WriteFile(j.t, filepath.Join(j.dir, "script.sh"), step+"\n")
			cmd := exec.Command("sh", "-c", `sh -xe script.sh; echo $? > jenkins-result.txt`)
			cmd.Env = append(cmd.Env, "JENKINS_SERVER_COOKIE=durable-"+j.marker,
				"JENKINS_NODE_COOKIE="+j.marker, "BUILD_ID=42")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			return cmd
		},
		stop: func(j *ciJob) {
			tree := acctest.Processes()
			cookie := "JENKINS_SERVER_COOKIE=durable-" + j.marker
			var kill func(p acctest.Process, deadline time.Time)
			kill = func(p acctest.Process, deadline time.Time) {
				for _, c := range tree {
					if c.PPID == p.PID {
						kill(c, deadline)
					}
				}
				if syscall.Kill(p.PID, syscall.SIGTERM) != nil {
					return
				}
				for sleep := 10 * time.Millisecond; !processGone(p.PID) && time.Now().Before(deadline); sleep = min(2*sleep, time.Second) {
					time.Sleep(sleep)
				}
			}
			for _, p := range tree {
				if slices.Contains(p.Env, cookie) {
					kill(p, time.Now().Add(5*time.Second))
				}
			}
			j.exited(time.Minute)
		},
	},
	{
		// Buildkite agent: the job's command runs in bash in a process group of its own;
		// a cancel or the job's timeout sends SIGTERM to the group and SIGKILL 10 s later
		// (cancel-grace-period; internal/process/signal_notwindows.go).
		name: "Buildkite",
		start: func(j *ciJob, step string) *exec.Cmd {
			cmd := exec.Command("bash", "-e", "-c", step)
			cmd.Env = append(cmd.Env, "BUILDKITE=true")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			return cmd
		},
		stop: func(j *ciJob) {
			j.signalStep(syscall.SIGTERM, true)
			if !j.exited(10 * time.Second) {
				j.signalStep(syscall.SIGKILL, true)
				j.exited(time.Minute)
			}
		},
	},
}

// ciStepCommands returns the shell block of the runner's heading in the guide's
// section "Stopping a run in CI": the commands of the step as the guide prints them.
func ciStepCommands(t *testing.T, runner string) string {
	t.Helper()
	section := ciGuideSection(t)
	_, sub, ok := strings.Cut(section, "\n### "+runner+"\n")
	if !ok {
		t.Fatalf("the section \"Stopping a run in CI\" has no heading %q", runner)
	}
	sub, _, _ = strings.Cut(sub, "\n### ")
	m := regexp.MustCompile("(?s)\n```shell\n(.*?)\n```\n").FindStringSubmatch(sub)
	if m == nil {
		t.Fatalf("the guide prints no shell block for %s", runner)
	}
	return m[1]
}

// setupTerraformWrapper models hashicorp/setup-terraform's wrapper (wrapper/terraform.js,
// terraform_wrapper: true): installed as terraform, it runs terraform-bin through
// @actions/exec (child_process.spawn, output piped through the wrapper) and handles no
// signal, so a SIGINT or SIGTERM ends the wrapper and not terraform.
const setupTerraformWrapper = `#!/usr/bin/env node
const { spawn } = require('child_process');
const path = require('path');
const cli = [process.env.TERRAFORM_CLI_PATH, 'terraform-bin'].join(path.sep);
const child = spawn(cli, process.argv.slice(2), {});
child.stdout.on('data', (d) => process.stdout.write(d));
child.stderr.on('data', (d) => process.stderr.write(d));
child.on('close', (code) => { process.exitCode = code; });
`

// ciStopOutcome is what one stop left behind.
type ciStopOutcome struct {
	interrupts int  // interrupts terraform reported receiving
	made       int  // the round's scores on the platform and in the state
	stopped    bool // the stop came while the step ran
	finished   bool // the apply ran to its end
	lost       int  // scores on the platform and not in the state
	tokens     int  // platform tokens and administrator sessions left live
	outlived   bool // a process of the job ran on after the runner counted the job over
	survivors  []string
	nextApply  string // "" when the next apply created only what was missing, else what it did
}

func (o ciStopOutcome) safe() bool {
	return o.interrupts == 1 && o.lost == 0 && o.tokens == 0 && !o.outlived && o.nextApply == ""
}

func (o ciStopOutcome) String() string {
	next := "next apply creates only what is missing"
	if o.nextApply != "" {
		next = o.nextApply
	}
	outlived := "nothing outlived the job"
	if o.outlived {
		outlived = "outlived the job: " + strings.Join(o.survivors, ", ")
	}
	return fmt.Sprintf("%d interrupts, %d of the round's scores made, %d scores lost, %d credentials left, %s; %s",
		o.interrupts, o.made, o.lost, o.tokens, outlived, next)
}

// ciStopAt is where in an apply a stop comes: when the round's n-th request of a kind
// has reached the platform (n > 0), or after a share of the latest whole run (the
// recipe's own limit).
type ciStopAt struct {
	what         string
	method, path string
	n            int
	share        float64
}

// limit is the recipe's time limit for a stop at a share of a whole run that took took.
func (a ciStopAt) limit(took time.Duration) time.Duration {
	return time.Duration(a.share * float64(took))
}

func ciPublish(n int) ciStopAt {
	return ciStopAt{what: fmt.Sprintf("publish %d of the round", n), method: http.MethodPost, path: `/scores$`, n: n}
}

func ciDeletion(n int) ciStopAt {
	return ciStopAt{what: fmt.Sprintf("deletion %d of the round", n), method: http.MethodDelete, path: `/scores/[^/]+$`, n: n}
}

// describe names the stop's point for the log; took is the measured run.
func (a ciStopAt) describe(took time.Duration) string {
	if a.n > 0 {
		return a.what
	}
	return fmt.Sprintf("%s of %s", a.limit(took).Round(10*time.Millisecond), took.Round(10*time.Millisecond))
}

// TestAccCIRunners runs the guide's step for each runner as that runner runs a step,
// stops it as that runner stops a job (Cancel, or the runner's own time limit) at
// points early and late in an apply that replaces every score, and checks what the
// stop left: terraform received exactly one interrupt, every score on the platform is
// in the state, no credential is left live, no process of the job outlived it, and
// the next apply creates only what is missing. With CI_RUNNERS_RECIPE=<file>, each
// runner's step is `bash ci-apply.sh` with that file instead (an older recipe), in
// runs long enough for the runners' final kills to land in them.
func TestAccCIRunners(t *testing.T) {
	terraformPath := acctest.CLI(t)
	for _, name := range []string{"bash", "setsid"} {
		if _, err := exec.LookPath(name); err != nil {
			t.Skipf("%s is not on PATH", name)
		}
	}
	cliConfig := acctest.ProviderCLIConfig(t)
	recipe := ciRecipe(t)
	before := os.Getenv("CI_RUNNERS_RECIPE")
	if before != "" {
		recipe = string(mustRead(t, before))
	}
	// The models mostly wait (on the runners' delays, on the held answers): they run
	// side by side, as subtests that are not parallel ones, so that they take one of
	// go test's parallel slots and not six.
	t.Parallel()
	var wg sync.WaitGroup
	run := func(name string, body func(t *testing.T)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(name, body)
		}()
	}
	long := before != ""
	for _, r := range ciRunners {
		step := "bash ci-apply.sh"
		if before == "" {
			step = ciStepCommands(t, r.name)
		}
		run(r.name, func(t *testing.T) {
			runCIStops(t, r, terraformPath, cliConfig, recipe, step, "", ciRequireSafe, long)
		})
	}
	// setup-terraform's wrapper between the step and terraform: the guide turns it off.
	if _, err := exec.LookPath("node"); err == nil {
		step := "bash ci-apply.sh"
		wrapperJudge := ciRequireSafe
		if before == "" {
			step, wrapperJudge = ciStepCommands(t, ciRunners[0].name), ciRequireUnsafe
		}
		run("GitHub Actions with setup-terraform's wrapper", func(t *testing.T) {
			runCIStops(t, ciRunners[0], terraformPath, cliConfig, recipe, step, setupTerraformWrapper, wrapperJudge, long)
		})
	} else {
		t.Log("node is not on PATH: setup-terraform's wrapper is left out")
	}
	wg.Wait()
}

// ciJudge is what runCIStops requires of every stop.
type ciJudge int

const (
	ciRequireSafe   ciJudge = iota
	ciRequireUnsafe         // what the guide warns against: some stop must do harm
)

// runCIStops runs the stops of one runner model. wrapper, when set, is installed as
// terraform in front of the real one. long: runs that outlast the runners' 10 s of
// grace, to show what their final kills do to an older recipe.
func runCIStops(t *testing.T, r ciRunner, terraformPath, cliConfig, recipe, step, wrapper string, judge ciJudge, long bool) {
	const scores, cancels, limits = 8, 5, 1
	// The publishes' answers are held back in the runs under the runner, so that an
	// apply takes a while; the next apply, which only checks, goes at full speed.
	slow := r.slow || long
	held := 400 * time.Millisecond
	switch {
	case long:
		held = 4 * time.Second
	case r.slow:
		held = 1200 * time.Millisecond
	}
	emu, proxy := acctest.StartProxied(t, emulator.Options{RenderDelay: 200 * time.Millisecond})
	ctl := emu.Emulator
	w := &acctest.Workspace{T: t, Terraform: terraformPath, Dir: t.TempDir(), CLIConfig: cliConfig, Provider: emu.ProviderConfig()}
	w.Write(fmt.Sprintf(`
variable "round" {
  type = number
}
resource "mediaplatform_score" "s" {
  count     = %d
  score_url = "https://cdn.example/scores/r${var.round}-${count.index}.sib"
  score_id  = "ci-r${var.round}-${count.index}"
}
`, scores))
	acctest.WriteFile(t, filepath.Join(w.Dir, "ci-apply.sh"), recipe)
	if err := os.Chmod(filepath.Join(w.Dir, "ci-apply.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := acctest.CLIDir(t, terraformPath)
	var wrapperEnv []string
	if wrapper != "" {
		bin = t.TempDir()
		if err := os.Symlink(terraformPath, filepath.Join(bin, "terraform-bin")); err != nil {
			t.Fatal(err)
		}
		acctest.WriteFile(t, filepath.Join(bin, "terraform"), wrapper)
		if err := os.Chmod(filepath.Join(bin, "terraform"), 0o755); err != nil {
			t.Fatal(err)
		}
		wrapperEnv = []string{"TERRAFORM_CLI_PATH=" + bin}
	}
	// Two scores at a time, so that the replacement of every score takes a while; one at
	// a time for the slow runner, whose signal reaches terraform 6 s or more after the
	// stop and must still find scores to make.
	parallelism := 2
	if r.slow && !long {
		parallelism = 1
	}
	w.Env = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), fmt.Sprintf("TF_CLI_ARGS_apply=-parallelism=%d", parallelism)}

	// took is the latest whole run of a round that replaces every score: the measure of
	// the recipe's time limits.
	var took time.Duration
	// job runs the step for round under the runner, stopped at stop: by the runner when
	// the round's n-th request of that kind reaches the platform (n > 0), by the recipe's
	// own time limit at a share of took (share > 0); the zero ciStopAt runs it to its end.
	job := func(round int, stop ciStopAt) (out string, o ciStopOutcome) {
		proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Delay: held})
		defer proxy.Clear()
		j := &ciJob{t: t, dir: w.Dir, marker: fmt.Sprintf("%d-%d-%d", os.Getpid(), round, time.Now().UnixNano()), done: make(chan struct{})}
		j.cmd = r.start(j, step)
		j.cmd.Dir = w.Dir
		j.cmd.Env = append(append(append(w.Command("version").Env, j.cmd.Env...), wrapperEnv...),
			fmt.Sprintf("TF_VAR_round=%d", round), ciJobVar+"="+j.marker)
		if stop.share > 0 {
			j.cmd.Env = append(j.cmd.Env, fmt.Sprintf("APPLY_TIME_LIMIT=%.2f", stop.limit(took).Seconds()))
		}
		logFile, err := os.Create(filepath.Join(t.TempDir(), "job.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer logFile.Close()
		j.cmd.Stdout, j.cmd.Stderr = logFile, logFile
		seen := proxy.Count(stop.method, stop.path)
		j.launch()
		if stop.n > 0 && j.until(func() bool { return proxy.Count(stop.method, stop.path) >= seen+stop.n }) {
			o.stopped = true
			r.stop(j)
		} else {
			j.exited(5 * time.Minute)
		}
		// What is still running 3 s after the runner counted the job as over outlived
		// it; it is waited for before the checks. The 3 s are the time for a process
		// killed then to be gone on a loaded machine (a second was not always enough
		// for the script's sentinel beside a full race-enabled suite and a busy loop);
		// what this check is for, a terraform that runs on, lasts far longer.
		over := time.Now()
		for len(tagged(ciJobVar+"="+j.marker)) > 0 && time.Since(over) < 3*time.Second {
			time.Sleep(50 * time.Millisecond)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for left := tagged(ciJobVar + "=" + j.marker); len(left) > 0; left = tagged(ciJobVar + "=" + j.marker) {
			if !o.outlived {
				o.outlived = true
				for _, p := range left {
					comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p.PID))
					o.survivors = append(o.survivors, strings.TrimSpace(string(comm)))
				}
			}
			if time.Now().After(deadline) {
				for _, p := range tagged(ciJobVar + "=" + j.marker) {
					_ = syscall.Kill(p.PID, syscall.SIGKILL)
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		out = string(mustRead(t, logFile.Name()))
		o.interrupts = strings.Count(out, "Interrupt received") + strings.Count(out, "Two interrupts received")
		o.finished = strings.Contains(out, "Apply complete!")
		if stop.share > 0 {
			o.stopped = strings.Contains(out, "stopped at its time limit")
		}
		return out, o
	}
	// inState maps the ids of the scores in the state to their aliases.
	inState := func() map[string]string {
		ids := map[string]string{}
		b, err := os.ReadFile(filepath.Join(w.Dir, "terraform.tfstate"))
		if err != nil || len(bytes.TrimSpace(b)) == 0 {
			return ids
		}
		var st struct {
			Resources []struct {
				Instances []struct {
					Attributes struct {
						ID    string `json:"id"`
						Alias string `json:"score_id"`
					} `json:"attributes"`
				} `json:"instances"`
			} `json:"resources"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			return ids
		}
		for _, r := range st.Resources {
			for _, in := range r.Instances {
				ids[in.Attributes.ID] = in.Attributes.Alias
			}
		}
		return ids
	}

	// The first run creates the scores; the second replaces them all, as every stopped
	// round does, and is the measure of the recipe's time limits.
	if out, o := job(0, ciStopAt{}); !o.finished {
		t.Fatalf("the first run did not finish:\n%s", out)
	}
	start := time.Now()
	if out, o := job(1, ciStopAt{}); !o.finished {
		t.Fatalf("the second run did not finish:\n%s", out)
	}
	took = time.Since(start)
	t.Logf("replacing %d scores takes %s", scores, took.Round(10*time.Millisecond))

	lostBefore := 0 // scores a stop lost for good: they stay on the platform
	// The runner's stops (Cancel, and its time limit, which takes the same path) at the
	// round's deletions and publishes, early and late; the slow runner's early enough
	// that its 6 s on the provider leave work to stop. Then the recipe's own limit, at
	// fractions of the latest whole run.
	type ciStop struct {
		kind string
		at   []ciStopAt
		want int
	}
	cancelAt := []ciStopAt{ciPublish(1), ciDeletion(3), ciPublish(4), ciPublish(2), ciDeletion(6), ciPublish(5), ciPublish(3), ciDeletion(1)}
	if slow {
		// Its signal reaches terraform some 7 s after the stop, when five or six more
		// scores are made at 1.2 s each: a stop at the second publish found the apply
		// over. The deletions all come before the first publish.
		cancelAt = []ciStopAt{ciDeletion(1), ciPublish(1), ciDeletion(4), ciDeletion(2), ciPublish(1), ciDeletion(6), ciDeletion(1), ciPublish(1)}
	}
	var limitAt []ciStopAt
	for _, f := range []float64{0.5, 0.35, 0.6} {
		limitAt = append(limitAt, ciStopAt{share: f})
	}
	plan := []ciStop{{"Cancel", cancelAt, cancels}, {"the recipe's limit", limitAt, limits}}
	round, harmful := 1, 0
	for _, stop := range plan {
		landed, midway := 0, 0
		for _, at := range stop.at {
			if landed == stop.want {
				break
			}
			round++
			// Credentials an older recipe's stop left live stay so: count this stop's.
			live := ctl.Stats().LiveTokens + ctl.Stats().LiveSessions
			start := time.Now()
			out, o := job(round, at)
			// A stop after terraform's end, which terraform did not see and which
			// left nothing running, stopped nothing.
			if !o.stopped || o.finished && o.interrupts == 0 && !o.outlived {
				t.Logf("round %d: %s at %s came after the apply's end", round, stop.kind, at.describe(took))
				// A whole run, timed now: the next limits follow the machine's load as
				// it is, not as it was when the test began.
				took = time.Since(start)
				continue
			}
			landed++
			what := fmt.Sprintf("round %d, %s at %s", round, stop.kind, at.describe(took))
			ids := inState()
			onPlatform := 0
			for id := range ids {
				if _, ok := ctl.Score(id); ok {
					onPlatform++
				}
			}
			o.lost = ctl.Stats().Scores - onPlatform - lostBefore
			deadline := time.Now().Add(5 * time.Second)
			for s := ctl.Stats(); s.LiveTokens+s.LiveSessions > live && time.Now().Before(deadline); s = ctl.Stats() {
				time.Sleep(50 * time.Millisecond)
			}
			s := ctl.Stats()
			o.tokens = s.LiveTokens + s.LiveSessions - live
			// The next apply, as a later job runs it: it creates the round's missing scores.
			missing := scores
			for id, alias := range ids {
				if _, ok := ctl.Score(id); ok && strings.HasPrefix(alias, fmt.Sprintf("ci-r%d-", round)) {
					missing--
				}
			}
			o.made = scores - missing
			if missing > 0 && missing < scores {
				midway++
			}
			publishes := proxy.Count(http.MethodPost, `/scores$`)
			cmd := w.Command("apply", "-auto-approve")
			cmd.Env = append(cmd.Env, fmt.Sprintf("TF_VAR_round=%d", round))
			next, err := cmd.CombinedOutput()
			made := proxy.Count(http.MethodPost, `/scores$`) - publishes
			switch {
			case err != nil:
				o.nextApply = fmt.Sprintf("next apply fails: %d × %q", strings.Count(string(next), "Unable to publish score"), "Unable to publish score")
			case made != missing:
				o.nextApply = fmt.Sprintf("next apply published %d scores for %d missing", made, missing)
			}
			if err != nil {
				// The lost scores stay on the platform: the round's config goes on without
				// them (a report of the older recipe only).
				lostBefore = ctl.Stats().Scores - len(inState())
			}
			t.Logf("%s: %s", what, o)
			if judge == ciRequireSafe && !o.safe() {
				t.Errorf("%s: %s\n--- the job:\n%s\n--- the next apply:\n%s", what, o, out, next)
			}
			if o.lost > 0 || o.tokens > 0 || o.outlived || o.nextApply != "" {
				harmful++
			}
		}
		if landed < stop.want {
			t.Errorf("only %d of %d stops (%s) came while the apply was running", landed, stop.want, stop.kind)
		}
		// Stops that left the round half done: some of its scores made, others not.
		if judge == ciRequireSafe && stop.want > 1 && midway < 2 {
			t.Errorf("only %d of %d stops (%s) came while the round's scores were being made: the test proves little", midway, landed, stop.kind)
		}
	}
	if judge == ciRequireUnsafe && harmful == 0 {
		t.Errorf("no stop lost a score, left a credential or a process, or broke the next apply, which the guide says the setup does")
	}
}

// TestCIRunners_oneInterruptReachesTerraform runs the guide's step for each runner
// model with the stand-in terraform (internal/acctest/standin.go) in place of the real one,
// and stops it as that runner stops a job: Cancel early and late in the apply, and
// the recipe's own time limit. Exactly one interrupt reaches terraform each time,
// after which it stops by itself, and no process of the job outlives it. A plain unit
// test: no TF_ACC, no terraform, no provider (TestAccCIRunners runs the real ones and
// checks the state and the platform). setup-terraform's wrapper, which the guide turns
// off, must fail it.
func TestCIRunners_oneInterruptReachesTerraform(t *testing.T) {
	for _, name := range []string{"bash", "setsid"} {
		if _, err := exec.LookPath(name); err != nil {
			t.Skipf("%s is not on PATH", name)
		}
	}
	t.Parallel()
	recipe := ciRecipe(t)
	for _, r := range ciRunners {
		step := ciStepCommands(t, r.name)
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			for _, o := range standInStops(t, r, recipe, step, "") {
				t.Logf("%s", o)
				if !o.safe() {
					t.Errorf("%s\n--- the job:\n%s", o, o.out)
				}
			}
		})
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Log("node is not on PATH: setup-terraform's wrapper is left out")
		return
	}
	t.Run("GitHub Actions with setup-terraform's wrapper", func(t *testing.T) {
		t.Parallel()
		harmful := 0
		for _, o := range standInStops(t, ciRunners[0], recipe, ciStepCommands(t, ciRunners[0].name), setupTerraformWrapper) {
			t.Logf("%s", o)
			if !o.safe() {
				harmful++
			}
		}
		if harmful == 0 {
			t.Errorf("every stop reached terraform once through setup-terraform's wrapper, which the guide says it does not")
		}
	})
}

// standInStop is what one stop of a job running the stand-in terraform left.
type standInStop struct {
	what     string
	run      acctest.StandInRun
	outlived []string // the processes of the job that ran on after the runner counted it over
	out      string   // the job's output
}

func (o standInStop) safe() bool {
	return o.run.Started && len(o.run.Signals) == 1 && o.run.Exit != "" && len(o.outlived) == 0
}

func (o standInStop) String() string {
	ended := "terraform stopped by itself (exit " + o.run.Exit + ")"
	if o.run.Exit == "" {
		ended = "terraform was killed or runs on"
	}
	outlived := "nothing outlived the job"
	if len(o.outlived) > 0 {
		outlived = "outlived the job: " + strings.Join(o.outlived, ", ")
	}
	return fmt.Sprintf("%s: terraform received %d interrupts %v, %s, %s", o.what, len(o.run.Signals), o.run.Signals, ended, outlived)
}

// standInStops runs the step under runner r with the stand-in as terraform (behind the
// wrapper when set) three times, and stops the job as the runner does 200 ms after the
// stand-in started (early) and 2 s after (late), then lets the recipe's own time limit
// (recipeLimit: 2 s, or longer on a slow machine) stop it. The stand-in's apply would
// take 20 s (20 s past the limit): every stop comes while it runs.
func standInStops(t *testing.T, r ciRunner, recipe, step, wrapper string) []standInStop {
	t.Helper()
	var stops []standInStop
	for _, s := range []struct {
		what       string
		afterStart time.Duration // the runner's stop, after the stand-in started
		limit      time.Duration // the recipe's own limit
	}{
		{"Cancel early", 200 * time.Millisecond, 0},
		{"Cancel late", 2 * time.Second, 0},
		{"the recipe's limit", 0, recipeLimit(t, recipe)},
	} {
		dir := t.TempDir()
		acctest.WriteFile(t, filepath.Join(dir, "ci-apply.sh"), recipe)
		if err := os.Chmod(filepath.Join(dir, "ci-apply.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		bin, record := acctest.StandInTerraform(t)
		var env []string
		if wrapper != "" {
			// The wrapper runs $TERRAFORM_CLI_PATH/terraform-bin: the stand-in.
			if err := os.Rename(filepath.Join(bin, "terraform"), filepath.Join(bin, "terraform-bin")); err != nil {
				t.Fatal(err)
			}
			acctest.WriteFile(t, filepath.Join(bin, "terraform"), wrapper)
			if err := os.Chmod(filepath.Join(bin, "terraform"), 0o755); err != nil {
				t.Fatal(err)
			}
			env = append(env, "TERRAFORM_CLI_PATH="+bin)
		}
		j := &ciJob{t: t, dir: dir, marker: fmt.Sprintf("%d-standin-%d", os.Getpid(), time.Now().UnixNano()), done: make(chan struct{})}
		j.cmd = r.start(j, step)
		j.cmd.Dir = dir
		j.cmd.Env = append(append(append(acctest.CleanEnv(), j.cmd.Env...), env...),
			"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			acctest.StandInRecordVar+"="+record, ciJobVar+"="+j.marker)
		if s.limit > 0 {
			j.cmd.Env = append(j.cmd.Env, limitEnv(s.limit)...)
		}
		// A file, not a pipe: the detached terraform holds the job's output open.
		logFile, err := os.Create(filepath.Join(t.TempDir(), "job.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer logFile.Close()
		j.cmd.Stdout, j.cmd.Stderr = logFile, logFile
		j.launch()
		if !acctest.WaitFor(time.Minute, func() bool { return acctest.ReadStandIn(record).Started }) {
			t.Fatalf("%s: the stand-in terraform did not start within a minute:\n%s", s.what, mustRead(t, logFile.Name()))
		}
		if s.limit > 0 {
			j.exited(time.Minute)
		} else if !j.exited(s.afterStart) {
			r.stop(j)
		}
		o := standInStop{what: s.what}
		o.outlived = outlivers(j)
		<-j.done
		o.run, o.out = acctest.ReadStandIn(record), string(mustRead(t, logFile.Name()))
		if s.limit > 0 && !strings.Contains(o.out, "stopped at its time limit") {
			t.Errorf("%s: the recipe does not say it stopped at its time limit:\n%s", s.what, o.out)
		}
		stops = append(stops, o)
	}
	return stops
}
