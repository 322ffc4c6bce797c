package main

// Conformance, section G of the contract: the emulator's control surface and faults.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// ---------------------------------------------------------------------------
// §G Control surface

type stats struct {
	Requests map[string]int64 `json:"requests"`
	Logins   struct {
		Admin int64 `json:"admin"`
		OAuth int64 `json:"oauth"`
	} `json:"logins"`
	LiveSessions int64 `json:"liveSessions"`
	LiveTokens   int64 `json:"liveTokens"`
	Scores       int64 `json:"scores"`
}

func (e *emu) stats(t *testing.T) stats {
	t.Helper()
	r := e.do(t, http.MethodGet, e.PlatformURL+"/_emulator/stats", nil).want(t, http.StatusOK)
	var s stats
	for _, k := range []string{"requests", "logins", "liveSessions", "liveTokens", "scores", "views"} {
		if !has(r.obj(t), k) {
			t.Errorf("stats lack %s: %s", k, r.body)
		}
	}
	if err := json.Unmarshal(r.body, &s); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	return s
}

func (e *emu) controlOK(t *testing.T, what string, body any) {
	t.Helper()
	if r := e.control(t, what, body); r.status/100 != 2 {
		t.Fatalf("%s: want 2xx", r)
	}
}

func TestConformanceControl(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "0")
	scores := e.PublishingURL + "/scores"
	sess := e.adminLogin(t, emulatortest.AdminUsername, emulatortest.AdminPassword)
	tok := e.newToken(t, "alice")
	tok2 := e.newToken(t, "viewer")
	s1 := objOf(e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/1.sib"}, bearer(tok)...).want(t, http.StatusOK).obj(t)["score"])
	e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/2.sib"}, bearer(tok)...).want(t, http.StatusOK)
	e.do(t, http.MethodGet, scores+"/"+str(s1["id"]), nil, bearer(tok)...).want(t, http.StatusOK)
	e.do(t, http.MethodPut, e.AdminURL+"/externalauth", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true}, adminToken(sess)...).want(t, http.StatusOK)

	st := e.stats(t)
	if st.Logins.Admin != 1 || st.Logins.OAuth != 2 || st.LiveSessions != 1 || st.LiveTokens != 2 || st.Scores != 2 {
		t.Errorf("stats = %+v, want logins admin 1 oauth 2, liveSessions 1, liveTokens 2, scores 2", st)
	}
	var publishes, gets int64
	for k, n := range st.Requests {
		method, pattern, ok := strings.Cut(k, " ")
		if !ok || method == "" || !strings.HasPrefix(pattern, "/") {
			t.Errorf("stats request key %q is not \"<METHOD> <route pattern>\"", k)
		}
		if strings.Contains(k, str(s1["id"])) {
			t.Errorf("stats request key %q holds a concrete id, not a route pattern", k)
		}
		if method == http.MethodPost && strings.HasSuffix(pattern, "/scores") {
			publishes += n
		}
		if method == http.MethodGet && strings.Contains(pattern, "/scores/") {
			gets += n
		}
	}
	if publishes != 2 || gets != 1 {
		t.Errorf("stats requests %v: want POST …/scores 2 and GET …/scores/{id} 1", st.Requests)
	}

	// Expire tokens only, then sessions only.
	e.controlOK(t, "expire", map[string]any{"tokens": true})
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, cookie(tok2)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(sess)...).want(t, http.StatusOK)
	tok3 := e.newToken(t, "alice")
	e.controlOK(t, "expire", map[string]any{"sessions": true})
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(sess)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok3)...).want(t, http.StatusOK)
	if st := e.stats(t); st.LiveSessions != 0 || st.LiveTokens != 1 {
		t.Errorf("after expiring: stats %+v, want liveSessions 0, liveTokens 1", st)
	}
	sess = e.adminLogin(t, emulatortest.AdminUsername, emulatortest.AdminPassword)
	e.controlOK(t, "expire", map[string]any{"tokens": true, "sessions": true})
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(sess)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok3)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")

	// Reset: empty store, zero counters, settings back to the start state.
	tok4 := e.newToken(t, "alice")
	e.controlOK(t, "reset", nil)
	st = e.stats(t)
	var reqs int64
	for _, n := range st.Requests {
		reqs += n
	}
	if reqs != 0 || st.Logins.Admin != 0 || st.Logins.OAuth != 0 || st.LiveSessions != 0 || st.LiveTokens != 0 || st.Scores != 0 {
		t.Errorf("after reset: stats %+v, want all zero", st)
	}
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok4)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	tok = e.newToken(t, "alice")
	if n, _ := num(e.do(t, http.MethodPost, scores+"/count", map[string]any{}, bearer(tok)...).want(t, http.StatusOK).obj(t)["count"]); n != 0 {
		t.Errorf("after reset: %d scores", n)
	}
	e.do(t, http.MethodGet, scores+"/"+str(s1["id"]), nil, bearer(tok)...).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
	sess = e.adminLogin(t, emulatortest.AdminUsername, emulatortest.AdminPassword)
	doc := e.do(t, http.MethodGet, e.AdminURL+"/externalauth", nil, adminToken(sess)...).want(t, http.StatusOK).obj(t)
	if !jsonEqual(doc, map[string]any{"domainName": "", "externalAuthenticationEnabled": false}) {
		t.Errorf("after reset: settings %v, want the start state", doc)
	}
	if st := e.stats(t); st.Logins.Admin != 1 || st.Logins.OAuth != 1 {
		t.Errorf("after reset and new logins: stats %+v", st)
	}
}

func TestConformanceFaults(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "0")
	tok := e.token(t, "alice")
	scores := e.PublishingURL + "/scores"
	health := e.PublishingURL + "/core/health"
	count := func(t *testing.T) int64 {
		t.Helper()
		n, _ := num(e.do(t, http.MethodPost, scores+"/count", map[string]any{}, bearer(tok)...).want(t, http.StatusOK).obj(t)["count"])
		return n
	}
	off := map[string]any{"failRate": 0, "latencyMs": 0, "rateLimitPerSecond": 0}

	systemModel := e.template(t, "datamodel:system-model", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1"})
	command := e.template(t, "command:command-by-id", map[string]string{"id": "x"})

	t.Run("fail rate", func(t *testing.T) {
		e.controlOK(t, "faults", map[string]any{"failRate": 1, "status": 503, "retryAfter": 2})
		r := e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/x.sib"}, bearer(tok)...)
		r.problem(t, http.StatusServiceUnavailable, "publishing/SERVICE_UNAVAILABLE", "")
		if ra := r.header.Get("Retry-After"); ra != "2" {
			t.Errorf("%s: Retry-After %q, want 2", r, ra)
		}
		e.do(t, http.MethodGet, e.PlatformURL+"/auth", nil).problem(t, http.StatusServiceUnavailable, "auth/SERVICE_UNAVAILABLE", "")
		e.do(t, http.MethodGet, e.PlatformURL+"/apis/registry;version=0/serviceroots", nil, bearer(tok)...).
			problem(t, http.StatusServiceUnavailable, "registry/SERVICE_UNAVAILABLE", "")
		e.do(t, http.MethodGet, systemModel, nil, bearer(tok)...).problem(t, http.StatusServiceUnavailable, "datamodel/SERVICE_UNAVAILABLE", "")
		e.do(t, http.MethodGet, command, nil, bearer(tok)...).
			problem(t, http.StatusServiceUnavailable, "commands/SERVICE_UNAVAILABLE", "")
		// The control surface is not affected.
		e.stats(t)
		e.controlOK(t, "faults", map[string]any{"failRate": 1, "status": 500})
		e.do(t, http.MethodGet, health, nil, bearer(tok)...).problem(t, http.StatusInternalServerError, "publishing/INTERNAL_SERVER_ERROR", "")
		e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/y.sib"}, bearer(tok)...).
			problem(t, http.StatusInternalServerError, "publishing/INTERNAL_SERVER_ERROR", "")
		e.controlOK(t, "faults", off)
		if n := count(t); n != 0 {
			t.Errorf("failed publishes had an effect: %d scores", n)
		}
		// A share: failRate 0.5 fails some of 40 requests, not all.
		e.controlOK(t, "faults", map[string]any{"failRate": 0.5, "status": 503})
		failed := 0
		for range 40 {
			if r := e.do(t, http.MethodGet, health, nil, bearer(tok)...); r.status == http.StatusServiceUnavailable {
				failed++
			} else if r.status != http.StatusOK {
				t.Errorf("%s", r)
			}
		}
		e.controlOK(t, "faults", off)
		if failed == 0 || failed == 40 {
			t.Errorf("failRate 0.5 failed %d of 40 requests", failed)
		}
	})

	t.Run("latency", func(t *testing.T) {
		e.controlOK(t, "faults", map[string]any{"latencyMs": 150})
		if r := e.do(t, http.MethodGet, health, nil, bearer(tok)...).want(t, http.StatusOK); r.elapsed < 150*time.Millisecond {
			t.Errorf("latencyMs 150: the request took %v", r.elapsed)
		}
		e.controlOK(t, "faults", off)
		if r := e.do(t, http.MethodGet, health, nil, bearer(tok)...).want(t, http.StatusOK); r.elapsed >= 150*time.Millisecond {
			t.Errorf("latency off: the request took %v", r.elapsed)
		}
	})

	t.Run("rate limit", func(t *testing.T) {
		before := count(t)
		e.controlOK(t, "faults", map[string]any{"rateLimitPerSecond": 2})
		ok, limited := 0, 0
		for i := range 10 {
			r := e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": fmt.Sprintf("https://cdn.example/rl%d.sib", i)}, bearer(tok)...)
			switch r.status {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
				limited++
				r.problem(t, http.StatusTooManyRequests, "publishing/TOO_MANY_REQUESTS", "")
				if n, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || n < 1 {
					t.Errorf("%s: Retry-After %q, want whole seconds ≥ 1", r, r.header.Get("Retry-After"))
				}
			default:
				t.Errorf("%s: want 200 or 429", r)
			}
		}
		e.controlOK(t, "faults", off)
		if limited == 0 || ok == 0 || ok > 4 {
			t.Errorf("rateLimitPerSecond 2: %d passed, %d limited of 10 quick requests", ok, limited)
		}
		if n := count(t); n != before+int64(ok) {
			t.Errorf("after rate limiting: %d scores, want %d (a 429 has no effect)", n, before+int64(ok))
		}
	})
}
