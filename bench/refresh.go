package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// The refresh series: the plan of N managed scores on a platform holding N and
// holding refreshPlatform scores, with refresh_strategy auto and individual side by
// side, at 0 and latency ms, and under a rate limit.

// refreshPlatform is the size of the large platform of the refresh series.
const refreshPlatform = 10000

// refreshRateLimit is the rate limit of the refresh series, requests per second.
const refreshRateLimit = 30

type refreshResult struct {
	N        int `json:"n"`
	Platform int `json:"platform"`
	// Conditions, in order: 0 ms, the latency series, the rate limit.
	Conditions []refreshCondition `json:"conditions"`
}

type refreshCondition struct {
	Name string `json:"name"`
	// Runs of each plan (the rate-limited series runs fewer).
	Runs      int                       `json:"runs"`
	NoRefresh float64                   `json:"noRefreshPlan"`
	Plans     map[string]refreshMeasure `json:"plans"` // by refresh_strategy
}

type refreshMeasure struct {
	// Medians of wall and CPU seconds; the ratio is Wall / the -refresh=false plan.
	Wall  float64 `json:"wall"`
	CPU   float64 `json:"cpu"`
	Ratio float64 `json:"ratioToNoRefresh"`
	// ScoreRequests are the requests of one plan that read scores (GET /scores/{id},
	// GET /scores, POST /scores/count); Requests are all of them.
	ScoreRequests int       `json:"scoreRequests"`
	Requests      int       `json:"requests"`
	WallRuns      []float64 `json:"wallRuns"`
	CPURuns       []float64 `json:"cpuRuns"`
}

var refreshStrategies = []string{client.RefreshAuto, client.RefreshIndividual}

// measureRefresh runs the refresh series for N managed scores: on a platform of N,
// then, after publishing more scores beside them, on a platform of refreshPlatform.
func (b *bench) measureRefresh(ctx context.Context, n int) ([]refreshResult, error) {
	if err := b.emu.reset(ctx); err != nil {
		return nil, err
	}
	dir, err := b.workspace(fmt.Sprintf("refresh-%d", n), scoreConfig(n))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: refresh series, N = %d: creating the state\n", n)
	if _, _, err := b.tfChecked(ctx, dir, b.cli, nil, "apply", "-auto-approve", "-parallelism=20"); err != nil {
		return nil, err
	}
	var out []refreshResult
	platforms := []int{n}
	if n < refreshPlatform {
		platforms = append(platforms, refreshPlatform)
	}
	conditions := []struct {
		name, faults string
		runs         int
	}{{"0 ms", `{}`, b.o.runs}}
	if b.o.latencyMs > 0 {
		conditions = append(conditions, struct {
			name, faults string
			runs         int
		}{fmt.Sprintf("%d ms latency", b.o.latencyMs), fmt.Sprintf(`{"latencyMs": %d}`, b.o.latencyMs), b.o.runs})
	}
	// A plan at the rate limit takes N/30 s with one GET per score, and its wall moves
	// by ±10 % between runs: three runs, the median reported.
	conditions = append(conditions, struct {
		name, faults string
		runs         int
	}{fmt.Sprintf("%d requests/s", refreshRateLimit), fmt.Sprintf(`{"rateLimitPerSecond": %d}`, refreshRateLimit), min(3, b.o.runs)})
	for _, platform := range platforms {
		s, err := b.emu.stats(ctx)
		if err != nil {
			return nil, err
		}
		if extra := platform - s.Scores; extra > 0 {
			fmt.Fprintf(os.Stderr, "bench: refresh series, N = %d: publishing %d more scores\n", n, extra)
			if err := b.publishScores(ctx, extra, fmt.Sprintf("other-%d", n)); err != nil {
				return nil, err
			}
		}
		r := refreshResult{N: n, Platform: platform}
		for _, cond := range conditions {
			fmt.Fprintf(os.Stderr, "bench: refresh series, N = %d on %d: %s\n", n, platform, cond.name)
			if err := b.emu.setFaults(ctx, cond.faults); err != nil {
				return nil, err
			}
			c, err := b.refreshCondition(ctx, dir, cond.name, cond.runs)
			if err != nil {
				return nil, err
			}
			r.Conditions = append(r.Conditions, c)
		}
		if err := b.emu.setFaults(ctx, `{}`); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// refreshCondition runs the plans of one condition in rotating order: the full plan
// with each strategy and the -refresh=false plan.
func (b *bench) refreshCondition(ctx context.Context, dir, name string, runs int) (refreshCondition, error) {
	c := refreshCondition{Name: name, Runs: runs, Plans: map[string]refreshMeasure{}}
	kinds := append(slices.Clone(refreshStrategies), "-refresh=false")
	var noRefresh []float64
	measures := map[string]*refreshMeasure{}
	for _, k := range refreshStrategies {
		measures[k] = &refreshMeasure{}
	}
	score := "GET " + b.emu.publishingPath() + "/scores"
	for i := range runs {
		for j := range kinds {
			kind := kinds[(i+j)%len(kinds)]
			args := []string{"plan", "-detailed-exitcode"}
			env := []string{client.EnvRefreshStrategy + "=" + kind}
			if kind == "-refresh=false" {
				args, env = append(args, "-refresh=false"), nil
			}
			before, err := b.emu.stats(ctx)
			if err != nil {
				return c, err
			}
			d, _, err := b.tfChecked(ctx, dir, b.cli, env, args...)
			if err != nil {
				return c, err
			}
			after, err := b.emu.stats(ctx)
			if err != nil {
				return c, err
			}
			if kind == "-refresh=false" {
				noRefresh = append(noRefresh, d.Seconds())
				continue
			}
			m := measures[kind]
			m.WallRuns = append(m.WallRuns, d.Seconds())
			m.CPURuns = append(m.CPURuns, b.lastCPU.Seconds())
			if i == 0 {
				delta := after.minus(before)
				m.Requests = delta.total()
				m.ScoreRequests = delta.Requests[score+"/{id}"] + delta.Requests[score] + delta.Requests["POST "+b.emu.publishingPath()+"/scores/count"]
			}
		}
	}
	c.NoRefresh = median(noRefresh)
	for k, m := range measures {
		m.Wall, m.CPU = median(m.WallRuns), median(m.CPURuns)
		m.Ratio = m.Wall / c.NoRefresh
		c.Plans[k] = *m
	}
	return c, nil
}

// reportRefresh writes the refresh series as tables.
func (b *bench) reportRefresh(w io.Writer) {
	if len(b.res.Refresh) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Refresh: refresh_strategy auto and individual side by side\n\n")
	fmt.Fprintf(w, "| N | platform | condition | runs | score requests auto / individual | wall auto / individual / -refresh=false | "+
		"auto ÷ -refresh=false | individual ÷ -refresh=false | CPU auto / individual | CPU auto ÷ individual |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range b.res.Refresh {
		for _, c := range r.Conditions {
			a, i := c.Plans[client.RefreshAuto], c.Plans[client.RefreshIndividual]
			fmt.Fprintf(w, "| %d | %d | %s | %d | %d / %d | %.2f / %.2f / %.2f | %.2f | %.2f | %.2f / %.2f | %.2f |\n",
				r.N, r.Platform, c.Name, c.Runs, a.ScoreRequests, i.ScoreRequests, a.Wall, i.Wall, c.NoRefresh,
				a.Ratio, i.Ratio, a.CPU, i.CPU, a.CPU/i.CPU)
		}
	}
	fmt.Fprintf(w, "\nAll runs (wall seconds, then CPU seconds):\n\n")
	for _, r := range b.res.Refresh {
		for _, c := range r.Conditions {
			a, i := c.Plans[client.RefreshAuto], c.Plans[client.RefreshIndividual]
			fmt.Fprintf(w, "- N = %d on %d, %s: auto %s (CPU %s); individual %s (CPU %s)\n", r.N, r.Platform, c.Name,
				formatRuns(a.WallRuns), formatRuns(a.CPURuns), formatRuns(i.WallRuns), formatRuns(i.CPURuns))
		}
	}
	reportRefreshTargets(w, b.res.Refresh)
}

// refreshTarget is one target of the batched refresh, as measured.
type refreshTarget struct {
	what, target, measured string
	met                    bool
}

// refreshTargets checks the refresh series against the targets of the batched
// refresh (BENCHMARKS.md gives the reason for a miss).
func refreshTargets(results []refreshResult) []refreshTarget {
	var out []refreshTarget
	allAutoNoSlower, autoNoSlower := true, []string{}
	for _, r := range results {
		for _, c := range r.Conditions {
			a, i := c.Plans[client.RefreshAuto], c.Plans[client.RefreshIndividual]
			where := fmt.Sprintf("N = %d on %d, %s", r.N, r.Platform, c.Name)
			switch {
			case r.N == 100 && r.Platform == refreshPlatform:
				out = append(out, refreshTarget{where, "auto ≤ 1.1 × individual wall, ≤ 1.2 × score requests",
					fmt.Sprintf("%.2f × wall, %.2f × requests (%d / %d)", a.Wall/i.Wall, float64(a.ScoreRequests)/float64(i.ScoreRequests),
						a.ScoreRequests, i.ScoreRequests),
					a.Wall <= 1.1*i.Wall && float64(a.ScoreRequests) <= 1.2*float64(i.ScoreRequests)})
			case r.N == 1000 && r.Platform == refreshPlatform && strings.Contains(c.Name, "latency"):
				out = append(out, refreshTarget{where, "auto ≤ 0.7 × individual wall, ≤ 250 score requests",
					fmt.Sprintf("%.2f × wall, %d requests", a.Wall/i.Wall, a.ScoreRequests), a.Wall <= 0.7*i.Wall && a.ScoreRequests <= 250})
			case r.N == 1000 && r.Platform == 1000:
				out = append(out, refreshTarget{where, "≤ 15 score requests", fmt.Sprint(a.ScoreRequests), a.ScoreRequests <= 15})
				if strings.Contains(c.Name, "latency") {
					out = append(out, refreshTarget{where, "full plan ≤ 1.2 × -refresh=false", fmt.Sprintf("%.2f", a.Ratio), a.Ratio <= 1.2})
				}
			case r.N == 10 && r.Platform == refreshPlatform:
				out = append(out, refreshTarget{where, "≤ 11 score requests", fmt.Sprint(a.ScoreRequests), a.ScoreRequests <= 11})
			}
			if strings.Contains(c.Name, "requests/s") {
				ok := a.Wall <= i.Wall
				allAutoNoSlower = allAutoNoSlower && ok
				autoNoSlower = append(autoNoSlower, fmt.Sprintf("%d on %d: %.2f / %.2f", r.N, r.Platform, a.Wall, i.Wall))
			}
		}
	}
	if len(autoNoSlower) > 0 {
		out = append(out, refreshTarget{"under the rate limit", "every plan succeeds (no 429 reaches the user); auto ≤ individual wall",
			"all plans succeeded; " + strings.Join(autoNoSlower, ", "), allAutoNoSlower})
	}
	return out
}

func reportRefreshTargets(w io.Writer, results []refreshResult) {
	targets := refreshTargets(results)
	if len(targets) == 0 {
		return
	}
	fmt.Fprintf(w, "\n### Targets of the batched refresh\n\n| case | target | measured | met? |\n|---|---|---|---|\n")
	for _, t := range targets {
		verdict := "met"
		if !t.met {
			verdict = "**missed**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", t.what, t.target, t.measured, verdict)
	}
}
