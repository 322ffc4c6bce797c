//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// The apply series: terraform apply of N new mediaplatform_score (wait_for_rendering
// = true, the default) on an emulator with its default rendering time (0.5 s in each
// of pending and rendering), with render_wait shared and individual side by side:
// at 0 ms with Terraform's default parallelism and with -parallelism=50, at the
// latency of the plan series, under a rate limit, and on a platform whose publish
// answers the score final (no read of a score follows); then terraform destroy of the
// same N. Requests by kind and wall time of each.

// finalAnswers is the apply condition on a platform whose publish answers the score
// at its final status (the emulator's reading synchronousRendering), at 0 ms and
// Terraform's default parallelism.
const finalAnswers = "final answers, 0 ms"

// applyRateLimit is the rate limit of the apply series, requests per second.
const applyRateLimit = 30

// applyRateLimitRuns is how many times each apply under the rate limit runs (the
// median is reported): its wall moves by ±10 % between runs.
const applyRateLimitRuns = 3

type applyResult struct {
	N          int              `json:"n"`
	Conditions []applyCondition `json:"conditions"`
	Destroy    applyMeasure     `json:"destroy"`
}

type applyCondition struct {
	Name        string                  `json:"name"`
	Parallelism int                     `json:"parallelism"`
	Runs        int                     `json:"runs"`
	Applies     map[string]applyMeasure `json:"applies"` // by render_wait
}

type applyMeasure struct {
	// Wall is the median of WallRuns, seconds.
	Wall     float64   `json:"wall"`
	WallRuns []float64 `json:"wallRuns"`
	// Requests are all the requests of the first run (those answered 429 included);
	// Publishes, StatusReads (GET /scores/{id}, GET /scores, the count) and Deletes
	// its parts.
	Requests    int `json:"requests"`
	Publishes   int `json:"publishes"`
	StatusReads int `json:"statusReads"`
	Deletes     int `json:"deletes"`
	// Other is every other request (logins, the token flow, the refresh).
	Other map[string]int `json:"other"`
}

var renderWaits = []string{client.RenderWaitShared, client.RenderWaitIndividual}

// measureApply runs the apply series for N scores on an emulator of its own with the
// default rendering time.
func (b *bench) measureApply(ctx context.Context, n int) (*applyResult, error) {
	// The emulator's default rendering time: 0.5 s in each of pending and rendering.
	emu, err := startEmulator(ctx, filepath.Join(b.work, "bin", "mediaplatform-emulator"), b.work, "apply-emulator.log", "500ms")
	if err != nil {
		return nil, err
	}
	defer func() { _ = emu.stop() }()
	env := []string{
		client.EnvAdminURL + "=" + emu.addr.AdminURL, client.EnvPlatformURL + "=" + emu.addr.PlatformURL,
		client.EnvPublishingURL + "=" + emu.addr.PublishingURL,
	}
	dir, err := b.workspace(fmt.Sprintf("apply-%d", n), scoreConfig(n))
	if err != nil {
		return nil, err
	}
	r := &applyResult{N: n}
	conditions := []struct {
		name, faults string
		parallelism  int
		runs         int
		waits        []string
	}{
		{"0 ms", `{}`, 10, 1, renderWaits},
		{"0 ms, -parallelism=50", `{}`, 50, 1, renderWaits},
		// A platform whose publish answers the score final (rendered or failed): the
		// provider reads no score after it, whatever render_wait says.
		{finalAnswers, `{"readings": {"synchronousRendering": true}}`, 10, 1, renderWaits},
	}
	if b.o.latencyMs > 0 {
		conditions = append(conditions, struct {
			name, faults string
			parallelism  int
			runs         int
			waits        []string
		}{fmt.Sprintf("%d ms latency", b.o.latencyMs), fmt.Sprintf(`{"latencyMs": %d}`, b.o.latencyMs), 10, 1, renderWaits})
	}
	// Under the rate limit one poll per score spends five requests a score: at N = 1000
	// one such apply takes minutes, and runs once; the shared wait runs three times.
	limited := renderWaits
	if n >= 1000 {
		limited = []string{client.RenderWaitShared}
	}
	// At Terraform's default parallelism the rendering bounds the apply (10 creates
	// per rendering time, about 9 publishes a second), below the rate limit; at 50 the
	// limit binds.
	for _, parallelism := range []int{10, 50} {
		name := fmt.Sprintf("%d requests/s", applyRateLimit)
		if parallelism != 10 {
			name += fmt.Sprintf(", -parallelism=%d", parallelism)
		}
		conditions = append(conditions, struct {
			name, faults string
			parallelism  int
			runs         int
			waits        []string
		}{name, fmt.Sprintf(`{"rateLimitPerSecond": %d}`, applyRateLimit), parallelism, applyRateLimitRuns, limited})
	}
	if b.o.applyCondition != "" {
		conditions = slices.DeleteFunc(conditions, func(c struct {
			name, faults string
			parallelism  int
			runs         int
			waits        []string
		}) bool {
			return !slices.ContainsFunc(strings.Split(b.o.applyCondition, "|"), func(prefix string) bool {
				return strings.HasPrefix(c.name, prefix)
			})
		})
	}

	for _, cond := range conditions {
		c := applyCondition{Name: cond.name, Parallelism: cond.parallelism, Runs: cond.runs, Applies: map[string]applyMeasure{}}
		for _, wait := range cond.waits {
			var m applyMeasure
			for run := range cond.runs {
				fmt.Fprintf(os.Stderr, "bench: apply series, N = %d, %s, render_wait = %s, run %d\n", n, cond.name, wait, run+1)
				if err := emu.reset(ctx); err != nil {
					return nil, err
				}
				if err := os.RemoveAll(filepath.Join(dir, "terraform.tfstate")); err != nil {
					return nil, err
				}
				if err := emu.setFaults(ctx, cond.faults); err != nil {
					return nil, err
				}
				before, err := emu.stats(ctx)
				if err != nil {
					return nil, err
				}
				d, _, err := b.tf(ctx, dir, b.cli, append(slices.Clone(env), client.EnvRenderWait+"="+wait),
					"apply", "-auto-approve", fmt.Sprintf("-parallelism=%d", cond.parallelism))
				if err != nil {
					return nil, err
				}
				after, err := emu.stats(ctx)
				if err != nil {
					return nil, err
				}
				m.WallRuns = append(m.WallRuns, d.Seconds())
				if run == 0 {
					m.count(emu, after.minus(before))
				}
			}
			m.Wall = median(m.WallRuns)
			c.Applies[wait] = m
		}
		r.Conditions = append(r.Conditions, c)
	}

	// The destroy of the last apply's N scores, at 0 ms.
	if err := emu.setFaults(ctx, `{}`); err != nil {
		return nil, err
	}
	before, err := emu.stats(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: destroy series, N = %d\n", n)
	d, _, err := b.tf(ctx, dir, b.cli, env, "destroy", "-auto-approve")
	if err != nil {
		return nil, err
	}
	after, err := emu.stats(ctx)
	if err != nil {
		return nil, err
	}
	r.Destroy.WallRuns, r.Destroy.Wall = []float64{d.Seconds()}, d.Seconds()
	r.Destroy.count(emu, after.minus(before))
	return r, nil
}

// count sorts the requests of one command by kind.
func (m *applyMeasure) count(emu *emulatorProcess, delta stats) {
	scores := emu.publishingPath() + "/scores"
	m.Requests = delta.total()
	m.Other = map[string]int{}
	for route, k := range delta.Requests {
		switch route {
		case "POST " + scores:
			m.Publishes += k
		case "GET " + scores + "/{id}", "GET " + scores, "POST " + scores + "/count", "GET " + scores + "/count":
			m.StatusReads += k
		case "DELETE " + scores + "/{id}":
			m.Deletes += k
		default:
			m.Other[route] += k
		}
	}
}

// reportApply writes the apply and destroy series and their targets.
func (b *bench) reportApply(w io.Writer) {
	if len(b.res.Apply) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Apply: N new scores waiting for their rendering, render_wait shared and individual\n\n")
	fmt.Fprintf(w, "| N | condition | runs | requests shared / individual | status reads shared / individual | wall shared / individual (s) | shared ÷ individual wall |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|\n")
	for _, r := range b.res.Apply {
		for _, c := range r.Conditions {
			s, i := c.Applies[client.RenderWaitShared], c.Applies[client.RenderWaitIndividual]
			iReq, iReads, iWall, ratio := "—", "—", "—", "—"
			if len(i.WallRuns) > 0 {
				iReq, iReads, iWall = fmt.Sprint(i.Requests), fmt.Sprint(i.StatusReads), fmt.Sprintf("%.1f", i.Wall)
				ratio = fmt.Sprintf("%.2f", s.Wall/i.Wall)
			}
			fmt.Fprintf(w, "| %d | %s | %d | %d / %s | %d / %s | %.1f / %s | %s |\n", r.N, c.Name, c.Runs,
				s.Requests, iReq, s.StatusReads, iReads, s.Wall, iWall, ratio)
		}
	}
	fmt.Fprintf(w, "\n### Requests by kind at 0 ms: a publish answered pending, and answered final\n\n")
	fmt.Fprintf(w, "Status reads are every `GET /scores`, `GET /scores/{id}` and count; the rest is the token flow's.\n\n")
	fmt.Fprintf(w, "| N | platform | render_wait | requests | publishes | status reads | the rest |\n|---|---|---|---|---|---|---|\n")
	for _, r := range b.res.Apply {
		for _, c := range r.Conditions {
			platform := map[string]string{"0 ms": "answers pending", finalAnswers: "answers final"}[c.Name]
			if platform == "" {
				continue
			}
			for _, wait := range renderWaits {
				if m, ok := c.Applies[wait]; ok {
					fmt.Fprintf(w, "| %d | %s | %s | %d | %d | %d | %s |\n", r.N, platform, wait, m.Requests, m.Publishes, m.StatusReads, formatRequests(m.Other))
				}
			}
		}
	}
	fmt.Fprintf(w, "\n## Destroy of the N scores (0 ms)\n\n| N | requests | DELETEs | requests per score | wall (s) | the rest |\n|---|---|---|---|---|---|\n")
	for _, r := range b.res.Apply {
		d := r.Destroy
		fmt.Fprintf(w, "| %d | %d | %d | %.3f | %.1f | %s |\n", r.N, d.Requests, d.Deletes, float64(d.Requests)/float64(r.N), d.Wall,
			formatRequests(d.Other))
	}
	fmt.Fprintf(w, "\nAll apply runs (wall seconds):\n\n")
	for _, r := range b.res.Apply {
		for _, c := range r.Conditions {
			var parts []string
			for _, wait := range renderWaits {
				if m, ok := c.Applies[wait]; ok {
					parts = append(parts, fmt.Sprintf("%s %s (other requests: %s)", wait, formatRuns(m.WallRuns), formatRequests(m.Other)))
				}
			}
			fmt.Fprintf(w, "- N = %d, %s: %s\n", r.N, c.Name, strings.Join(parts, "; "))
		}
	}
	targets := applyTargets(b.res.Apply)
	fmt.Fprintf(w, "\n### Targets of the shared rendering wait\n\n| case | target | measured | met? |\n|---|---|---|---|\n")
	for _, t := range targets {
		verdict := "met"
		if !t.met {
			verdict = "**missed**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", t.what, t.target, t.measured, verdict)
	}
}

// applyTargets checks the apply series against the targets of the shared wait.
func applyTargets(results []applyResult) []refreshTarget {
	var out []refreshTarget
	for _, r := range results {
		for _, c := range r.Conditions {
			s, i := c.Applies[client.RenderWaitShared], c.Applies[client.RenderWaitIndividual]
			where := fmt.Sprintf("apply, N = %d, %s", r.N, c.Name)
			switch {
			case r.N == 1000 && c.Name == "0 ms":
				out = append(out, refreshTarget{where, "≤ 1,100 requests in all; wall ≤ one poll per score",
					fmt.Sprintf("%d requests; %.1f s vs %.1f s (%.2f ×)", s.Requests, s.Wall, i.Wall, s.Wall/i.Wall),
					s.Requests <= 1100 && s.Wall <= i.Wall})
			case r.N == 1000 && strings.Contains(c.Name, "requests/s"):
				// The publishes alone at the rate limit; at parallelism P the rendering alone
				// (N ÷ P creates, each waiting the emulator's 1 s) bounds the apply too.
				floor := max(float64(r.N)/applyRateLimit, float64(r.N)/float64(c.Parallelism))
				out = append(out, refreshTarget{where, "≤ 1.2 × the publishes alone at that rate (or the rendering, when that is longer); no 429 reaches the user",
					fmt.Sprintf("%.1f s (median of %s) vs %.1f s: %.2f ×; every apply succeeded, %d requests", s.Wall, formatRuns(s.WallRuns),
						floor, s.Wall/floor, s.Requests),
					s.Wall <= 1.2*floor})
			case r.N == 1000 && c.Parallelism == 50:
				out = append(out, refreshTarget{where, "≤ 1,050 requests in all; wall ≤ 0.8 × one poll per score",
					fmt.Sprintf("%d requests; %.1f s vs %.1f s (%.2f ×)", s.Requests, s.Wall, i.Wall, s.Wall/i.Wall),
					s.Requests <= 1050 && s.Wall <= 0.8*i.Wall})
			case r.N == 10 && c.Name == "0 ms":
				out = append(out, refreshTarget{where, "no worse than one poll per score (requests and wall)",
					fmt.Sprintf("%d / %d requests; %.1f s vs %.1f s", s.Requests, i.Requests, s.Wall, i.Wall),
					s.Requests <= i.Requests && s.Wall <= i.Wall*1.05})
			}
		}
		if r.N == 1000 {
			perScore := float64(r.Destroy.Requests) / float64(r.N)
			out = append(out, refreshTarget{fmt.Sprintf("destroy, N = %d", r.N), "≤ 1.05 requests per score",
				fmt.Sprintf("%.3f (%d DELETEs of %d requests)", perScore, r.Destroy.Deletes, r.Destroy.Requests), perScore <= 1.05})
		}
	}
	return out
}
