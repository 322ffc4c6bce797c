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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// ciGuidePage is the guide "Running in CI" as the generated page prints it: read
// from docs/, so that what the tests run is what users copy.
func ciGuidePage(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "running-in-ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// ciGuideSection is the section "Stopping a run in CI" of the guide "Running in CI".
func ciGuideSection(t *testing.T) string {
	t.Helper()
	_, section, ok := strings.Cut(ciGuidePage(t), "\n## Stopping a run in CI\n")
	if !ok {
		t.Fatal(`the guide "Running in CI" has no section "Stopping a run in CI"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// ciRecipe is the guide's CI recipe: the script (ci-apply.sh) that the guide "Running
// in CI" prints in its section "The plain job".
func ciRecipe(t *testing.T) string {
	t.Helper()
	_, job, ok := strings.Cut(ciGuidePage(t), "\n## The plain job\n")
	if !ok {
		t.Fatal(`the guide "Running in CI" has no section "The plain job"`)
	}
	job, _, _ = strings.Cut(job, "\n## ")
	m := regexp.MustCompile("(?s)\n```shell\n(#!/usr/bin/env bash\n.*?)\n```\n").FindStringSubmatch(job)
	if m == nil || !strings.Contains(m[1], "terraform") {
		t.Fatalf("the section \"The plain job\" prints no script that runs terraform:\n%s", job)
	}
	return m[1] + "\n"
}

// TestAccCIRecipe runs the guide's CI recipe as printed and lets its own time limit
// stop it, again and again, while scores are published and render, views are created
// and the authentication settings change, each write's answer held back after the
// platform acted. After every stop the state is whole (not empty, every score and view
// the platform made in the run in it), and the next run of the recipe finishes without
// making anything twice. The limits are fractions of the latest whole run, so a slower
// machine, or one whose load changes during the test, stops the runs at the same
// points of their work.
func TestAccCIRecipe(t *testing.T) {
	terraformPath := acctest.CLI(t)
	acctest.SkipWithout(t, "bash")
	t.Parallel()
	const stops, scores, views = 20, 4, 2
	emu, proxy := acctest.StartProxied(t, emulator.Options{RenderDelay: 200 * time.Millisecond})
	ctl := emu.Emulator
	const held = 300 * time.Millisecond
	for _, f := range []faultproxy.Fault{
		{Method: http.MethodPost, Path: `/scores$`, Delay: held},
		{Method: http.MethodPost, Path: `/view$`, Delay: held},
		{Method: http.MethodPut, Path: `/externalauth$`, Delay: held},
	} {
		proxy.Add(f)
	}
	w := &acctest.Workspace{T: t, Terraform: terraformPath, Dir: t.TempDir(), CLIConfig: acctest.ProviderCLIConfig(t), Provider: emu.ProviderConfig()}
	// Every round replaces every object: the old round's are destroyed while the new
	// round's are created.
	w.Write(fmt.Sprintf(`
variable "round" {
  type = number
}
resource "mediaplatform_external_authentication" "ci" {
  domain_name = "round-${var.round}.corp.example"
  enabled     = true
}
resource "mediaplatform_score" "aliased" {
  count     = %[1]d
  score_url = "https://cdn.example/scores/r${var.round}-a${count.index}.sib"
  score_id  = "ci-r${var.round}-${count.index}"
}
resource "mediaplatform_score" "plain" {
  count     = %[1]d
  score_url = "https://cdn.example/scores/r${var.round}-p${count.index}.sib"
}
resource "mediaplatform_score_view" "v" {
  count          = %[2]d
  score          = mediaplatform_score.aliased[count.index].id
  license_string = "round ${var.round}"
}
`, scores/2, views))
	acctest.WriteFile(t, filepath.Join(w.Dir, "ci-apply.sh"), ciRecipe(t))
	w.Env = []string{"PATH=" + acctest.CLIDir(t, terraformPath) + string(os.PathListSeparator) + os.Getenv("PATH")}

	// recipe runs the recipe for round with the time limit, as a CI job does: in a
	// process group of its own.
	recipe := func(round int, limit time.Duration) (string, int, time.Duration) {
		cmd := w.Command("version") // the workspace's environment
		cmd.Path, _ = exec.LookPath("bash")
		cmd.Args = []string{"bash", "ci-apply.sh"}
		cmd.Env = append(cmd.Env, fmt.Sprintf("TF_VAR_round=%d", round),
			fmt.Sprintf("APPLY_TIME_LIMIT=%.2f", limit.Seconds()))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "Two interrupts received") {
			t.Errorf("round %d: terraform got a second signal:\n%s", round, out)
		}
		return string(out), code, took
	}
	// made counts the creates the platform received (each makes an object: nothing
	// fails them).
	made := func() (scores, views int) {
		return proxy.Count(http.MethodPost, `/scores$`), proxy.Count(http.MethodPost, `/view$`)
	}
	// state reads the state file: the ids of its scores and views.
	state := func(round int, out string) (scoreIDs, viewIDs []string) {
		b, err := os.ReadFile(filepath.Join(w.Dir, "terraform.tfstate"))
		if err != nil || len(b) == 0 {
			t.Fatalf("round %d: the state file is empty or missing (%v):\n%s", round, err, out)
		}
		var st struct {
			Resources []struct {
				Type      string `json:"type"`
				Instances []struct {
					Attributes struct {
						ID string `json:"id"`
					} `json:"attributes"`
				} `json:"instances"`
			} `json:"resources"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatalf("round %d: the state file does not read: %v\n%s", round, err, out)
		}
		for _, r := range st.Resources {
			for _, in := range r.Instances {
				switch r.Type {
				case "mediaplatform_score":
					scoreIDs = append(scoreIDs, in.Attributes.ID)
				case "mediaplatform_score_view":
					viewIDs = append(viewIDs, in.Attributes.ID)
				}
			}
		}
		return scoreIDs, viewIDs
	}

	// The first round, to its end: how long a round takes on this machine, now.
	out, code, took := recipe(0, 10*time.Minute)
	if code != 0 {
		t.Fatalf("the first run failed (exit %d):\n%s", code, out)
	}
	t.Logf("a whole round takes %s", took.Round(10*time.Millisecond))
	_, seenViews := state(0, out)
	known := map[string]bool{}
	for _, id := range seenViews {
		known[id] = true
	}

	// Stops that came while the run's writes were on their way: the state holds an
	// object made in the run, yet the run did not finish.
	stopped, midway := 0, 0
	knownScores := map[string]bool{}
	for round := 1; stopped < stops; round++ {
		if round > 2*stops {
			t.Fatalf("only %d of %d runs were stopped by their time limit in %d rounds", stopped, stops, round-1)
		}
		// Stops spread over the middle of the run, where its writes are.
		limit := time.Duration(float64(took) * (0.3 + 0.6*float64(round%10)/10))
		scoresBefore, viewsBefore := made()
		out, code, ran := recipe(round, limit)
		if code != 0 && code != 124 {
			t.Fatalf("round %d: the recipe failed (exit %d):\n%s", round, code, out)
		}
		t.Logf("round %d: limit %s, exit %d after %s", round, limit.Round(10*time.Millisecond), code, ran.Round(10*time.Millisecond))
		if code == 0 {
			// A whole round, timed now: the next limits follow the machine's load
			// as it is, not as it was when the test began.
			took = ran
		}
		scoreIDs, viewIDs := state(round, out)
		if code == 124 {
			stopped++
			if !strings.Contains(out, "stopped at its time limit") {
				t.Errorf("round %d: exit 124 without the recipe's message:\n%s", round, out)
			}
			if !strings.Contains(string(mustRead(t, filepath.Join(w.Dir, "terraform.tfstate"))), `"mediaplatform_external_authentication"`) {
				// The settings exist since the first round: a state without them is empty.
				t.Errorf("round %d: the state lost the settings after the stop:\n%s", round, out)
			}
		}
		// Every score on the platform is in the state, and every view made in this run.
		onPlatform := 0
		for _, id := range scoreIDs {
			if _, ok := ctl.Score(id); ok {
				onPlatform++
			}
		}
		if n := ctl.Stats().Scores; n != onPlatform {
			t.Errorf("round %d (limit %s, exit %d): the platform holds %d scores, %d of them in the state:\n%s",
				round, limit.Round(10*time.Millisecond), code, n, onPlatform, out)
		}
		newScores := 0
		for _, id := range scoreIDs {
			if !knownScores[id] {
				knownScores[id] = true
				newScores++
			}
		}
		if code == 124 && (newScores > 0 || len(viewIDs) > 0) && (newScores < scores || len(viewIDs) < views) {
			midway++
		}
		newViews := 0
		for _, id := range viewIDs {
			if !known[id] {
				known[id] = true
				newViews++
			}
		}
		_, viewsMade := made()
		if viewsMade-viewsBefore != newViews {
			t.Errorf("round %d (limit %s, exit %d): the platform made %d views, the state gained %d:\n%s",
				round, limit.Round(10*time.Millisecond), code, viewsMade-viewsBefore, newViews, out)
		}
		if code == 124 {
			// The next run finishes the round and makes nothing twice.
			out, code, _ = recipe(round, 10*time.Minute)
			if code != 0 {
				t.Fatalf("round %d: the run after the stop failed (exit %d):\n%s", round, code, out)
			}
			scoreIDs, viewIDs = state(round, out)
			for _, id := range viewIDs {
				known[id] = true
			}
			for _, id := range scoreIDs {
				knownScores[id] = true
			}
		}
		scoresAfter, viewsAfter := made()
		if s, v := scoresAfter-scoresBefore, viewsAfter-viewsBefore; s != scores || v != views {
			t.Errorf("round %d: %d publishes and %d view creates for %d scores and %d views:\n%s", round, s, v, scores, views, out)
		}
		if n := ctl.Stats().Scores; n != scores {
			t.Errorf("round %d: the platform holds %d scores at the end, want %d", round, n, scores)
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d runs stopped by their time limit, %d of them with objects of the run in the state and others still to make", stopped, midway)
	if midway < stops/4 {
		t.Errorf("only %d of %d stops came while the run's objects were being made: the test proves little", midway, stops)
	}
	if n := ctl.Stats().LiveTokens; n != 0 {
		t.Errorf("%d platform tokens are live at the end", n)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recipeLimit is the time limit a model with the stand-in terraform gives the recipe
// (APPLY_TIME_LIMIT, counted from the recipe's start): 2 s, or four times the measured
// time from the recipe's start to the stand-in's, when that is longer. The limit
// must come after terraform has set its signal handler (a signal before it ends the
// stand-in unrecorded), and how long the test binary takes to get there under the
// recipe (with -race, beside a loaded suite) is the machine's speed, not the model's.
func recipeLimit(t *testing.T, recipe string) time.Duration {
	t.Helper()
	dir := t.TempDir()
	acctest.WriteFile(t, filepath.Join(dir, "ci-apply.sh"), recipe)
	bin, record := acctest.StandInTerraform(t)
	cmd := exec.CommandContext(t.Context(), "bash", "ci-apply.sh")
	cmd.Dir = dir
	cmd.Env = append(acctest.CleanEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		acctest.StandInRecordVar+"="+record, acctest.StandInRunVar+"=0s")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := acctest.WaitFor(time.Minute, func() bool { return acctest.ReadStandIn(record).Started })
	took := time.Since(start)
	if err := cmd.Wait(); err != nil || !started {
		t.Fatalf("the recipe around a stand-in that ends at once (started: %t): %v\n%s", started, err, out.String())
	}
	limit := max(2*time.Second, 4*took)
	t.Logf("terraform's signal handler is set %s after the recipe's start: its time limit is %s", took.Round(time.Millisecond), limit.Round(10*time.Millisecond))
	return limit
}

// limitEnv is the environment of a model whose recipe stops at limit: the limit, and a
// stand-in whose apply lasts 20 s past it, so that the limit comes while it runs.
func limitEnv(limit time.Duration) []string {
	return []string{fmt.Sprintf("APPLY_TIME_LIMIT=%.2f", limit.Seconds()), acctest.StandInRunVar + "=" + (limit + 20*time.Second).String()}
}

// TestCIRecipe_oneSignalAtItsTimeLimit runs the guide's CI recipe as printed with the
// stand-in terraform (internal/acctest/standin.go), as a CI job does, in a process group
// of its own: a run within its time limit passes terraform its arguments and its exit
// status and sends it nothing; a run stopped by its time limit sends terraform exactly
// one SIGTERM, lets it stop by itself, says so and exits 124; a terraform that does not
// stop within APPLY_KILL_AFTER of that signal is killed. A plain unit test: no TF_ACC,
// no terraform (TestAccCIRecipe runs the real one and checks the state).
func TestCIRecipe_oneSignalAtItsTimeLimit(t *testing.T) {
	acctest.SkipWithout(t, "bash", "setsid")
	t.Parallel()
	recipe := ciRecipe(t)
	run := func(t *testing.T, env []string, args ...string) (string, int, acctest.StandInRun) {
		dir := t.TempDir()
		acctest.WriteFile(t, filepath.Join(dir, "ci-apply.sh"), recipe)
		bin, record := acctest.StandInTerraform(t)
		cmd := exec.CommandContext(t.Context(), "bash", append([]string{"ci-apply.sh"}, args...)...)
		cmd.Dir = dir
		// Tagged, so that nothing of a failed run outlives the test.
		marker := ciJobVar + "=" + fmt.Sprintf("%d-recipe-%d", os.Getpid(), time.Now().UnixNano())
		cmd.Env = append(append(acctest.CleanEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), acctest.StandInRecordVar+"="+record, marker), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		t.Cleanup(func() {
			for _, p := range tagged(marker) {
				_ = syscall.Kill(p.PID, syscall.SIGKILL)
			}
		})
		// A file, not a pipe: the detached terraform holds the script's output open.
		logFile, err := os.Create(filepath.Join(t.TempDir(), "recipe.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer logFile.Close()
		cmd.Stdout, cmd.Stderr = logFile, logFile
		err = cmd.Run()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(mustRead(t, logFile.Name())), code, acctest.ReadStandIn(record)
	}

	t.Run("within its time limit", func(t *testing.T) {
		t.Parallel()
		out, code, r := run(t, []string{acctest.StandInRunVar + "=300ms"})
		if code != 0 || !r.Started || len(r.Signals) != 0 || r.Exit != "0" || !strings.Contains(out, "Apply complete!") {
			t.Errorf("exit %d, terraform %+v, want exit 0 and a terraform that ran to its end unsignalled:\n%s", code, r, out)
		}
	})
	t.Run("the arguments", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		acctest.WriteFile(t, filepath.Join(dir, "ci-apply.sh"), recipe)
		for _, c := range []struct {
			args []string
			want string
		}{
			{nil, "start apply -auto-approve -input=false -no-color"},
			{[]string{"destroy", "-auto-approve", "-input=false"}, "start destroy -auto-approve -input=false"},
		} {
			bin, record := acctest.StandInTerraform(t)
			cmd := exec.CommandContext(t.Context(), "bash", append([]string{"ci-apply.sh"}, c.args...)...)
			cmd.Dir = dir
			cmd.Env = append(acctest.CleanEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), acctest.StandInRecordVar+"="+record, acctest.StandInRunVar+"=10ms")
			logFile, err := os.Create(filepath.Join(t.TempDir(), "recipe.log"))
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout, cmd.Stderr = logFile, logFile
			err = cmd.Run()
			_ = logFile.Close()
			if err != nil {
				t.Fatalf("%v: %v\n%s", c.args, err, mustRead(t, logFile.Name()))
			}
			if first, _, _ := strings.Cut(string(mustRead(t, record)), "\n"); first != c.want {
				t.Errorf("bash ci-apply.sh %v ran %q, want %q", c.args, first, c.want)
			}
		}
	})
	// Limits of recipeLimit: terraform has started by then (its signal handler set),
	// also on a slow machine.
	limit := recipeLimit(t, recipe)
	t.Run("stopped by its time limit", func(t *testing.T) {
		t.Parallel()
		out, code, r := run(t, limitEnv(limit))
		if code != 124 || !strings.Contains(out, "stopped at its time limit") {
			t.Errorf("exit %d, want 124 and the recipe's message:\n%s", code, out)
		}
		if len(r.Signals) != 1 || r.Exit == "" || strings.Contains(out, "Two interrupts received") {
			t.Errorf("terraform %+v, want one interrupt after which it stopped by itself:\n%s", r, out)
		}
	})
	t.Run("a terraform that does not stop is killed", func(t *testing.T) {
		t.Parallel()
		out, _, r := run(t, append(limitEnv(limit), "APPLY_KILL_AFTER=1", acctest.StandInGraceVar+"=10m"))
		if len(r.Signals) != 1 || r.Exit != "" || !strings.Contains(out, "did not stop within 1 s of its signal: killing it") {
			t.Errorf("terraform %+v, want one interrupt and then the kill:\n%s", r, out)
		}
	})
}
