package client

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestDeleteAccepted: a delete answered 202 Accepted returns once the score is gone,
// so that publishing its alias again right after it does not meet a 409 (replacing
// an aliased score, destroy then apply).
func TestDeleteAccepted(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "deleteAccepted")
	in := PublishScoreInput{ScoreURL: "https://cdn.example/accepted.sib", Alias: "accepted"}
	s, err := c.PublishScore(env.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteScore(env.ctx, s.ID, false); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := c.GetScore(env.ctx, s.ID); !IsNotFound(err) {
		t.Errorf("the score after its delete returned: %v, want not found", err)
	}
	in.ScoreURL = "https://cdn.example/accepted-2.sib"
	if _, err := c.PublishScore(env.ctx, in); err != nil {
		t.Errorf("publishing the alias again: %v", err)
	}

	// Within a timeout shorter than the platform takes, the delete says so.
	s2, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/accepted-3.sib"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(env.ctx, 300*time.Millisecond)
	defer cancel()
	if err := c.DeleteScore(ctx, s2.ID, false); err == nil || !strings.Contains(err.Error(), "accepted the delete") {
		t.Errorf("a delete not carried out within the timeout: %v", err)
	}
}

func TestScoreNotFoundNeedsTheCollection(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})

	// A publishing address the platform does not serve answers 404 for every score:
	// that is an address error, never "gone".
	wrong := env.client(func(cfg *Config) {
		cfg.PublishingURL = env.srv.AdminURL() + "/apis/media.publishin;version=2;realm=global"
	})
	for name, call := range map[string]func() error{
		"get":    func() error { _, err := wrong.GetScore(env.ctx, "some-alias"); return err },
		"delete": func() error { return wrong.DeleteScore(env.ctx, "some-alias", false) },
	} {
		err := call()
		if IsNotFound(err) || !IsAddressError(err) {
			t.Errorf("%s through a wrong publishing_url: IsNotFound %v, IsAddressError %v: %v", name, IsNotFound(err), IsAddressError(err), err)
		}
		if err != nil && !strings.Contains(err.Error(), "publishing_url") {
			t.Errorf("%s: the error does not name publishing_url: %v", name, err)
		}
	}

	// The right address: a missing score is gone, and the collection is asked once.
	c := env.client()
	before := env.stats().Requests["GET "+routeScores]
	for range 3 {
		if _, err := c.GetScore(env.ctx, "missing"); !IsNotFound(err) {
			t.Fatalf("missing score: %v", err)
		}
	}
	if err := c.DeleteScore(env.ctx, "missing", false); !IsNotFound(err) {
		t.Fatalf("deleting a missing score: %v", err)
	}
	if n := env.stats().Requests["GET "+routeScores] - before; n != 1 {
		t.Errorf("%d score list requests to confirm four 404s, want 1 (remembered)", n)
	}
}
