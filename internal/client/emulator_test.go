package client

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

func TestEmulatorAdmin(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	s, err := c.GetExternalAuthentication(ctx)
	if err != nil || s.DomainName != "" || s.Enabled || len(s.Servers) != 0 {
		t.Fatalf("initial settings %+v %v", s, err)
	}
	want := ExternalAuthentication{DomainName: "CORP", Enabled: true, Servers: []AuthServer{
		{Address: "dc1.corp.example", Port: 389, Enabled: true},
		{Address: "dc2.corp.example", Port: 636, Enabled: false},
	}}
	put, err := c.PutExternalAuthentication(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetExternalAuthentication(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*ExternalAuthentication{put, got} {
		if s.DomainName != want.DomainName || s.Enabled != want.Enabled || fmt.Sprint(s.Servers) != fmt.Sprint(want.Servers) {
			t.Errorf("settings %+v, want %+v", s, want)
		}
	}
	// PUT replaces: fewer servers remove the others.
	got, err = c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "CORP"})
	if err != nil || len(got.Servers) != 0 || got.Enabled {
		t.Fatalf("replace: %+v %v", got, err)
	}
	_, err = c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: ""})
	if !IsBadArgument(err) {
		t.Errorf("empty domain: %v", err)
	}
	_, err = c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "X", Servers: []AuthServer{{Address: "h", Port: 70000, Enabled: true}}})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Params["field"] != "port0" {
		t.Errorf("bad port: %v", err)
	}
	sess, err := c.CheckSession(ctx)
	if err != nil || !sess.Valid || sess.User != "admin" {
		t.Errorf("session %+v %v", sess, err)
	}

	viewer := env.client(func(c *Config) {
		c.AdminUsername, c.AdminPassword = emulatortest.ViewerUsername, emulatortest.ViewerPassword
	})
	if _, err := viewer.GetExternalAuthentication(ctx); !IsForbidden(err) {
		t.Errorf("viewer: %v", err)
	}

	before := env.stats().Logins["admin"]
	wrong := env.client(func(c *Config) { c.AdminPassword = "not-the-password" })
	_, err = wrong.GetExternalAuthentication(ctx)
	if !IsUnauthorized(err) || !strings.Contains(err.Error(), "administrator login") || !strings.Contains(err.Error(), "failed") {
		t.Errorf("wrong password: %v", err)
	}
	if n := env.stats().Requests["POST /api/v1/login"]; n != 3 {
		t.Errorf("login requests %d, want 3 (admin, viewer, one failed)", n)
	}
	if env.stats().Logins["admin"] != before {
		t.Error("a failed login was counted as a login")
	}
}

func TestEmulatorScores(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/one.sib", Alias: "one", Transpose: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID == "" || s.Alias != "one" || !s.Transpose || s.Status != ScoreStatusPending || s.Publisher != "alice" || s.CreatedAt.IsZero() || len(s.Raw) == 0 {
		t.Errorf("published %+v", s)
	}
	if _, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/other.sib", Alias: "one"}); !IsConflict(err) {
		t.Errorf("duplicate alias: %v", err)
	}
	if _, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "not a url"}); !IsBadArgument(err) {
		t.Errorf("bad URL: %v", err)
	}
	byAlias, err := c.GetScore(ctx, "one")
	if err != nil || byAlias.ID != s.ID {
		t.Fatalf("by alias: %+v %v", byAlias, err)
	}
	done, err := c.WaitForRendering(ctx, s.ID)
	if err != nil || done.Status != ScoreStatusIdle || done.PageCount() < 1 || done.UpdatedAt.Before(done.CreatedAt) {
		t.Fatalf("rendered: %+v %v", done, err)
	}
	bad, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.invalid/broken.sib"})
	if err != nil {
		t.Fatal(err)
	}
	if bad, err = c.WaitForRendering(ctx, bad.ID); err != nil || bad.Status != ScoreStatusError || bad.PageCount() != 0 {
		t.Fatalf("broken score: %+v %v", bad, err)
	}

	idle, err := c.ListScores(ctx, ListScoresInput{Criteria: ScoreCriteria{Status: ScoreStatusIdle}})
	if err != nil || len(idle) != 1 || idle[0].ID != s.ID {
		t.Errorf("idle scores %v %v", idle, err)
	}
	byURL, err := c.ListScores(ctx, ListScoresInput{Criteria: ScoreCriteria{ScoreURL: "https://cdn.invalid/broken.sib"}})
	if err != nil || len(byURL) != 1 || byURL[0].ID != bad.ID {
		t.Errorf("by URL %v %v", byURL, err)
	}
	byAliasList, err := c.ListScores(ctx, ListScoresInput{Criteria: ScoreCriteria{Alias: "one"}, Limit: 1})
	if err != nil || len(byAliasList) != 1 {
		t.Errorf("by alias %v %v", byAliasList, err)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{}); err != nil || n != 2 {
		t.Errorf("count %d %v", n, err)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{Criteria: ScoreCriteria{Status: ScoreStatusError}}); err != nil || n != 1 {
		t.Errorf("count errors %d %v", n, err)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{Offset: 1, Limit: 5}); err != nil || n != 1 {
		t.Errorf("count from offset %d %v", n, err)
	}

	printable := true
	v, err := c.CreateView(ctx, "one", ViewInput{Printable: &printable, Pages: "1-2,4", LicenseString: "CC-BY", Lang: "fr-CA", ExpiresIn: 60})
	if err != nil {
		t.Fatal(err)
	}
	if v.ID == "" || v.ScoreID != s.ID || !strings.Contains(v.ViewerURL, "/viewer/") || !v.Settings.Printable ||
		v.Settings.Pages != "1-2,4" || v.Settings.LicenseString != "CC-BY" || v.Settings.Lang != "fr-CA" {
		t.Errorf("view %+v", v)
	}
	if d := v.ExpiresAt.Sub(v.CreatedAt); d != time.Minute {
		t.Errorf("view lifetime %v", d)
	}
	if v, err := c.CreateView(ctx, s.ID, ViewInput{}); err != nil || v.ExpiresAt.Sub(v.CreatedAt) != 2*time.Hour {
		t.Errorf("default view: %+v %v", v, err)
	}
	if _, err := c.CreateView(ctx, s.ID, ViewInput{Pages: "3-1"}); !IsBadArgument(err) {
		t.Errorf("bad pages: %v", err)
	}
	if _, err := c.CreateView(ctx, "missing", ViewInput{}); !IsNotFound(err) {
		t.Errorf("view of missing score: %v", err)
	}

	h, err := c.Health(ctx)
	if err != nil || !h.Healthy || h.Status != "ok" || h.Verifier != "default" {
		t.Errorf("health %+v %v", h, err)
	}

	if err := c.DeleteScore(ctx, "one", true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetScore(ctx, s.ID); !IsNotFound(err) {
		t.Errorf("deleted score: %v", err)
	}
	if err := c.DeleteScore(ctx, s.ID, false); !IsNotFound(err) {
		t.Errorf("second delete: %v", err)
	}
	var apiErr *APIError
	if _, err := c.GetScore(ctx, "nope"); !errors.As(err, &apiErr) || apiErr.Code != "publishing/NOT_FOUND" || apiErr.Message == "" {
		t.Errorf("not found error: %v", err)
	}
}

func TestEmulatorRequestCounts(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/a.sib"})
	if err != nil {
		t.Fatal(err)
	}
	first := env.stats()
	// First platform call: GET /auth, GET identity providers, password grant, token
	// information (for the links Close needs), the call.
	if n := first.TotalRequests(); n != 5 {
		t.Errorf("first call cost %d requests, want 5: %v", n, first.Requests)
	}
	for range 3 {
		if _, err := c.GetScore(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	after := env.stats()
	if n := after.TotalRequests() - first.TotalRequests(); n != 3 {
		t.Errorf("3 refreshes cost %d requests, want 3: %v", n, after.Requests)
	}
	if _, err := c.GetExternalAuthentication(ctx); err != nil {
		t.Fatal(err)
	}
	if n := env.stats().TotalRequests() - after.TotalRequests(); n != 2 {
		t.Errorf("first admin call cost %d requests, want 2 (login + call)", n)
	}
	before := env.stats().TotalRequests()
	if _, err := c.GetExternalAuthentication(ctx); err != nil {
		t.Fatal(err)
	}
	if n := env.stats().TotalRequests() - before; n != 1 {
		t.Errorf("admin read cost %d requests, want 1", n)
	}
	before = env.stats().TotalRequests()
	if _, err := c.GetCommand(ctx, "c-404"); !IsNotFound(err) {
		t.Fatalf("command: %v", err)
	}
	if _, err := c.GetCommand(ctx, "c-405"); !IsNotFound(err) {
		t.Fatalf("command: %v", err)
	}
	if n := env.stats().TotalRequests() - before; n != 3 {
		t.Errorf("two command reads cost %d requests, want 3 (registry once + 2)", n)
	}
	before = env.stats().TotalRequests()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Close: DELETE removal and GET /logout, side by side (the removal link was read
	// right after the grant).
	if n := env.stats().TotalRequests() - before; n != 2 {
		t.Errorf("Close cost %d requests, want 2", n)
	}
}

func TestEmulatorPagingCounts(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1})
	c := env.client()
	ctx := env.ctx
	for i := range 250 {
		if _, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/%d.sib", i%3)}); err != nil {
			t.Fatal(err)
		}
	}
	before := env.stats().Requests["GET "+routeScores]
	all, err := c.ListAllScores(ctx, ScoreCriteria{}, 0, 0)
	if err != nil || len(all) != 250 {
		t.Fatalf("got %d scores, %v", len(all), err)
	}
	if n := env.stats().Requests["GET "+routeScores] - before; n != 3 {
		t.Errorf("list requests %d, want 3", n)
	}
	seen := map[string]bool{}
	for _, s := range all {
		seen[s.ID] = true
	}
	if len(seen) != 250 {
		t.Errorf("%d distinct scores", len(seen))
	}
	some, err := c.ListAllScores(ctx, ScoreCriteria{ScoreURL: "https://cdn.example/0.sib"}, 5, 50)
	if err != nil || len(some) != 50 {
		t.Fatalf("filtered: %d %v", len(some), err)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{Criteria: ScoreCriteria{ScoreURL: "https://cdn.example/0.sib"}}); err != nil || n != 84 {
		t.Errorf("count %d %v", n, err)
	}
}

func TestEmulatorConcurrentFirstCalls(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{LatencyMs: 5}})
	c := env.client()
	runConcurrently(t, 50, func(i int) error {
		var err error
		switch i % 5 {
		case 0:
			_, err = c.GetExternalAuthentication(env.ctx)
		case 1:
			_, err = c.ListScores(env.ctx, ListScoresInput{})
		case 2:
			_, err = c.Systems(env.ctx)
		case 3:
			_, err = c.CheckSession(env.ctx)
		case 4:
			_, err = c.SystemModel(env.ctx, "interplay-mam", "mam-1", false, "")
		}
		return err
	})
	st := env.stats()
	if st.Logins["admin"] != 1 || st.Logins["oauth"] != 1 {
		t.Errorf("logins %v, want 1 admin and 1 oauth", st.Logins)
	}
	if st.Requests["GET /auth"] != 1 || st.Requests["GET /apis/registry;version=0/serviceroots"] != 1 {
		t.Errorf("discovery %d registry %d, want 1 each", st.Requests["GET /auth"], st.Requests["GET /apis/registry;version=0/serviceroots"])
	}
}

func TestEmulatorExpiredCredentials(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx
	if _, err := c.GetExternalAuthentication(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.srv.URL+"/_emulator/expire", strings.NewReader(`{"tokens": true, "sessions": true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("expire: %v %v", resp, err)
	}
	resp.Body.Close()
	if st := env.stats(); st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Fatalf("after expire: %+v", st)
	}
	runConcurrently(t, 20, func(i int) error {
		var err error
		if i%2 == 0 {
			_, err = c.GetExternalAuthentication(ctx)
		} else {
			_, err = c.ListScores(ctx, ListScoresInput{})
		}
		return err
	})
	st := env.stats()
	if st.Logins["admin"] != 2 || st.Logins["oauth"] != 2 {
		t.Errorf("logins %v, want exactly one new login of each kind", st.Logins)
	}
	if st.Requests["GET /auth"] != 1 {
		t.Errorf("discovery repeated: %d", st.Requests["GET /auth"])
	}
}

func TestEmulatorTokenExtension(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{TokenLifetime: 3 * time.Second})
	c := env.client()
	ctx := env.ctx
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2200 * time.Millisecond)
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // past the original expiry
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	st := env.stats()
	if st.Logins["oauth"] != 1 {
		t.Errorf("oauth logins %d, want 1 (the token is extended, not re-granted)", st.Logins["oauth"])
	}
	var extensions int
	for route, n := range st.Requests {
		if strings.HasPrefix(route, "POST /auth/tokens") {
			extensions += n
		}
	}
	if extensions < 1 {
		t.Errorf("no extension: %v", st.Requests)
	}
}

func TestEmulatorFaultsDoNotDuplicateScores(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1, Faults: emulator.Faults{FailRate: 0.3, Status: 503}})
	// 0.3^11 per call keeps 400+ calls from ever running out of retries.
	c := env.client(func(c *Config) { c.MaxRetries = 10 })
	ctx := env.ctx
	for i := range 200 {
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/f.sib", Alias: fmt.Sprintf("fault-%03d", i)})
		if err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
		if s.Alias != fmt.Sprintf("fault-%03d", i) {
			t.Fatalf("publish %d: alias %q", i, s.Alias)
		}
	}
	if n := env.stats().Scores; n != 200 {
		t.Errorf("%d scores exist, want 200", n)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{}); err != nil || n != 200 {
		t.Errorf("count %d %v", n, err)
	}
	// 502 is not retried for a publish without an alias, but is for a read.
	env.emu.SetFaults(emulator.Faults{FailRate: 1, Status: 502})
	_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/g.sib"})
	if !IsUnknownOutcome(err) || !strings.Contains(err.Error(), "may have been created") {
		t.Errorf("publish after 502: %v", err)
	}
	before := env.stats().Requests["GET "+routeScoreByID]
	if _, err := c.GetScore(ctx, "fault-000"); statusOf(err) != 502 {
		t.Errorf("read after 502s: %v", err)
	}
	if n := env.stats().Requests["GET "+routeScoreByID] - before; n != 11 {
		t.Errorf("read attempts %d, want 11", n)
	}
	env.emu.SetFaults(emulator.Faults{})
}

func TestEmulatorRetryAfter(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	env.emu.SetFaults(emulator.Faults{FailRate: 1, Status: 429, RetryAfter: 1})
	go func() {
		// Lift the fault once the 429 has been answered, however slow the machine.
		for env.stats().Requests["GET "+routeScores] < 2 {
			time.Sleep(10 * time.Millisecond)
		}
		env.emu.SetFaults(emulator.Faults{})
	}()
	start := time.Now()
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second || d > 10*time.Second {
		t.Errorf("took %v, want about the 1 s Retry-After", d)
	}
	if n := env.stats().Requests["GET "+routeScores]; n != 3 {
		t.Errorf("list requests %d, want 3 (1 + a 429 + its retry)", n)
	}
}

func TestEmulatorCommands(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	id, err := env.emu.CreateCommand(emulator.CommandScript{
		Type: "datamodel:bulk-update", Creator: "alice", Parameters: map[string]any{"ids": []any{"a", "b"}},
		Steps: []emulator.CommandStep{
			{Lifecycle: "pending", Duration: 50 * time.Millisecond},
			{Lifecycle: "running", Progress: 50, Duration: 100 * time.Millisecond,
				State: &emulator.CommandStepState{Text: "Updating", Code: "datamodel/UPDATING", Params: map[string]any{"done": 1}}},
			{Lifecycle: "finished", Progress: 100},
		},
		Results: []emulator.CommandResult{
			{Success: true, Data: "a"},
			{Success: false, HTTPStatus: 409, ErrorCode: "datamodel/THUMBNAIL_CHANGED", ErrorMessage: "thumbnail changed"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := c.GetCommand(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Version != "1.0" || cmd.Command.ID != id || cmd.Command.Terminal() || cmd.Command.Type != "datamodel:bulk-update" {
		t.Errorf("command %+v", cmd.Command)
	}
	done, err := c.WaitForCommand(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	ci := done.Command
	if ci.Lifecycle != LifecycleFinished || ci.Progress == nil || *ci.Progress != 100 || ci.Finished.IsZero() ||
		ci.Creator != "alice" || ci.Host == "" || ci.ServiceName == "" || ci.Error != nil {
		t.Errorf("finished command %+v", ci)
	}
	counts, ok := done.BulkCounts()
	if !ok || counts != (BulkCounts{Total: 2, Success: 1, Failure: 1}) {
		t.Errorf("counts %+v %v", counts, ok)
	}
	if done.Payload == nil || len(done.Payload.Result) != 2 || done.Payload.Result[1].ErrorCode != "datamodel/THUMBNAIL_CHANGED" ||
		done.Payload.Result[1].HTTPStatus != 409 || done.Payload.Result[0].Data != "a" || !strings.Contains(string(done.Payload.Parameters), `"ids"`) {
		t.Errorf("payload %+v", done.Payload)
	}
	if _, err := c.CancelCommand(ctx, done); !IsForbidden(err) {
		t.Errorf("cancel finished: %v", err)
	}
	self, _ := done.Links.First("self")
	if again, err := c.GetCommandByHref(ctx, self.Href); err != nil || again.Command.ID != id {
		t.Errorf("by href: %v", err)
	}

	failing, _ := env.emu.CreateCommand(emulator.CommandScript{
		Steps: []emulator.CommandStep{{Lifecycle: "running", Duration: 50 * time.Millisecond}, {Lifecycle: "error"}},
		Error: &emulator.CommandError{Cause: "timeout", HTTPCode: 504, Text: "too slow", Code: "commands/TIMEOUT"},
	})
	cmd, err = c.GetCommand(ctx, failing)
	if err != nil {
		t.Fatal(err)
	}
	if cmd, err = c.WaitForCommand(ctx, cmd); err != nil || cmd.Command.Lifecycle != LifecycleError || cmd.Command.Error == nil ||
		cmd.Command.Error.Cause != "timeout" || cmd.Command.Error.HTTPCode != 504 || cmd.Command.Error.Code != "commands/TIMEOUT" {
		t.Errorf("failed command %+v %v", cmd.Command, err)
	}

	suspended, _ := env.emu.CreateCommand(emulator.CommandScript{Steps: []emulator.CommandStep{{Lifecycle: "suspended", Progress: 30}}})
	cmd, err = c.GetCommand(ctx, suspended)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Second) // the first read must fit in it on a loaded machine
	defer cancel()
	last, err := c.WaitForCommand(wctx, cmd)
	if !errors.Is(err, context.DeadlineExceeded) || last == nil || last.Command.Lifecycle != LifecycleSuspended {
		t.Errorf("suspended: %+v %v", last, err)
	}
	canceled, err := c.CancelCommand(ctx, cmd)
	if err != nil || canceled.Command.Lifecycle != LifecycleError || canceled.Command.Error == nil || canceled.Command.Error.Cause != "canceled" {
		t.Errorf("cancel: %+v %v", canceled, err)
	}
	if again, err := c.CancelCommand(ctx, canceled); err != nil || again.Command.Error.Cause != "canceled" {
		t.Errorf("second cancel: %+v %v", again, err)
	}
	if _, err := c.GetCommand(ctx, "c-999"); !IsNotFound(err) {
		t.Errorf("missing command: %v", err)
	}
}

func TestEmulatorDataModels(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	systems, err := c.Systems(ctx)
	if err != nil || len(systems) != 2 {
		t.Fatalf("systems %v %v", systems, err)
	}
	pam, err := c.SystemModel(ctx, "interplay-pam", "pam-1", true, "")
	if err != nil {
		t.Fatal(err)
	}
	if pam.Base != (SystemBase{"interplay-pam", "pam-1"}) || len(pam.AssetTypes) != 10 || len(pam.TimeBased) != 6 || len(pam.Attributes.Common) == 0 {
		t.Errorf("pam model: base %+v, %d asset types, %d layers, %d common", pam.Base, len(pam.AssetTypes), len(pam.TimeBased), len(pam.Attributes.Common))
	}
	for _, l := range pam.TimeBased {
		if !l.Ranged || !l.Gaps || !l.Overlap || len(l.Attributes) < 2 {
			t.Errorf("layer %+v", l)
		}
	}
	for _, a := range pam.Attributes.Common {
		if a.ID == "" || a.Type.BaseType == "" || len(a.AppliesTo) == 0 || len(a.Raw) == 0 {
			t.Errorf("attribute %+v", a)
		}
	}
	if pamNoTB, err := c.SystemModel(ctx, "interplay-pam", "pam-1", false, "fr"); err != nil || len(pamNoTB.TimeBased) != 0 {
		t.Errorf("without time-based: %v", err)
	}
	mam, err := c.SystemModel(ctx, "interplay-mam", "mam-1", true, "")
	if err != nil || len(mam.TimeBased) != 0 || len(mam.Attributes.Custom) == 0 {
		t.Errorf("mam model %v", err)
	}
	if _, err := c.SystemModel(ctx, "interplay-pam", "nope", false, ""); !IsNotFound(err) {
		t.Errorf("unknown system: %v", err)
	}

	clip, err := c.AssetModelByID(ctx, "interplay-pam", "pam-1", "clip-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(clip.Layout.AttributeGroupLayout) == 0 || len(clip.Layout.SimpleTimeBasedLayout) == 0 || len(clip.Layout.VirtualLayersLayout) != 2 {
		t.Errorf("clip layout %+v", clip.Layout)
	}
	expressions := 0
	for _, g := range clip.Layout.AttributeGroupLayout {
		for _, it := range g.Items {
			if _, ok := it.Options["visibilityExpressionRule"]; ok {
				expressions++
			}
			if _, ok := it.Options["readOnlyExpressionRule"]; ok {
				expressions++
			}
		}
	}
	if expressions == 0 {
		t.Error("no layout expressions")
	}
	if _, err := c.AssetModelByType(ctx, "interplay-pam", "pam-1", "sequence", "de"); err != nil {
		t.Errorf("by type: %v", err)
	}
	if _, err := c.AssetModelByID(ctx, "interplay-pam", "pam-1", "nope", ""); !IsNotFound(err) {
		t.Errorf("unknown asset: %v", err)
	}
	mamAsset, err := c.AssetModelByID(ctx, "interplay-mam", "mam-1", "asset-1", "")
	if err != nil {
		t.Fatal(err)
	}
	restricted := false
	var walk func(items []LayoutItem)
	walk = func(items []LayoutItem) {
		for _, it := range items {
			if _, ok := it.Options["restrictions"]; ok {
				restricted = true
			}
			walk(it.Subitems)
		}
	}
	for _, g := range mamAsset.Layout.AttributeGroupLayout {
		walk(g.Items)
	}
	if !restricted {
		t.Error("no row restrictions in the mam layout")
	}

	// A regular user sees readonly flags that the administrator does not.
	viewer := env.client(func(c *Config) { c.Username, c.Password = emulatortest.ViewerUsername, emulatortest.ViewerPassword })
	vm, err := viewer.AssetModelByID(ctx, "interplay-pam", "pam-1", "clip-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if countReadonly(vm.Attributes) <= countReadonly(clip.Attributes) {
		t.Errorf("readonly flags: viewer %d, admin %d", countReadonly(vm.Attributes), countReadonly(clip.Attributes))
	}
}

func countReadonly(set AttributeSet) int {
	n := 0
	for _, a := range append(append([]Attribute{}, set.Common...), set.Custom...) {
		for _, f := range a.Flags {
			if f == "readonly" {
				n++
			}
		}
	}
	return n
}

func TestEmulatorSeparateAccessToken(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx
	tok, err := c.GrantAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 1 || st.Logins["oauth"] != 1 {
		t.Fatalf("after grant: %+v", st)
	}
	ext, err := c.ExtendAccessToken(ctx, &AccessToken{Token: tok.Token})
	if err != nil || ext.Token != tok.Token || ext.ExpiresAt.Before(tok.ExpiresAt.Add(-2*time.Second)) {
		t.Fatalf("extend %+v %v", ext, err)
	}
	// The shared token is another one.
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 2 {
		t.Errorf("live tokens %d, want 2", st.LiveTokens)
	}
	if err := c.RemoveAccessToken(ctx, &AccessToken{Token: tok.Token}); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 1 {
		t.Errorf("live tokens %d, want 1", st.LiveTokens)
	}
	if _, err := c.ExtendAccessToken(ctx, tok); !IsUnauthorized(err) {
		t.Errorf("extend removed token: %v", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Errorf("after Close: %+v", st)
	}
}

func TestEmulatorCloseReleasesEverything(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	ctx := env.ctx
	clients := []*Client{env.client(), env.client(), env.client()}
	for _, c := range clients {
		if _, err := c.GetExternalAuthentication(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Health(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := env.stats(); st.LiveTokens != 3 || st.LiveSessions != 3 {
		t.Fatalf("before Close: %+v", st)
	}
	closeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for _, c := range clients {
		if err := c.Close(closeCtx); err != nil {
			t.Fatal(err)
		}
	}
	if st := env.stats(); st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Errorf("after Close: %+v", st)
	}
	if _, err := clients[0].Health(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

func TestEmulatorOAuthErrors(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	ctx := env.ctx
	var oe *OAuthError
	_, err := env.client(func(c *Config) { c.Password = "wrong-password" }).Health(ctx)
	if !errors.As(err, &oe) || oe.ErrorCode != "invalid_grant" || oe.Status != 400 {
		t.Errorf("wrong password: %v", err)
	}
	_, err = env.client(func(c *Config) { c.ClientSecret = "wrong-secret" }).Health(ctx)
	if !errors.As(err, &oe) || oe.ErrorCode != "invalid_client" || !IsUnauthorized(err) {
		t.Errorf("wrong client: %v", err)
	}
	_, err = env.client(func(c *Config) {
		c.ClientID, c.ClientSecret = "", ""
		c.BasicToken = base64.StdEncoding.EncodeToString([]byte(emulatortest.ClientID + ":" + emulatortest.ClientSecret))
	}).Health(ctx)
	if err != nil {
		t.Errorf("basic token: %v", err)
	}
	if st := env.stats(); st.Logins["oauth"] != 1 {
		t.Errorf("oauth logins %d, want 1", st.Logins["oauth"])
	}
}

func TestEmulatorOverTLS(t *testing.T) {
	t.Parallel()
	srv := emulatortest.StartTLS(t, emulator.Options{}) // the untrusted handshake is expected to fail
	emu := srv.Emulator
	caPEM := srv.CertPEM()
	base := emulatorConfig(srv)
	base.RetryWaitMin, base.RetryWaitMax = time.Millisecond, time.Millisecond
	ctx := context.Background()

	untrusted, _ := New(base)
	_, err := untrusted.CheckSession(ctx)
	var uae x509.UnknownAuthorityError
	if !errors.As(err, &uae) && (err == nil || !strings.Contains(err.Error(), "certificate")) {
		t.Errorf("untrusted server: %v", err)
	}
	if n := emu.Stats().TotalRequests(); n != 0 {
		t.Errorf("TLS failures reached the handler %d times", n)
	}

	withCA := base
	withCA.CACertPEM = caPEM
	trusted, err := New(withCA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trusted.CheckSession(ctx); err != nil {
		t.Errorf("with CA: %v", err)
	}
	if _, err := trusted.Health(ctx); err != nil {
		t.Errorf("with CA: %v", err)
	}
	_ = trusted.Close(ctx)

	insecure := base
	insecure.InsecureSkipVerify = true
	c, _ := New(insecure)
	if _, err := c.CheckSession(ctx); err != nil {
		t.Errorf("insecure: %v", err)
	}
	_ = c.Close(ctx)
	if st := emu.Stats(); st.LiveSessions != 0 || st.LiveTokens != 0 {
		t.Errorf("after Close: %+v", st)
	}
}

// A rejected login cannot succeed with the same credentials: the client asks once
// and gives every later call the same answer, so a plan with many objects causes
// no login storm.
func TestEmulatorRejectedCredentialsAreRemembered(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client(func(cfg *Config) {
		cfg.AdminPassword = "wrong-admin"
		cfg.Password = "wrong-platform"
	})
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := c.GetExternalAuthentication(env.ctx); err == nil || !strings.Contains(err.Error(), "administrator login") {
				t.Errorf("GetExternalAuthentication: got %v, want the administrator login failure", err)
			}
		}()
		go func() {
			defer wg.Done()
			var oauthErr *OAuthError
			if _, err := c.GetScore(env.ctx, "any"); !errors.As(err, &oauthErr) || oauthErr.ErrorCode != "invalid_grant" {
				t.Errorf("GetScore: got %v, want invalid_grant", err)
			}
		}()
	}
	wg.Wait()
	stats := env.stats()
	if n := stats.Requests["POST /api/v1/login"]; n != 1 {
		t.Errorf("admin login attempts = %d, want 1", n)
	}
	if n := stats.Requests["POST /auth/oauth2/ropc/default"]; n != 1 {
		t.Errorf("password grant attempts = %d, want 1", n)
	}
}
