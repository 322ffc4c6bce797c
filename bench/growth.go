//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// The growth series (issue 47): does an apply cost the same per score at 100 and at
// 5,000? terraform apply of N new mediaplatform_score (wait_for_rendering on, the
// shared wait, Terraform's default parallelism of 10) on an emulator that renders at
// once (-growth-render-delay, 0 by default), then terraform destroy of the same N
// (up to -growth-destroy-max). For each command: the wall time, the requests by kind
// (the rendering wait's reads are GET /scores/{id}, GET /scores and the count), the
// load average before and after, and the CPU split by process:
//
//   - the provider: every provider process runs under the wrapper (the same program
//     as the RSS wrapper), which records its child's user + system time;
//   - terraform: the terraform process tree (wait4's rusage: terraform, the wrappers
//     and the providers they reaped) less the providers and the wrappers themselves;
//   - the emulator: its utime + stime in /proc/<pid>/stat, before and after.
//
// With -profile DIR, the apply of the largest N runs the profiling build of the
// provider (bench/pprofprovider) under the wrapper, and `go tool pprof -top` of its
// CPU profile is written to DIR/growth-<N>.top.txt.

type growthResult struct {
	N       int            `json:"n"`
	Apply   growthCommand  `json:"apply"`
	Destroy *growthCommand `json:"destroy,omitempty"`
}

type growthCommand struct {
	Wall        float64        `json:"wall"`
	Requests    int            `json:"requests"`
	Publishes   int            `json:"publishes"`
	WaitReads   int            `json:"waitReads"` // GET /scores/{id}, GET /scores, the count
	Reads       map[string]int `json:"reads"`     // WaitReads by route
	Deletes     int            `json:"deletes"`
	Other       map[string]int `json:"other"`
	LoadBefore  string         `json:"loadBefore"`
	LoadAfter   string         `json:"loadAfter"`
	Providers   int            `json:"providerProcesses"`
	CPUTotal    float64        `json:"cpuTerraformTree"` // seconds, terraform and its children
	CPUProvider float64        `json:"cpuProvider"`
	CPUWrapper  float64        `json:"cpuWrapper"`
	CPUTF       float64        `json:"cpuTerraform"`
	CPUEmulator float64        `json:"cpuEmulator"`
}

// measureGrowth runs the growth series for N scores on an emulator of its own.
func (b *bench) measureGrowth(ctx context.Context, n, largest int) (*growthResult, error) {
	emu, err := startEmulator(ctx, filepath.Join(b.work, "bin", "mediaplatform-emulator"), b.work,
		fmt.Sprintf("growth-%d-emulator.log", n), b.o.growthRenderDelay)
	if err != nil {
		return nil, err
	}
	defer func() { _ = emu.stop() }()
	env := []string{
		client.EnvAdminURL + "=" + emu.addr.AdminURL, client.EnvPlatformURL + "=" + emu.addr.PlatformURL,
		client.EnvPublishingURL + "=" + emu.addr.PublishingURL, client.EnvRenderWait + "=" + client.RenderWaitShared,
	}
	dir, err := b.workspace(fmt.Sprintf("growth-%d", n), scoreConfig(n))
	if err != nil {
		return nil, err
	}
	target := b.real
	if b.o.profile != "" && n == largest {
		if target, err = b.pprofBinary(ctx); err != nil {
			return nil, err
		}
		out, err := filepath.Abs(filepath.Join(b.o.profile, fmt.Sprintf("growth-%d", n)))
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
		env = append(env, "MEDIAPLATFORM_PPROF_DIR="+out)
	}
	r := &growthResult{N: n}
	fmt.Fprintf(os.Stderr, "bench: growth series, N = %d: apply\n", n)
	if r.Apply, err = b.growthCommand(ctx, emu, dir, target, env, "apply", "-auto-approve", "-parallelism=10"); err != nil {
		return nil, err
	}
	if s, err := emu.stats(ctx); err != nil {
		return nil, err
	} else if s.Scores != n {
		return nil, fmt.Errorf("after the apply the emulator holds %d scores, want %d", s.Scores, n)
	}
	if target != b.real {
		b.pprofTop(ctx, target, n)
	}
	if n <= b.o.growthDestroyMax {
		fmt.Fprintf(os.Stderr, "bench: growth series, N = %d: destroy\n", n)
		d, err := b.growthCommand(ctx, emu, dir, b.real, env, "destroy", "-auto-approve", "-parallelism=10")
		if err != nil {
			return nil, err
		}
		r.Destroy = &d
	}
	return r, nil
}

// growthCommand runs one terraform command with every provider process under the
// wrapper, and measures it.
func (b *bench) growthCommand(ctx context.Context, emu *emulatorProcess, dir, target string, env []string, args ...string) (growthCommand, error) {
	var m growthCommand
	record := filepath.Join(b.work, fmt.Sprintf("growth-%d.txt", time.Now().UnixNano()))
	env = append(slices.Clone(env), envWrapTarget+"="+target, envWrapRecord+"="+record)
	before, err := emu.stats(ctx)
	if err != nil {
		return m, err
	}
	emuBefore, err := processCPU(emu.cmd.Process.Pid)
	if err != nil {
		return m, err
	}
	m.LoadBefore = loadAverage()
	d, _, err := b.tf(ctx, dir, b.cliRSS, env, args...)
	if err != nil {
		return m, err
	}
	m.LoadAfter = loadAverage()
	m.Wall, m.CPUTotal = d.Seconds(), b.lastCPU.Seconds()
	emuAfter, err := processCPU(emu.cmd.Process.Pid)
	if err != nil {
		return m, err
	}
	m.CPUEmulator = (emuAfter - emuBefore).Seconds()
	after, err := emu.stats(ctx)
	if err != nil {
		return m, err
	}
	records, err := readWrapRecords(record)
	if err != nil {
		return m, err
	}
	m.Providers = len(records)
	for _, w := range records {
		m.CPUProvider += w.child.Seconds()
		m.CPUWrapper += w.self.Seconds()
	}
	m.CPUTF = m.CPUTotal - m.CPUProvider - m.CPUWrapper

	scores := emu.publishingPath() + "/scores"
	delta := after.minus(before)
	m.Requests, m.Other, m.Reads = delta.total(), map[string]int{}, map[string]int{}
	for route, k := range delta.Requests {
		switch route {
		case "POST " + scores:
			m.Publishes += k
		case "GET " + scores + "/{id}", "GET " + scores, "POST " + scores + "/count", "GET " + scores + "/count":
			m.WaitReads += k
			m.Reads[strings.TrimPrefix(route, emu.publishingPath())] += k
		case "DELETE " + scores + "/{id}":
			m.Deletes += k
		default:
			m.Other[route] += k
		}
	}
	return m, nil
}

// processCPU is the user + system time of a running process, from /proc/<pid>/stat.
func processCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from
	// the last ')'. utime and stime are fields 14 and 15, in clock ticks.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks, nil
}

// pprofBinary builds the profiling provider (once) and returns its path.
func (b *bench) pprofBinary(ctx context.Context) (string, error) {
	binary := filepath.Join(b.work, "plugin-pprof", "terraform-provider-mediaplatform")
	if _, err := os.Stat(binary); err == nil {
		return binary, nil
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", binary, "./bench/pprofprovider")
	cmd.Dir = b.providerSource()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build pprofprovider: %w\n%s", err, out)
	}
	return binary, nil
}

// pprofTop writes `go tool pprof -top` of the largest CPU profile of the growth
// apply of N into the profile directory.
func (b *bench) pprofTop(ctx context.Context, binary string, n int) {
	dir := filepath.Join(b.o.profile, fmt.Sprintf("growth-%d", n))
	profiles, _ := filepath.Glob(filepath.Join(dir, "provider-*.cpu.pprof"))
	var largest string
	var size int64
	for _, p := range profiles {
		if st, err := os.Stat(p); err == nil && st.Size() > size {
			largest, size = p, st.Size()
		}
	}
	if largest == "" {
		fmt.Fprintf(os.Stderr, "bench: no CPU profile in %s\n", dir)
		return
	}
	if err := copyFile(binary, filepath.Join(dir, "terraform-provider-mediaplatform")); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
	}
	for _, mode := range []string{"-top", "-top -cum"} {
		args := append([]string{"tool", "pprof"}, strings.Fields(mode)...)
		args = append(args, "-nodecount=40", binary, largest)
		out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput()
		name := filepath.Join(dir, "top.txt")
		if mode != "-top" {
			name = filepath.Join(dir, "top-cum.txt")
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: go tool pprof: %v\n%s", err, out)
			continue
		}
		_ = os.WriteFile(name, out, 0o644)
		fmt.Fprintf(os.Stderr, "bench: profile of the apply of %d: %s (go tool pprof %s %s)\n", n, name, binary, largest)
	}
}

// reportGrowth writes the growth series.
func (b *bench) reportGrowth(w io.Writer) {
	if len(b.res.Growth) == 0 {
		return
	}
	src := "this tree"
	if b.o.providerSrc != "" {
		src = b.o.providerSrc
	}
	fmt.Fprintf(w, "\n## Growth: apply and destroy of N scores, render delay %s, parallelism 10, render_wait shared (provider from %s)\n\n",
		b.o.growthRenderDelay, src)
	fmt.Fprintf(w, "| command | N | wall (s) | ms per score | requests | requests per score | wait reads | wait reads per score | CPU s terraform / provider / emulator | CPU ms per score terraform / provider / emulator | provider processes | load before → after |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(name string, n int, m growthCommand) {
		per := func(x float64) float64 { return 1000 * x / float64(n) }
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %d | %.3f | %d | %.3f | %.1f / %.1f / %.1f | %.2f / %.2f / %.2f | %d | %s → %s |\n",
			name, n, m.Wall, per(m.Wall), m.Requests, float64(m.Requests)/float64(n), m.WaitReads, float64(m.WaitReads)/float64(n),
			m.CPUTF, m.CPUProvider, m.CPUEmulator, per(m.CPUTF), per(m.CPUProvider), per(m.CPUEmulator), m.Providers,
			m.LoadBefore, m.LoadAfter)
	}
	for _, g := range b.res.Growth {
		row("apply", g.N, g.Apply)
	}
	for _, g := range b.res.Growth {
		if g.Destroy != nil {
			row("destroy", g.N, *g.Destroy)
		}
	}
	fmt.Fprintf(w, "\nOther requests: ")
	var parts []string
	for _, g := range b.res.Growth {
		parts = append(parts, fmt.Sprintf("apply of %d: %d publishes, %s", g.N, g.Apply.Publishes, formatRequests(g.Apply.Other)))
	}
	fmt.Fprintf(w, "%s. The wrappers' own CPU: %s s.\n", strings.Join(parts, "; "), func() string {
		var xs []string
		for _, g := range b.res.Growth {
			xs = append(xs, fmt.Sprintf("%.2f", g.Apply.CPUWrapper))
		}
		return strings.Join(xs, ", ")
	}())
}

// providerSource is the module directory the provider is built from.
func (b *bench) providerSource() string {
	if b.o.providerSrc != "" {
		return b.o.providerSrc
	}
	return "."
}
