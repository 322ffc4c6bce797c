package client

// Readings of the specification found by walking its "not shown" endpoint by endpoint
// (docs/development/platform-readings.md): each test switches the emulator to one
// reading and drives the client through the calls it changes.

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// readingEnv is an emulator serving the named readings and a client of it.
func readingEnv(t *testing.T, names ...string) (*emuEnv, *Client) {
	t.Helper()
	var r emulator.Readings
	for _, n := range names {
		if err := r.Set(n); err != nil {
			t.Fatal(err)
		}
	}
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: r}})
	return env, env.client()
}

// TestExpiredCredentialsAnswered403: a platform that answers an expired session or
// token with 403 instead of 401 gets one fresh login before the 403 is taken for a
// missing right; an account that lacks the right still gets the permission error
// (field report 1: "logged in but not an administrator" after a long apply).
func TestExpiredCredentialsAnswered403(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "forbiddenWhenExpired")
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Fatal(err)
	}
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/a.sib"})
	if err != nil {
		t.Fatal(err)
	}
	env.emu.Expire(true, true)
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Errorf("settings after the session expired: %v", err)
	}
	if _, err := c.GetScore(env.ctx, s.ID); err != nil {
		t.Errorf("a score after the token expired: %v", err)
	}
	if n := env.stats().Logins["admin"]; n != 2 {
		t.Errorf("%d administrator logins, want 2 (one fresh session after the 403)", n)
	}

	viewer := env.client(func(cfg *Config) {
		cfg.AdminUsername, cfg.AdminPassword = emulatortest.ViewerUsername, emulatortest.ViewerPassword
	})
	for i := range 2 { // with a fresh session, then with one held from before
		if _, err := viewer.GetExternalAuthentication(env.ctx); !IsForbidden(err) {
			t.Errorf("call %d of an account without the right: %v, want 403", i+1, err)
		}
	}
}

// TestBareCount: a count answered as a bare number (field report 2) is read as the
// contract's {"count": n}, and the batched refresh, which lists only once a count
// answered, then lists. How many reads the listing answers depends on the machine's
// speed (a read waits for a page no longer than its own GET takes), so it is not
// counted here: 38 of 150 reads went to GETs in one loaded CI run.
func TestBareCount(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "bareCount")
	var ids []string
	for i := range 150 {
		s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/" + strings.Repeat("c", i+1) + ".sib"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	for _, in := range []CountScoresInput{{}, {Offset: 100}, {Criteria: ScoreCriteria{ScoreURL: "https://cdn.example/c.sib"}}} {
		want := map[bool]int{true: 1, false: 150 - in.Offset}[in.Criteria.ScoreURL != ""]
		if n, err := c.CountScores(env.ctx, in); err != nil || n != want {
			t.Errorf("count %+v: %d, %v; want %d", in, n, err, want)
		}
	}
	reader := env.client()
	before := env.stats()
	refreshAll(env.ctx, t, reader, ids)
	after := env.stats()
	route := func(method, path string) int {
		key := method + " " + env.emu.PublishingURL("") + path
		return after.Requests[key] - before.Requests[key]
	}
	if route("GET", "/scores") == 0 {
		t.Errorf("the batched refresh of 150 scores read %d of them by GET and listed none: it did not use the count (%d counts)",
			route("GET", "/scores/{id}"), route("POST", "/scores/count")+route("GET", "/scores/count"))
	}
}

// TestHealthOfAnyShape: the health call, which the specification calls unreliable,
// reports what a 2xx says whatever its form (field report 3): text "OK" is healthy;
// an answer that says nothing is "unknown", never an error.
func TestHealthOfAnyShape(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "textHealth")
	h, err := c.Health(env.ctx)
	if err != nil || h.Status != "OK" || !h.Healthy || h.Note != "" {
		t.Fatalf("text health: %+v, %v", h, err)
	}
	// An HTML page for the health call alone: unknown, with why; a page on the way
	// (the login) is still the error it is.
	proxied, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Path: `/core/health$`, Respond: blockedPage})
	if h, err := proxied.Health(env.ctx); err != nil || h.Status != healthUnknown || h.Healthy || !strings.Contains(h.Note, "HTML page") {
		t.Errorf("an HTML health page: %+v, %v", h, err)
	}
	for body, want := range map[string]string{
		`{"service":{"healthStatus":"ok","healthVerifier":"default"}}`: "ok",
		`{"status":"UP"}`:     "UP",
		`{"checks":[]}`:       healthUnknown,
		"<html>broken</html>": healthUnknown,
		"":                    healthUnknown,
	} {
		if got := readHealth([]byte(body)); got.Status != want || (want == healthUnknown) != (got.Note != "") {
			t.Errorf("health answer %q: %+v, want status %q", body, got, want)
		}
	}
}

// TestMinimalPublishAnswer: a publish answered with the new score's id alone (field
// report 4) is read back, so that the state gets the score's scoreUrl, alias and
// status; the fallback is logged once at WARN.
func TestMinimalPublishAnswer(t *testing.T) {
	t.Parallel()
	env, _ := readingEnv(t, "minimalPublishAnswer")
	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)
	c := env.client()
	for i := range 2 {
		alias := "minimal-" + string(rune('a'+i))
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/" + alias + ".sib", Alias: alias})
		if err != nil || s.ScoreURL != "https://cdn.example/"+alias+".sib" || s.Alias != alias || s.Status == "" || s.CreatedAt.IsZero() {
			t.Fatalf("publish answered with its id alone: %+v, %v", s, err)
		}
	}
	if n := strings.Count(logs.String(), `"@level":"warn"`); n != 1 {
		t.Errorf("%d WARN lines for the read-back, want 1:\n%s", n, logs.String())
	}
}

// TestBareBodies: every score endpoint answered without its wrapper (the score, the
// view, the list as an array, the count as a number) reads as the contract's form.
func TestBareBodies(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "bareBodies", "bareCount", "deleteAnswersScore")
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/bare.sib", Alias: "bare"})
	if err != nil || s.ScoreURL == "" || s.Alias != "bare" {
		t.Fatalf("publish: %+v, %v", s, err)
	}
	if got, err := c.GetScore(env.ctx, "bare"); err != nil || got.ID != s.ID {
		t.Fatalf("get: %+v, %v", got, err)
	}
	if list, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0); err != nil || len(list) != 1 || list[0].ID != s.ID {
		t.Fatalf("list: %v, %v", list, err)
	}
	if n, err := c.CountScores(env.ctx, CountScoresInput{Criteria: ScoreCriteria{Status: s.Status}}); err != nil || n != 1 {
		t.Fatalf("count: %d, %v", n, err)
	}
	if v, err := c.CreateView(env.ctx, "bare", ViewInput{}); err != nil || v.ViewerURL == "" {
		t.Fatalf("view: %+v, %v", v, err)
	}
	if err := c.DeleteScore(env.ctx, "bare", false); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := c.GetScore(env.ctx, "bare"); !IsNotFound(err) {
		t.Fatalf("after the delete: %v", err)
	}
}

// TestEmptySettingsAnswer: a PUT of the settings answered 204 with no body is read
// back, so the stored settings are what the caller gets.
func TestEmptySettingsAnswer(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "emptySettingsAnswer")
	got, err := c.PutExternalAuthentication(env.ctx, ExternalAuthentication{DomainName: "CORP", Enabled: true,
		Servers: []AuthServer{{Address: "dc1.corp.example", Port: 636, Enabled: true}}})
	if err != nil || got.DomainName != "CORP" || len(got.Servers) != 1 || got.Servers[0].Port != 636 {
		t.Fatalf("settings stored with an empty answer: %+v, %v", got, err)
	}
}
