//go:build unix

// Command bench measures what the provider costs a user, against two floors:
//
//   - terraform plan of N mediaplatform_score resources (refreshing each), beside the
//     same plan with -refresh=false (the provider without the platform) and a plan of
//     N terraform_data resources (Terraform's own cost), for N = 10, 100 and 1000 at
//     Terraform's default parallelism of 10, several runs each, medians reported;
//   - the same full plan with the emulator answering every request after 20 ms,
//     against the ideal N × 20 ms / 10 + the -refresh=false plan;
//   - requests per refreshed score, logins per provider process, live sessions and
//     tokens after every command, the provider's peak RSS;
//   - the mediaplatform_scores data source over 5,000 and 20,000 scores: requests, time
//     and the provider's peak RSS;
//   - the growth series (growth.go): an apply and a destroy of N new scores, with the
//     CPU of terraform, the provider and the emulator apart and the rendering wait's
//     reads per score, against the provider of another tree (-provider-src).
//
// It builds the provider and the emulator itself, starts the emulator on a loopback
// port, and runs the real Terraform CLI with a dev_overrides CLI configuration in a
// temporary directory (removed at the end unless -keep). Run it from the repository
// root with `make bench` or `go run ./bench`; `go run ./bench -h` lists the flags.
//
// The peak RSS comes from a wrapper: the same program, copied into a second plugin
// directory under the provider's name, runs the real provider as its child and
// records the child's maximum resident set size (getrusage) when it ends.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// Environment variables of the wrapper mode.
const (
	envWrapTarget = "MEDIAPLATFORM_BENCH_WRAP_TARGET" // the real provider binary
	envWrapRecord = "MEDIAPLATFORM_BENCH_WRAP_RECORD" // file that gets one line per process
)

const modulePath = "github.com/mediaplatform/terraform-provider-mediaplatform"

func main() {
	if target := os.Getenv(envWrapTarget); target != "" {
		os.Exit(wrap(target, os.Getenv(envWrapRecord)))
	}
	var o options
	flag.StringVar(&o.sizes, "sizes", "10,100,1000", "comma-separated numbers of resources")
	flag.IntVar(&o.runs, "runs", 5, "timed runs of each plan per size (the median is reported)")
	flag.IntVar(&o.latencyMs, "latency-ms", 20, "emulator latency for the second series of full plans; 0 skips it")
	flag.StringVar(&o.dataSourceScores, "datasource-scores", "5000,20000", "comma-separated numbers of scores read by the mediaplatform_scores data source (time, requests, the provider's peak RSS); empty skips it")
	flag.StringVar(&o.out, "out", "", "also write the results as JSON to this file")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (binaries, workspaces, logs)")
	flag.BoolVar(&o.verbose, "v", false, "print every terraform command and its duration")
	flag.BoolVar(&o.refresh, "refresh-series", true, "run the refresh series (refresh_strategy auto and individual, platforms of N and 10,000 scores)")
	flag.BoolVar(&o.onlyRefresh, "only-refresh", false, "run the refresh series alone")
	flag.BoolVar(&o.onlyDataSource, "only-datasource", false, "run the mediaplatform_scores series alone")
	flag.StringVar(&o.applySizes, "apply-sizes", "10,100,1000", "comma-separated numbers of new scores of the apply and destroy series (render_wait shared and individual, the emulator's default rendering time); empty skips it")
	flag.BoolVar(&o.onlyApply, "only-apply", false, "run the apply and destroy series alone")
	flag.StringVar(&o.applyCondition, "apply-condition", "", "run only the apply conditions whose name starts with this `text` (e.g. \"requests/s\"; several prefixes apart with |: \"0 ms|final\")")
	flag.StringVar(&o.growthSizes, "growth-sizes", "100,1000", "comma-separated numbers of new scores of the growth series (apply and destroy at parallelism 10, the CPU of terraform, the provider and the emulator apart, requests and the rendering wait's reads per score); empty skips it")
	flag.BoolVar(&o.onlyGrowth, "only-growth", false, "run the growth series alone")
	flag.StringVar(&o.growthRenderDelay, "growth-render-delay", "0s", "the emulator's time in each of pending and rendering in the growth series")
	flag.IntVar(&o.growthDestroyMax, "growth-destroy-max", 1000, "the growth series destroys its scores up to this N (a destroy of 5,000 takes Terraform half an hour)")
	flag.StringVar(&o.providerSrc, "provider-src", "", "build the provider from the module in this `directory` (e.g. a git worktree of an earlier commit) instead of this one")
	flag.StringVar(&o.profile, "profile", "", "at the largest N, also profile one full and one -refresh=false plan with ./bench/pprofprovider, into this `directory`")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	sizes            string
	runs             int
	latencyMs        int
	dataSourceScores string
	onlyDataSource   bool
	out              string
	keep             bool
	verbose          bool
	profile          string
	refresh          bool
	onlyRefresh      bool
	applySizes       string
	onlyApply        bool
	applyCondition   string

	growthSizes       string
	onlyGrowth        bool
	growthRenderDelay string
	growthDestroyMax  int
	providerSrc       string
}

// results is everything measured; BENCHMARKS.md is written from it.
type results struct {
	Date      string          `json:"date"`
	Machine   machine         `json:"machine"`
	Runs      int             `json:"runs"`
	LatencyMs int             `json:"latencyMs"`
	Sizes     []sizeResult    `json:"sizes"`
	Logins    *loginResult    `json:"logins,omitempty"`
	Scores    []scoresResult  `json:"scoresDataSource,omitempty"`
	Refresh   []refreshResult `json:"refresh,omitempty"`
	Apply     []applyResult   `json:"apply,omitempty"`
	Growth    []growthResult  `json:"growth,omitempty"`
	// MaxLiveSessions and MaxLiveTokens are the largest counts seen after any
	// terraform command.
	MaxLiveSessions int `json:"maxLiveSessions"`
	MaxLiveTokens   int `json:"maxLiveTokens"`
	Commands        int `json:"commands"`
	TotalSeconds    int `json:"totalSeconds"`
}

type machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpuModel"`
	MemoryGiB string `json:"memoryGiB"`
	LoadStart string `json:"loadAverageAtStart"`
	LoadEnd   string `json:"loadAverageAtEnd"`
	Terraform string `json:"terraform"`
	Go        string `json:"go"`
	OS        string `json:"os"`
}

type sizeResult struct {
	N int `json:"n"`
	// Seconds of the setup apply, informational.
	ApplySeconds float64 `json:"applySeconds"`
	// Medians, in seconds.
	FullPlan      float64 `json:"fullPlan"`
	NoRefreshPlan float64 `json:"noRefreshPlan"`
	DataPlan      float64 `json:"terraformDataPlan"`
	// All runs, in seconds.
	FullRuns      []float64 `json:"fullRuns"`
	NoRefreshRuns []float64 `json:"noRefreshRuns"`
	DataRuns      []float64 `json:"terraformDataRuns"`
	// RatioNoRefresh is FullPlan / NoRefreshPlan; RatioData is FullPlan / DataPlan.
	RatioNoRefresh float64 `json:"ratioToNoRefresh"`
	RatioData      float64 `json:"ratioToTerraformData"`
	// CPU seconds (user + system) of terraform and its provider processes, medians.
	FullCPU      float64   `json:"fullPlanCpu"`
	NoRefreshCPU float64   `json:"noRefreshPlanCpu"`
	DataCPU      float64   `json:"terraformDataPlanCpu"`
	FullCPURuns  []float64 `json:"fullCpuRuns"`
	NoRefCPURuns []float64 `json:"noRefreshCpuRuns"`
	DataCPURuns  []float64 `json:"terraformDataCpuRuns"`
	// ReadsPerScore is GET /scores/{id} per score in one full plan; RequestsPerScore
	// counts every request of that plan (logins and logout included).
	ReadsPerScore    float64        `json:"readsPerScore"`
	RequestsPerScore float64        `json:"requestsPerScore"`
	PlanRequests     map[string]int `json:"planRequests"`
	NoRefreshReqs    int            `json:"noRefreshPlanRequests"`
	// With latency: medians and the ratio to the ideal.
	LatencyFullPlan      float64   `json:"latencyFullPlan,omitempty"`
	LatencyNoRefreshPlan float64   `json:"latencyNoRefreshPlan,omitempty"`
	LatencyFullRuns      []float64 `json:"latencyFullRuns,omitempty"`
	LatencyNoRefreshRuns []float64 `json:"latencyNoRefreshRuns,omitempty"`
	LatencyIdeal         float64   `json:"latencyIdeal,omitempty"`
	LatencyRatio         float64   `json:"latencyRatio,omitempty"`
	// One full plan through the RSS wrapper.
	ProviderProcesses int   `json:"providerProcesses"`
	PeakRSSKiB        int64 `json:"peakRssKiB"`
	OAuthLogins       int   `json:"oauthLoginsPerPlan"`
	AdminLogins       int   `json:"adminLoginsPerPlan"`
}

type loginResult struct {
	Resources         string `json:"resources"`
	ProviderProcesses int    `json:"providerProcesses"`
	AdminLogins       int    `json:"adminLogins"`
	OAuthLogins       int    `json:"oauthLogins"`
	LiveSessions      int    `json:"liveSessionsAfter"`
	LiveTokens        int    `json:"liveTokensAfter"`
}

type scoresResult struct {
	Scores   int            `json:"scores"`
	Plan     float64        `json:"plan"`
	Runs     []float64      `json:"runs"`
	Requests map[string]int `json:"requestsPerPlan"`
	Total    int            `json:"totalRequestsPerPlan"`
	// PeakRSSKiB is the largest peak RSS of the provider processes of one plan.
	PeakRSSKiB int64 `json:"peakRssKiB"`
}

// bench holds the running state.
type bench struct {
	o         options
	terraform string
	work      string
	cli       string // CLI configuration with the provider
	cliRSS    string // CLI configuration with the RSS wrapper
	real      string // the provider binary
	emu       *emulatorProcess
	env       []string
	res       *results
	lastCPU   time.Duration // user + system time of the last terraform command and its children
}

func run(ctx context.Context, o options) (err error) {
	start := time.Now()
	sizes, err := parseSizes(o.sizes)
	if err != nil {
		return err
	}
	if o.runs < 1 {
		return errors.New("-runs must be at least 1")
	}
	b := &bench{o: o, res: &results{Date: time.Now().UTC().Format(time.RFC3339), Runs: o.runs, LatencyMs: o.latencyMs}}
	if b.terraform, err = exec.LookPath("terraform"); err != nil {
		return errors.New("terraform is not on PATH")
	}
	if b.work, err = os.MkdirTemp("", "mediaplatform-bench-"); err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(os.Stderr, "bench: working directory", b.work)
	} else {
		defer os.RemoveAll(b.work)
	}
	b.res.Machine = describeMachine(ctx)

	if err := b.build(ctx); err != nil {
		return err
	}
	// No render delay: a new score is idle at its first read, so the apply that
	// creates the state of the plan series costs two requests per score.
	if b.emu, err = startEmulator(ctx, filepath.Join(b.work, "bin", "mediaplatform-emulator"), b.work, "emulator.log", "0s"); err != nil {
		return err
	}
	defer func() {
		if stopErr := b.emu.stop(); err == nil {
			err = stopErr
		}
	}()
	b.env = append(cleanEnv(),
		"CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		client.EnvAdminURL+"="+b.emu.addr.AdminURL,
		client.EnvAdminUsername+"=admin",
		client.EnvAdminPassword+"=admin-secret",
		client.EnvPlatformURL+"="+b.emu.addr.PlatformURL,
		client.EnvPublishingURL+"="+b.emu.addr.PublishingURL,
		client.EnvClientID+"=terraform",
		client.EnvClientSecret+"=terraform-secret",
		client.EnvUsername+"=alice",
		client.EnvPassword+"=alice-secret",
	)

	only := o.onlyRefresh || o.onlyDataSource || o.onlyApply || o.onlyGrowth
	for _, n := range sizes {
		if only {
			break
		}
		r, err := b.measureSize(ctx, n, slices.Max(sizes))
		if err != nil {
			return fmt.Errorf("measuring %d resources: %w", n, err)
		}
		b.res.Sizes = append(b.res.Sizes, *r)
	}
	if (o.refresh || o.onlyRefresh) && !only || o.onlyRefresh {
		for _, n := range sizes {
			r, err := b.measureRefresh(ctx, n)
			if err != nil {
				return fmt.Errorf("refresh series, %d resources: %w", n, err)
			}
			b.res.Refresh = append(b.res.Refresh, r...)
		}
	}
	if only {
		// The other series are skipped.
	} else if b.res.Logins, err = b.measureLogins(ctx); err != nil {
		return fmt.Errorf("logins: %w", err)
	}
	if o.applySizes != "" && (!only || o.onlyApply) {
		counts, err := parseSizes(o.applySizes)
		if err != nil {
			return fmt.Errorf("-apply-sizes: %w", err)
		}
		for _, n := range counts {
			r, err := b.measureApply(ctx, n)
			if err != nil {
				return fmt.Errorf("apply series, %d scores: %w", n, err)
			}
			b.res.Apply = append(b.res.Apply, *r)
		}
	}
	if o.growthSizes != "" && (!only || o.onlyGrowth) {
		counts, err := parseSizes(o.growthSizes)
		if err != nil {
			return fmt.Errorf("-growth-sizes: %w", err)
		}
		for _, n := range counts {
			r, err := b.measureGrowth(ctx, n, slices.Max(counts))
			if err != nil {
				return fmt.Errorf("growth series, %d scores: %w", n, err)
			}
			b.res.Growth = append(b.res.Growth, *r)
		}
	}
	if o.dataSourceScores != "" && (!only || o.onlyDataSource) {
		counts, err := parseSizes(o.dataSourceScores)
		if err != nil {
			return fmt.Errorf("-datasource-scores: %w", err)
		}
		for _, n := range counts {
			r, err := b.measureScoresDataSource(ctx, n)
			if err != nil {
				return fmt.Errorf("scores data source: %w", err)
			}
			b.res.Scores = append(b.res.Scores, *r)
		}
	}
	b.res.Machine.LoadEnd = loadAverage()
	b.res.TotalSeconds = int(time.Since(start).Seconds())
	b.report(os.Stdout)
	if o.out != "" {
		data, err := json.MarshalIndent(b.res, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(o.out, append(data, '\n'), 0o644)
	}
	return nil
}

func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sizes: %q is not a positive number", f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// build compiles the provider and the emulator, and sets up both plugin directories.
func (b *bench) build(ctx context.Context) error {
	pluginDir := filepath.Join(b.work, "plugin")
	b.real = filepath.Join(pluginDir, "terraform-provider-mediaplatform")
	for _, target := range []struct{ out, pkg, dir string }{
		{b.real, ".", b.providerSource()},
		{filepath.Join(b.work, "bin", "mediaplatform-emulator"), modulePath + "/cmd/mediaplatform-emulator", "."},
	} {
		out, err := filepath.Abs(target.out)
		if err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-o", out, target.pkg)
		cmd.Dir = target.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %w\n%s", target.pkg, err, out)
		}
	}
	// The wrapper is this program under the provider's name.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	rssDir := filepath.Join(b.work, "plugin-rss")
	if err := copyFile(self, filepath.Join(rssDir, "terraform-provider-mediaplatform")); err != nil {
		return err
	}
	b.cli, b.cliRSS = filepath.Join(b.work, "cli.tfrc"), filepath.Join(b.work, "cli-rss.tfrc")
	for file, dir := range map[string]string{b.cli: pluginDir, b.cliRSS: rssDir} {
		config := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
			"mediaplatform/mediaplatform", dir)
		if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

// ---- workspaces ----

const providerBlock = `terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}

provider "mediaplatform" {}
`

func scoreConfig(n int) string {
	return providerBlock + fmt.Sprintf(`
resource "mediaplatform_score" "bench" {
  count     = %d
  score_url = "https://cdn.example/bench/${count.index}.sib"
}
`, n)
}

func dataConfig(n int) string {
	return fmt.Sprintf(`resource "terraform_data" "bench" {
  count = %d
  input = "https://cdn.example/bench/${count.index}.sib"
}
`, n)
}

func (b *bench) workspace(name, config string) (string, error) {
	dir := filepath.Join(b.work, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644)
}

// tf runs terraform in dir and returns its duration and output; exit status 2
// (changes present, with -detailed-exitcode) is returned as an error.
func (b *bench) tf(ctx context.Context, dir, cli string, extraEnv []string, args ...string) (time.Duration, string, error) {
	args = append(args, "-no-color", "-input=false")
	cmd := exec.CommandContext(ctx, b.terraform, args...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clone(b.env), "TF_CLI_CONFIG_FILE="+cli)
	cmd.Env = append(cmd.Env, extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	b.lastCPU = 0
	if cmd.ProcessState != nil {
		// wait4 counts the provider processes too: terraform waits for them.
		b.lastCPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.res.Commands++
	if b.o.verbose {
		fmt.Fprintf(os.Stderr, "bench: %-40s %8.3fs  (%s)\n", "terraform "+strings.Join(args[:len(args)-2], " "), d.Seconds(), filepath.Base(dir))
	}
	if err != nil {
		return d, out.String(), fmt.Errorf("terraform %s in %s: %w\n%s", strings.Join(args, " "), filepath.Base(dir), err, tail(out.String(), 40))
	}
	return d, out.String(), nil
}

// tfChecked runs a mediaplatform command and records the live sessions and tokens it
// leaves behind.
func (b *bench) tfChecked(ctx context.Context, dir, cli string, extraEnv []string, args ...string) (time.Duration, string, error) {
	d, out, err := b.tf(ctx, dir, cli, extraEnv, args...)
	if err != nil {
		return d, out, err
	}
	s, serr := b.emu.stats(ctx)
	if serr != nil {
		return d, out, serr
	}
	b.res.MaxLiveSessions = max(b.res.MaxLiveSessions, s.LiveSessions)
	b.res.MaxLiveTokens = max(b.res.MaxLiveTokens, s.LiveTokens)
	return d, out, nil
}

func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

// ---- measurements ----

func (b *bench) measureSize(ctx context.Context, n, largest int) (*sizeResult, error) {
	r := &sizeResult{N: n}
	if err := b.emu.reset(ctx); err != nil {
		return nil, err
	}
	scores, err := b.workspace(fmt.Sprintf("scores-%d", n), scoreConfig(n))
	if err != nil {
		return nil, err
	}
	data, err := b.workspace(fmt.Sprintf("data-%d", n), dataConfig(n))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: N = %d: creating the state\n", n)
	d, _, err := b.tfChecked(ctx, scores, b.cli, nil, "apply", "-auto-approve", "-parallelism=20")
	if err != nil {
		return nil, err
	}
	r.ApplySeconds = d.Seconds()
	if _, _, err := b.tf(ctx, data, b.cli, nil, "apply", "-auto-approve", "-parallelism=20"); err != nil {
		return nil, err
	}
	if s, err := b.emu.stats(ctx); err != nil {
		return nil, err
	} else if s.Scores != n {
		return nil, fmt.Errorf("after apply the emulator holds %d scores, want %d", s.Scores, n)
	}

	fmt.Fprintf(os.Stderr, "bench: N = %d: %d timed runs of each plan\n", n, b.o.runs)
	plans := []struct {
		dir       string
		args      []string
		runs, cpu *[]float64
	}{
		{scores, []string{"plan", "-detailed-exitcode"}, &r.FullRuns, &r.FullCPURuns},
		{scores, []string{"plan", "-detailed-exitcode", "-refresh=false"}, &r.NoRefreshRuns, &r.NoRefCPURuns},
		{data, []string{"plan", "-detailed-exitcode"}, &r.DataRuns, &r.DataCPURuns},
	}
	for i := range b.o.runs {
		// Rotate the order, so that no kind always runs first or after the same one.
		for j := range plans {
			p := plans[(i+j)%len(plans)]
			before, err := b.emu.stats(ctx)
			if err != nil {
				return nil, err
			}
			d, _, err := b.tfChecked(ctx, p.dir, b.cli, nil, p.args...)
			if err != nil {
				return nil, err
			}
			*p.runs = append(*p.runs, d.Seconds())
			*p.cpu = append(*p.cpu, b.lastCPU.Seconds())
			after, err := b.emu.stats(ctx)
			if err != nil {
				return nil, err
			}
			delta := after.minus(before)
			switch {
			case p.runs == &r.FullRuns && r.PlanRequests == nil:
				r.PlanRequests = delta.Requests
				r.ReadsPerScore = float64(delta.Requests["GET "+b.emu.publishingPath()+"/scores/{id}"]) / float64(n)
				r.RequestsPerScore = float64(delta.total()) / float64(n)
			case p.runs == &r.NoRefreshRuns:
				r.NoRefreshReqs = max(r.NoRefreshReqs, delta.total())
			}
		}
	}
	r.FullPlan, r.NoRefreshPlan, r.DataPlan = median(r.FullRuns), median(r.NoRefreshRuns), median(r.DataRuns)
	r.RatioNoRefresh, r.RatioData = r.FullPlan/r.NoRefreshPlan, r.FullPlan/r.DataPlan
	r.FullCPU, r.NoRefreshCPU, r.DataCPU = median(r.FullCPURuns), median(r.NoRefCPURuns), median(r.DataCPURuns)

	if err := b.measureRSS(ctx, scores, r); err != nil {
		return nil, err
	}

	if b.o.profile != "" && n == largest {
		if err := b.profilePlans(ctx, scores); err != nil {
			return nil, err
		}
	}

	if b.o.latencyMs > 0 {
		fmt.Fprintf(os.Stderr, "bench: N = %d: %d timed runs with %d ms latency\n", n, b.o.runs, b.o.latencyMs)
		if err := b.emu.setFaults(ctx, fmt.Sprintf(`{"latencyMs": %d}`, b.o.latencyMs)); err != nil {
			return nil, err
		}
		for i := range b.o.runs {
			for j := range 2 {
				args, runs := []string{"plan", "-detailed-exitcode"}, &r.LatencyFullRuns
				if (i+j)%2 == 1 {
					args, runs = append(args, "-refresh=false"), &r.LatencyNoRefreshRuns
				}
				d, _, err := b.tfChecked(ctx, scores, b.cli, nil, args...)
				if err != nil {
					return nil, err
				}
				*runs = append(*runs, d.Seconds())
			}
		}
		if err := b.emu.setFaults(ctx, `{}`); err != nil {
			return nil, err
		}
		r.LatencyFullPlan, r.LatencyNoRefreshPlan = median(r.LatencyFullRuns), median(r.LatencyNoRefreshRuns)
		// Terraform refreshes 10 resources at a time, one request each.
		r.LatencyIdeal = float64(n)*float64(b.o.latencyMs)/1000/10 + r.LatencyNoRefreshPlan
		r.LatencyRatio = r.LatencyFullPlan / r.LatencyIdeal
	}
	return r, nil
}

// profilePlans runs one full and one -refresh=false plan with the profiling build of
// the provider; every provider process writes a CPU and an allocation profile.
func (b *bench) profilePlans(ctx context.Context, dir string) error {
	pluginDir := filepath.Join(b.work, "plugin-pprof")
	binary := filepath.Join(pluginDir, "terraform-provider-mediaplatform")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", binary, modulePath+"/bench/pprofprovider").CombinedOutput(); err != nil {
		return fmt.Errorf("go build pprofprovider: %w\n%s", err, out)
	}
	cli := filepath.Join(b.work, "cli-pprof.tfrc")
	config := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
		"mediaplatform/mediaplatform", pluginDir)
	if err := os.WriteFile(cli, []byte(config), 0o644); err != nil {
		return err
	}
	reader := binary // the binary that pprof needs to read the profiles
	if !b.o.keep {
		reader = filepath.Join(b.o.profile, "terraform-provider-mediaplatform")
		if err := copyFile(binary, reader); err != nil {
			return err
		}
	}
	for _, p := range []struct {
		name string
		args []string
	}{
		{"full", []string{"plan", "-detailed-exitcode"}},
		{"no-refresh", []string{"plan", "-detailed-exitcode", "-refresh=false"}},
	} {
		out, err := filepath.Abs(filepath.Join(b.o.profile, p.name))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if _, _, err := b.tfChecked(ctx, dir, cli, []string{"MEDIAPLATFORM_PPROF_DIR=" + out}, p.args...); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "bench: profiles of a %s plan: go tool pprof -top %s %s/provider-*.cpu.pprof (the largest is the plan's)\n",
			p.name, reader, out)
	}
	return nil
}

// measureRSS runs one full plan through the wrapper: provider processes, their peak
// RSS and the logins of the plan.
func (b *bench) measureRSS(ctx context.Context, dir string, r *sizeResult) error {
	procs, before, after, err := b.wrapped(ctx, dir, "plan", "-detailed-exitcode")
	if err != nil {
		return err
	}
	r.ProviderProcesses = len(procs)
	for _, p := range procs {
		r.PeakRSSKiB = max(r.PeakRSSKiB, p)
	}
	r.OAuthLogins = after.Logins["oauth"] - before.Logins["oauth"]
	r.AdminLogins = after.Logins["admin"] - before.Logins["admin"]
	return nil
}

// wrapped runs a terraform command through the RSS wrapper and returns the peak RSS
// (KiB) of every provider process it started, and the stats around it.
func (b *bench) wrapped(ctx context.Context, dir string, args ...string) ([]int64, stats, stats, error) {
	record := filepath.Join(b.work, fmt.Sprintf("rss-%d.txt", time.Now().UnixNano()))
	before, err := b.emu.stats(ctx)
	if err != nil {
		return nil, stats{}, stats{}, err
	}
	env := []string{envWrapTarget + "=" + b.real, envWrapRecord + "=" + record}
	if _, _, err := b.tfChecked(ctx, dir, b.cliRSS, env, args...); err != nil {
		return nil, stats{}, stats{}, err
	}
	after, err := b.emu.stats(ctx)
	if err != nil {
		return nil, stats{}, stats{}, err
	}
	records, err := readWrapRecords(record)
	if err != nil {
		return nil, stats{}, stats{}, err
	}
	var peaks []int64
	for _, r := range records {
		peaks = append(peaks, r.maxRSS)
	}
	return peaks, before, after, nil
}

// wrapRecord is what the wrapper records of one provider process: its peak RSS
// (KiB), its CPU (user + system) and the wrapper's own.
type wrapRecord struct {
	maxRSS      int64
	child, self time.Duration
}

func readWrapRecords(file string) ([]wrapRecord, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("the wrapper recorded nothing: %w", err)
	}
	var records []wrapRecord
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r wrapRecord
		var child, self int64
		if _, err := fmt.Sscan(line, &r.maxRSS, &child, &self); err != nil {
			return nil, fmt.Errorf("wrapper record %q: %w", line, err)
		}
		r.child, r.self = time.Duration(child), time.Duration(self)
		records = append(records, r)
	}
	return records, nil
}

// measureLogins plans a configuration that needs both logins, with many operations
// at once: each provider process logs in at most once each way.
func (b *bench) measureLogins(ctx context.Context) (*loginResult, error) {
	const scores = 50
	fmt.Fprintln(os.Stderr, "bench: logins per provider process")
	if err := b.emu.reset(ctx); err != nil {
		return nil, err
	}
	dir, err := b.workspace("logins", scoreConfig(scores)+`
resource "mediaplatform_external_authentication" "bench" {
  domain_name = "BENCH"
  enabled     = true
}
`)
	if err != nil {
		return nil, err
	}
	if _, _, err := b.tfChecked(ctx, dir, b.cli, nil, "apply", "-auto-approve"); err != nil {
		return nil, err
	}
	procs, before, after, err := b.wrapped(ctx, dir, "plan", "-detailed-exitcode")
	if err != nil {
		return nil, err
	}
	return &loginResult{
		Resources:         fmt.Sprintf("%d mediaplatform_score + 1 mediaplatform_external_authentication", scores),
		ProviderProcesses: len(procs),
		AdminLogins:       after.Logins["admin"] - before.Logins["admin"],
		OAuthLogins:       after.Logins["oauth"] - before.Logins["oauth"],
		LiveSessions:      after.LiveSessions,
		LiveTokens:        after.LiveTokens,
	}, nil
}

// measureScoresDataSource publishes n scores through the API and reads them all with
// the mediaplatform_scores data source.
// publishScores publishes n scores through the API client, 16 at a time, from files
// named https://cdn.example/<folder>/<i>.sib.
func (b *bench) publishScores(ctx context.Context, n int, folder string) error {
	c, err := client.New(client.Config{
		PlatformURL: b.emu.addr.PlatformURL, PublishingURL: b.emu.addr.PublishingURL,
		ClientID: "terraform", ClientSecret: "terraform-secret", Username: "alice", Password: "alice-secret",
	})
	if err != nil {
		return err
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if _, err := c.PublishScore(ctx, client.PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/%s/%d.sib", folder, i)}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	closeErr := c.Close(ctx)
	if err := <-errs; err != nil {
		return err
	}
	return closeErr
}

func (b *bench) measureScoresDataSource(ctx context.Context, n int) (*scoresResult, error) {
	fmt.Fprintf(os.Stderr, "bench: publishing %d scores for the data source\n", n)
	if err := b.emu.reset(ctx); err != nil {
		return nil, err
	}
	if err := b.publishScores(ctx, n, "many"); err != nil {
		return nil, err
	}
	dir, err := b.workspace("scores-data-source", providerBlock+`
data "mediaplatform_scores" "all" {}

output "count" {
  value = length(data.mediaplatform_scores.all.scores)
}
`)
	if err != nil {
		return nil, err
	}
	res := &scoresResult{Scores: n}
	fmt.Fprintf(os.Stderr, "bench: %d timed plans reading %d scores\n", b.o.runs, n)
	for range b.o.runs {
		before, err := b.emu.stats(ctx)
		if err != nil {
			return nil, err
		}
		d, out, err := b.tfChecked(ctx, dir, b.cli, nil, "plan")
		if err != nil {
			return nil, err
		}
		if !strings.Contains(out, fmt.Sprintf("count = %d", n)) {
			return nil, fmt.Errorf("the plan does not show count = %d:\n%s", n, tail(out, 20))
		}
		after, err := b.emu.stats(ctx)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, d.Seconds())
		delta := after.minus(before)
		res.Requests, res.Total = delta.Requests, delta.total()
	}
	res.Plan = median(res.Runs)
	peaks, _, _, err := b.wrapped(ctx, dir, "plan")
	if err != nil {
		return nil, err
	}
	for _, p := range peaks {
		res.PeakRSSKiB = max(res.PeakRSSKiB, p)
	}
	return res, nil
}

// reportScoresDataSource reports the mediaplatform_scores series, if it ran.
func (b *bench) reportScoresDataSource(w io.Writer) {
	if len(b.res.Scores) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## mediaplatform_scores\n\n| scores | plan (s, median) | requests per plan | provider peak RSS (MiB) |\n|---|---|---|---|\n")
	for _, s := range b.res.Scores {
		fmt.Fprintf(w, "| %d | %.2f (runs %s) | %d | %.1f |\n", s.Scores, s.Plan, formatRuns(s.Runs), s.Total, float64(s.PeakRSSKiB)/1024)
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ---- report ----

func (b *bench) report(w io.Writer) {
	r := b.res
	m := r.Machine
	fmt.Fprintf(w, "# Benchmark results\n\n")
	fmt.Fprintf(w, "Date: %s. Machine: %d CPUs (%s), %s GiB memory, %s; load average %s at start, %s at end.\n",
		r.Date, m.CPUs, m.CPUModel, m.MemoryGiB, m.OS, m.LoadStart, m.LoadEnd)
	fmt.Fprintf(w, "%s, %s. %d runs of each plan, medians in seconds. %d terraform commands in %d s.\n\n",
		m.Terraform, m.Go, r.Runs, r.Commands, r.TotalSeconds)
	if len(r.Sizes) == 0 {
		b.reportScoresDataSource(w)
		b.reportRefresh(w)
		b.reportApply(w)
		b.reportGrowth(w)
		return
	}

	fmt.Fprintf(w, "## terraform plan of N mediaplatform_score (parallelism 10)\n\n")
	fmt.Fprintf(w, "| N | full plan | -refresh=false | terraform_data | full ÷ -refresh=false | full ÷ terraform_data | GET per score | requests per score | setup apply |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Sizes {
		fmt.Fprintf(w, "| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.1f |\n", s.N, s.FullPlan, s.NoRefreshPlan, s.DataPlan,
			s.RatioNoRefresh, s.RatioData, s.ReadsPerScore, s.RequestsPerScore, s.ApplySeconds)
	}
	fmt.Fprintf(w, "\nCPU seconds (user + system, terraform and its provider processes), medians:\n\n")
	fmt.Fprintf(w, "| N | full plan | -refresh=false | terraform_data | full ÷ -refresh=false |\n|---|---|---|---|---|\n")
	for _, s := range r.Sizes {
		fmt.Fprintf(w, "| %d | %.2f | %.2f | %.2f | %.2f |\n", s.N, s.FullCPU, s.NoRefreshCPU, s.DataCPU, s.FullCPU/s.NoRefreshCPU)
	}
	if r.LatencyMs > 0 {
		fmt.Fprintf(w, "\n## With %d ms emulator latency\n\n", r.LatencyMs)
		fmt.Fprintf(w, "| N | full plan | -refresh=false | ideal (N × %d ms ÷ 10 + -refresh=false) | full ÷ ideal |\n", r.LatencyMs)
		fmt.Fprintf(w, "|---|---|---|---|---|\n")
		for _, s := range r.Sizes {
			fmt.Fprintf(w, "| %d | %.2f | %.2f | %.2f | %.2f |\n", s.N, s.LatencyFullPlan, s.LatencyNoRefreshPlan, s.LatencyIdeal, s.LatencyRatio)
		}
	}
	fmt.Fprintf(w, "\n## One full plan through the RSS wrapper\n\n")
	fmt.Fprintf(w, "| N | provider processes | peak RSS (MiB) | OAuth logins | admin logins |\n|---|---|---|---|---|\n")
	for _, s := range r.Sizes {
		fmt.Fprintf(w, "| %d | %d | %.1f | %d | %d |\n", s.N, s.ProviderProcesses, float64(s.PeakRSSKiB)/1024, s.OAuthLogins, s.AdminLogins)
	}
	if l := r.Logins; l != nil {
		fmt.Fprintf(w, "\nPlan of %s: %d provider processes, %d admin and %d OAuth logins, then %d live sessions and %d live tokens.\n",
			l.Resources, l.ProviderProcesses, l.AdminLogins, l.OAuthLogins, l.LiveSessions, l.LiveTokens)
	}
	fmt.Fprintf(w, "After every one of the %d terraform commands: at most %d live sessions and %d live tokens.\n", r.Commands, r.MaxLiveSessions, r.MaxLiveTokens)
	for _, s := range r.Sizes {
		fmt.Fprintf(w, "N = %d, requests of one full plan: %s; of a -refresh=false plan: %d.\n", s.N, formatRequests(s.PlanRequests), s.NoRefreshReqs)
	}
	b.reportScoresDataSource(w)
	b.reportRefresh(w)
	b.reportApply(w)
	b.reportGrowth(w)
	fmt.Fprintf(w, "\n## All runs (seconds)\n\n")
	for _, s := range r.Sizes {
		fmt.Fprintf(w, "- N = %d: full %s; -refresh=false %s; terraform_data %s", s.N, formatRuns(s.FullRuns), formatRuns(s.NoRefreshRuns), formatRuns(s.DataRuns))
		fmt.Fprintf(w, "; CPU full %s; CPU -refresh=false %s; CPU terraform_data %s", formatRuns(s.FullCPURuns), formatRuns(s.NoRefCPURuns), formatRuns(s.DataCPURuns))
		if r.LatencyMs > 0 {
			fmt.Fprintf(w, "; latency full %s; latency -refresh=false %s", formatRuns(s.LatencyFullRuns), formatRuns(s.LatencyNoRefreshRuns))
		}
		fmt.Fprintln(w)
	}
}

func formatRuns(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " ")
}

func formatRequests(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// ---- the machine ----

func describeMachine(ctx context.Context) machine {
	m := machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version(), LoadStart: loadAverage()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kib, err := strconv.ParseFloat(f[1], 64); err == nil {
					m.MemoryGiB = fmt.Sprintf("%.1f", kib/1024/1024)
				}
			}
		}
	}
	cmd := exec.CommandContext(ctx, "terraform", "version")
	cmd.Env = append(cleanEnv(), "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE="+os.DevNull)
	if out, err := cmd.Output(); err == nil {
		m.Terraform, _, _ = strings.Cut(string(out), "\n")
	}
	return m
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// cleanEnv is the environment without the variables that change what Terraform or
// the provider do.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_") || strings.HasPrefix(kv, "MEDIAPLATFORM_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// ---- the emulator ----

type addresses struct {
	AdminURL      string `json:"admin_url"`
	PlatformURL   string `json:"platform_url"`
	PublishingURL string `json:"publishing_url"`
}

type emulatorProcess struct {
	cmd  *exec.Cmd
	addr addresses
	http *http.Client
}

// startEmulator starts the emulator with scores that spend renderDelay in each of
// pending and rendering, logging into work/logName.
func startEmulator(ctx context.Context, binary, work, logName, renderDelay string) (*emulatorProcess, error) {
	cmd := exec.CommandContext(ctx, binary, "-listen", "127.0.0.1:0", "-render-delay", renderDelay)
	stderr, err := os.Create(filepath.Join(work, logName))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	e := &emulatorProcess{cmd: cmd, http: &http.Client{Timeout: 30 * time.Second}}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err == nil {
		err = json.Unmarshal([]byte(line), &e.addr)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if err != nil || e.addr.PlatformURL == "" {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("reading the emulator's addresses from %q: %w", line, cmp.Or(err, errors.New("no platform_url")))
	}
	return e, nil
}

func (e *emulatorProcess) stop() error {
	_ = e.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- e.cmd.Wait() }()
	select {
	case err := <-done:
		return err // nil: the emulator stops cleanly on SIGINT
	case <-time.After(5 * time.Second):
		_ = e.cmd.Process.Kill()
		return errors.New("the emulator did not stop on SIGINT")
	}
}

// publishingPath is the path of publishing_url, as the emulator's route names use it.
func (e *emulatorProcess) publishingPath() string {
	return strings.TrimPrefix(e.addr.PublishingURL, e.addr.PlatformURL)
}

type stats struct {
	Requests     map[string]int `json:"requests"`
	Logins       map[string]int `json:"logins"`
	LiveSessions int            `json:"liveSessions"`
	LiveTokens   int            `json:"liveTokens"`
	Scores       int            `json:"scores"`
}

func (s stats) minus(before stats) stats {
	d := s
	d.Requests = map[string]int{}
	for k, v := range s.Requests {
		if n := v - before.Requests[k]; n != 0 {
			d.Requests[k] = n
		}
	}
	d.Logins = map[string]int{}
	for k, v := range s.Logins {
		d.Logins[k] = v - before.Logins[k]
	}
	return d
}

func (s stats) total() int {
	n := 0
	for _, v := range s.Requests {
		n += v
	}
	return n
}

func (e *emulatorProcess) control(ctx context.Context, method, path, body string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, e.addr.PlatformURL+"/_emulator/"+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s /_emulator/%s: HTTP %d: %s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

func (e *emulatorProcess) stats(ctx context.Context) (stats, error) {
	var s stats
	err := e.control(ctx, http.MethodGet, "stats", "", &s)
	return s, err
}

func (e *emulatorProcess) reset(ctx context.Context) error {
	return e.control(ctx, http.MethodPost, "reset", "", nil)
}

func (e *emulatorProcess) setFaults(ctx context.Context, faults string) error {
	return e.control(ctx, http.MethodPost, "faults", faults, nil)
}

// ---- the RSS wrapper ----

// wrap runs the provider binary target as a child with this process's arguments,
// standard streams and environment, passes signals on, and when it ends appends its
// peak resident set size in KiB to record.
func wrap(target, record string) int {
	cmd := exec.Command(target, os.Args[1:]...) //nolint:noctx // lives as long as the child
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envWrapTarget+"=") && !strings.HasPrefix(kv, envWrapRecord+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "bench wrapper:", err)
		return 1
	}
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	if usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && record != "" {
		maxRSS := usage.Maxrss // KiB on Linux, bytes on macOS
		if runtime.GOOS == "darwin" {
			maxRSS /= 1024
		}
		child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		var self time.Duration
		var own syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &own) == nil {
			self = time.Duration(own.Utime.Nano() + own.Stime.Nano())
		}
		if f, ferr := os.OpenFile(record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); ferr == nil {
			fmt.Fprintln(f, maxRSS, int64(child), int64(self))
			f.Close()
		}
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}
