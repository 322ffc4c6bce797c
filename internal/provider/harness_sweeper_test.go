package provider

// Sweepers remove what acceptance runs left on an external platform when they were
// interrupted before Terraform destroyed their objects:
//
//	go test ./internal/provider -v -sweep=all    (make sweep)
//
// They read the platform's addresses and accounts from the provider's MEDIAPLATFORM_*
// variables and delete every object named with accPrefix, whoever created it.

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

func init() {
	resource.AddTestSweepers("mediaplatform_score", &resource.Sweeper{
		Name: "mediaplatform_score",
		F: func(string) error { // the platform has no regions
			var cfg client.Config
			cfg.ApplyEnv(nil)
			c, err := client.New(cfg)
			if err != nil {
				return err
			}
			defer func() { _ = c.Close(context.Background()) }()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			_, err = sweepScores(ctx, c, os.Stdout)
			return err
		},
	})
}

// isTestScore reports whether the acceptance tests created s: its alias or the file
// name of its score URL starts with accPrefix.
func isTestScore(s *client.Score) bool {
	if strings.HasPrefix(s.Alias, accPrefix) {
		return true
	}
	u, err := url.Parse(s.ScoreURL)
	return err == nil && strings.HasPrefix(path.Base(u.Path), accPrefix)
}

// sweepScores deletes every test score on the platform, with its renderings, and
// reports each one and the total on out. It lists all pages first, so that deleting
// does not shift the pages still to read.
func sweepScores(ctx context.Context, c *client.Client, out io.Writer) (int, error) {
	scores, err := c.ListAllScores(ctx, client.ScoreCriteria{}, 0, 0)
	if err != nil {
		return 0, fmt.Errorf("listing scores: %w", err)
	}
	deleted := 0
	for _, s := range scores {
		if !isTestScore(s) {
			continue
		}
		if err := c.DeleteScore(ctx, s.ID, true); err != nil && !client.IsNotFound(err) {
			return deleted, fmt.Errorf("deleting score %s (%s): %w", s.ID, s.ScoreURL, err)
		}
		deleted++
		name := s.Alias
		if name == "" {
			name = "(no alias) " + s.ScoreURL
		}
		fmt.Fprintf(out, "sweeper: deleted score %s %s\n", s.ID, name)
	}
	fmt.Fprintf(out, "sweeper: deleted %d of %d scores (the others are not named %s*)\n", deleted, len(scores), accPrefix)
	return deleted, nil
}

func TestIsTestScore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		alias, scoreURL string
		want            bool
	}{
		{"tf-acc-x1y2z3", "https://cdn.example/scores/sonata.sib", true},
		{"", "https://cdn.example/scores/tf-acc-x1y2z3.sib", true},
		{"", "https://scores.invalid/tf-acc-x1y2z3-bad.sib?v=2", true},
		{"sonata-op-1", "https://cdn.example/scores/sonata.sib", false},
		{"", "https://cdn.example/tf-acc-x1y2z3/sonata.sib", false}, // only the file name counts
		{"my-tf-acc-score", "https://cdn.example/scores/my-tf-acc-score.sib", false},
		{"", "https://tf-acc-host.example/", false},
	} {
		if got := isTestScore(&client.Score{Alias: tc.alias, ScoreURL: tc.scoreURL}); got != tc.want {
			t.Errorf("isTestScore(alias %q, url %q) = %v, want %v", tc.alias, tc.scoreURL, got, tc.want)
		}
	}
}

// TestSweepScores sweeps an emulator holding more test scores than one list page,
// and scores of others: only the test scores go, all of them. It always starts an
// emulator of its own: sweeping a shared platform would delete the scores of the
// tests running beside it.
func TestSweepScores(t *testing.T) {
	t.Parallel()
	emu := startTestEmulator(t, emulator.Options{RenderDelay: testRenderDelay})
	c := emu.client(t)
	ctx := t.Context()
	publish := func(in client.PublishScoreInput) {
		t.Helper()
		if _, err := c.PublishScore(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	const aliased, unaliased = 110, 5
	for i := range aliased {
		name := fmt.Sprintf("%s%03d", accPrefix, i)
		publish(client.PublishScoreInput{ScoreURL: "https://cdn.example/scores/sonata.sib", Alias: name})
	}
	for range unaliased {
		publish(client.PublishScoreInput{ScoreURL: accScoreURL(accName())})
	}
	kept := []string{"sonata-op-1", "etude"}
	for _, alias := range kept {
		publish(client.PublishScoreInput{ScoreURL: "https://cdn.example/scores/" + alias + ".sib", Alias: alias})
	}
	publish(client.PublishScoreInput{ScoreURL: "https://cdn.example/scores/nocturne.sib"})

	var report strings.Builder
	n, err := sweepScores(ctx, c, &report)
	if err != nil {
		t.Fatal(err)
	}
	if n != aliased+unaliased {
		t.Errorf("swept %d scores, want %d", n, aliased+unaliased)
	}
	if lines := strings.Count(report.String(), "sweeper: deleted score "); lines != n {
		t.Errorf("the report names %d scores, want %d:\n%s", lines, n, report.String())
	}
	if !strings.Contains(report.String(), fmt.Sprintf("deleted %d of %d scores", n, n+len(kept)+1)) {
		t.Errorf("the report lacks the total:\n%s", report.String())
	}
	left, err := c.ListAllScores(ctx, client.ScoreCriteria{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var aliases []string
	for _, s := range left {
		aliases = append(aliases, s.Alias)
	}
	slices.Sort(aliases)
	if want := []string{"", "etude", "sonata-op-1"}; !slices.Equal(aliases, want) {
		t.Errorf("left after the sweep: aliases %q, want %q", aliases, want)
	}
}
