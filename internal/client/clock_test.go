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

// TestFlexTime: every form RFC 3339 allows, a time since the epoch (TestEpochTimes),
// and anything else as absent (zero).
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
	for _, in := range []string{`null`, `""`, `"yesterday"`, `{}`, `true`, `[1764024352]`} {
		var ft flexTime
		if err := json.Unmarshal([]byte(in), &ft); err != nil || !ft.IsZero() {
			t.Errorf("%s: %v, %v; want the zero time", in, ft.Time, err)
		}
	}
}

// TestEpochTimes: a time since the Unix epoch (rule 21), as Jackson writes a date by
// default (milliseconds), as Unix tools write it (seconds), as a java.time Instant
// (seconds and a fraction), in any JSON number form, or as a string holding one. A
// number beyond 10^11 is milliseconds, any other seconds; 0 and numbers no time.Time
// holds to the nanosecond are absent.
func TestEpochTimes(t *testing.T) {
	t.Parallel()
	ms := time.Date(2026, 11, 23, 22, 45, 52, 123000000, time.UTC)
	for in, want := range map[string]time.Time{
		`1795473952123`:        ms,
		`1.795473952123E12`:    ms,
		`1795473952123.0`:      ms,
		`"1795473952123"`:      ms,
		` "1795473952123 " `:   ms,
		`1795473952.123`:       ms,
		`"1795473952.123"`:     ms,
		`1795473952`:           ms.Truncate(time.Second),
		`"1795473952"`:         ms.Truncate(time.Second),
		`1795473952.123456789`: ms.Add(456789),
		`100000000000`:         time.Unix(1e11, 0).UTC(), // 10^11 is still seconds
		`100000000001`:         time.UnixMilli(1e11 + 1).UTC(),
		`-1000`:                time.Unix(-1000, 0).UTC(),
	} {
		var ft flexTime
		if err := json.Unmarshal([]byte(in), &ft); err != nil || !ft.Equal(want) {
			t.Errorf("%s: %v, %v; want %v", in, ft.Time, err, want)
		}
	}
	for _, in := range []string{`0`, `"0"`, `0.0`, `1E+40`, `1E+999999999`, `9300000000000000`, `"1795473952123ms"`, `"0x1A"`, `"1/2"`} {
		var ft flexTime
		if err := json.Unmarshal([]byte(in), &ft); err != nil || !ft.IsZero() {
			t.Errorf("%s: %v, %v; want the zero time", in, ft.Time, err)
		}
	}
}

// TestEveryTimeIsAnEpochTime: every timestamp member of every answer goes through the
// one decoder, so each reads a time since the epoch: the score's, the view's, the
// command's, the administrator session's and the token information's (at the top
// level and under iamToken).
func TestEveryTimeIsAnEpochTime(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 11, 23, 22, 45, 52, 123000000, time.UTC)
	const at = `1795473952123`
	var score Score
	var view View
	var cmd CommandInfo
	var session Session
	var top, iam tokenInfoDoc
	for _, d := range []struct {
		doc string
		out any
	}{
		{`{"id":"s","createdAt":` + at + `,"updatedAt":"` + at + `"}`, &score},
		{`{"id":"v","createdAt":` + at + `,"expiresAt":` + at + `}`, &view},
		{`{"id":"c","created":` + at + `,"modified":` + at + `,"finished":"` + at + `"}`, &cmd},
		{`{"valid":true,"expiresAt":` + at + `}`, &session},
		{`{"expiresAt":` + at + `}`, &top},
		{`{"iamToken":{"expiresAt":"` + at + `"}}`, &iam},
	} {
		if err := json.Unmarshal([]byte(d.doc), d.out); err != nil {
			t.Fatalf("%s: %v", d.doc, err)
		}
	}
	for name, got := range map[string]time.Time{
		"score createdAt": score.CreatedAt, "score updatedAt": score.UpdatedAt,
		"view createdAt": view.CreatedAt, "view expiresAt": view.ExpiresAt,
		"command created": cmd.Created, "command modified": cmd.Modified, "command finished": cmd.Finished,
		"session expiresAt": session.ExpiresAt, "token expiresAt": top.expiresAt(), "iamToken expiresAt": iam.expiresAt(),
	} {
		if !got.Equal(want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// TestEpochTimestamps: a platform that writes every timestamp as epoch milliseconds
// (the reading epochTimestamps): the score's times, the view's creation and expiry
// and the token's expiry are read as the platform means them, so that a view's
// lifetime is what was asked and the token is removed at the end.
func TestEpochTimestamps(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "epochTimestamps")
	before := time.Now().Add(-time.Hour)
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/epoch.sib", Alias: "epoch"})
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	if s.CreatedAt.Before(before) || s.Recovered != "" {
		t.Errorf("the published score: createdAt %v, recovered %q", s.CreatedAt, s.Recovered)
	}
	got, err := c.GetScore(env.ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.CreatedAt.Equal(s.CreatedAt) || got.UpdatedAt.Before(got.CreatedAt) {
		t.Errorf("the score read back: createdAt %v, updatedAt %v; published at %v", got.CreatedAt, got.UpdatedAt, s.CreatedAt)
	}
	v, err := c.CreateView(env.ctx, s.ID, ViewInput{ExpiresIn: 3600})
	if err != nil {
		t.Fatalf("view: %v", err)
	}
	if v.CreatedAt.Before(before) || v.ExpiresAt.Sub(v.CreatedAt) != time.Hour {
		t.Errorf("the view: created %v, expires %v; want an expiry an hour after its creation", v.CreatedAt, v.ExpiresAt)
	}
	if err := c.Close(env.ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 0 {
		t.Errorf("%d platform tokens live after Close, want 0", st.LiveTokens)
	}
}

// FuzzFlexTime: the time decoder never fails and never panics, and a time since the
// epoch it reads is within 10^11 seconds of it.
func FuzzFlexTime(f *testing.F) {
	for _, seed := range []string{`"2026-11-23T22:45:52.123Z"`, `"2026-11-23 22:45:52+0200"`, `1795473952123`, `1795473952.123456789`,
		`"1795473952"`, `1.795473952123E12`, `1E+999999999`, `-0.0`, `null`, `{}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var ft flexTime
		if err := ft.UnmarshalJSON([]byte(in)); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if at, ok := epochTime(in); ok && (at.Unix() > epochMillisAbove || at.Unix() < -epochMillisAbove) {
			t.Errorf("%q: %v is beyond 10^11 seconds from the epoch", in, at)
		}
	})
}
