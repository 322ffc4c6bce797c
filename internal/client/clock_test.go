package client

// The platform's clock (learned from Date) and its time values in every form.

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestSessionTimesInEveryForm: /checksession's expiresAt is read in every RFC 3339
// form (a space for the T, as Python writes it), and one that cannot be read is no
// expiry, never an unreadable answer.
func TestSessionTimesInEveryForm(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 11, 23, 22, 45, 52, 123000000, time.UTC)
	for body, at := range map[string]time.Time{
		`{"valid": true, "user": "admin", "expiresAt": "2026-11-23 22:45:52.123000+00:00"}`: want,
		`{"valid": true, "user": "admin", "expiresAt": "2026-11-23T22:45:52.123Z"}`:         want,
		`{"valid": true, "user": "admin", "expiresAt": "tomorrow"}`:                         {},
		`{"valid": true, "user": "admin"}`:                                                  {},
	} {
		var s Session
		if err := json.Unmarshal([]byte(body), &s); err != nil || !s.Valid || s.User != "admin" || !s.ExpiresAt.Equal(at) {
			t.Errorf("%s: %+v, %v", body, s, err)
		}
	}
}

// TestPlatformClock: the platform's clock is learned from the Date header; a token
// expiry given on that clock (and only as iamToken.expiresAt) is judged on it.
func TestPlatformClock(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	const behind = 3 * time.Hour
	f.handle(routeTokenInfo, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(-behind).UTC().Format(http.TimeFormat))
		base := f.proxy.URL
		writeJSON(w, map[string]any{
			"iamToken": map[string]any{"expiresAt": time.Now().Add(-behind + 10*time.Minute).Format("2006-01-02T15:04:05-07:00")},
			"_links": map[string]any{
				"auth-token:extend":  map[string]any{"href": base + "/auth/tokens/current/extension"},
				"auth-token:removal": map[string]any{"href": base + "/auth/tokens/current"},
			}})
	})
	f.handle(routeTokenExtend, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(-behind).UTC().Format(http.TimeFormat))
		writeJSON(w, map[string]any{"iamToken": map[string]any{
			"expiresAt": time.Now().Add(-behind + 10*time.Minute).UTC().Format(time.RFC3339)}})
	})
	f.handle("GET "+routeScores+"/s1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(-behind).UTC().Format(http.TimeFormat))
		writeJSON(w, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
	})
	c := newTestClient(t, f.config())
	if _, err := c.GetScore(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	platform, known := c.PlatformTime(now)
	if d := now.Sub(platform) - behind; !known || d < -ClockTolerance || d > ClockTolerance {
		t.Errorf("platform time %s for local %s: want %s behind", platform, now, behind)
	}
	tok, err := c.ExtendAccessToken(context.Background(), &AccessToken{Token: "tok-1-secretish"})
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(tok.ExpiresAt); left < 9*time.Minute || left > 11*time.Minute {
		t.Errorf("an expiry 10 minutes ahead on the platform's clock leaves %s on this machine's", left)
	}
}

// TestSpaceTimestamps: timestamps with a space instead of T (RFC 3339 §5.6 note) are
// read; a publish, a view and the token's removal link no longer fail on them (a
// publish ended as an unknown outcome, a view was reported failed, and every run left
// its token live).
func TestSpaceTimestamps(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "spaceTimestamps")
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/space.sib", Alias: "space"})
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	if s.CreatedAt.IsZero() || s.Recovered != "" {
		t.Errorf("the published score: createdAt %v, recovered %q", s.CreatedAt, s.Recovered)
	}
	v, err := c.CreateView(env.ctx, s.ID, ViewInput{})
	if err != nil {
		t.Fatalf("view: %v", err)
	}
	if v.ExpiresAt.IsZero() {
		t.Errorf("the view's expiry was not read")
	}
	if err := c.Close(env.ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 0 {
		t.Errorf("%d platform tokens live after Close, want 0", st.LiveTokens)
	}
}

// TestFlexTime: every form RFC 3339 allows, and anything else as absent (zero).
func TestFlexTime(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 11, 23, 22, 45, 52, 123000000, time.UTC)
	for _, in := range []string{
		`"2026-11-23T22:45:52.123Z"`, `"2026-11-23 22:45:52.123000+00:00"`, `"2026-11-23t22:45:52.123z"`,
		`"2026-11-24T00:45:52.123+02:00"`, `"2026-11-24T00:45:52.123+0200"`, `"2026-11-24 00:45:52.123+02"`,
	} {
		var ft flexTime
		if err := json.Unmarshal([]byte(in), &ft); err != nil || !ft.Equal(want) {
			t.Errorf("%s: %v, %v; want %v", in, ft.Time, err, want)
		}
	}
	for _, in := range []string{`null`, `""`, `"yesterday"`, `1764024352`, `{}`} {
		var ft flexTime
		if err := json.Unmarshal([]byte(in), &ft); err != nil || !ft.IsZero() {
			t.Errorf("%s: %v, %v; want the zero time", in, ft.Time, err)
		}
	}
}
