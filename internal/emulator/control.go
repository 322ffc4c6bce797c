package emulator

// Section G of the contract: the emulator-only control surface under /_emulator/.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults are injected into platform requests (never into the control surface).
// The zero value injects nothing.
type Faults struct {
	// FailRate is the share (0 to 1) of requests that fail before taking effect.
	FailRate float64 `json:"failRate"`
	// Status is the status of a failed request: 429, 500, 502, 503 or 504;
	// default (0) 503. The body is a problem with the matching NAME, or an OAuth
	// error on the token endpoint.
	Status int `json:"status"`
	// RetryAfter, in seconds, is sent as Retry-After on failed requests when > 0
	// (a 429 always carries one, at least 1).
	RetryAfter int `json:"retryAfter"`
	// LatencyMs delays every request.
	LatencyMs int `json:"latencyMs"`
	// RateLimitPerSecond answers 429 with Retry-After once more requests than this
	// arrive within one second; 0 means no limit.
	RateLimitPerSecond int `json:"rateLimitPerSecond"`
}

// validate returns the first invalid field and a message, or "".
func (f Faults) validate() (field, msg string) {
	switch {
	case f.FailRate < 0 || f.FailRate > 1:
		return "failRate", "failRate must be between 0 and 1"
	case f.Status != 0 && faultStatuses[f.Status].name == "":
		return "status", "status must be one of 429, 500, 502, 503, 504 (0 means 503)"
	case f.RetryAfter < 0:
		return "retryAfter", "retryAfter must not be negative"
	case f.LatencyMs < 0:
		return "latencyMs", "latencyMs must not be negative"
	case f.RateLimitPerSecond < 0:
		return "rateLimitPerSecond", "rateLimitPerSecond must not be negative"
	}
	return "", ""
}

type faultState struct {
	mu          sync.Mutex
	faults      Faults
	window      time.Time
	windowCount int
}

func (f *faultState) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = Faults{}
	f.window = time.Time{}
	f.windowCount = 0
}

func (f *faultState) set(faults Faults) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if faults.Status == 0 {
		faults.Status = http.StatusServiceUnavailable
	}
	f.faults = faults
}

func (f *faultState) get() Faults {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.faults
}

// decide returns the status a request must fail with (0: serve it), and the
// Retry-After seconds to send.
func (f *faultState) decide() (faults Faults, status, retryAfter int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	faults = f.faults
	if limit := faults.RateLimitPerSecond; limit > 0 {
		now := time.Now()
		if now.Sub(f.window) >= time.Second {
			f.window = now
			f.windowCount = 0
		}
		f.windowCount++
		if f.windowCount > limit {
			// The window is one second long: retrying after 1 s always meets a new one.
			return faults, http.StatusTooManyRequests, 1
		}
	}
	if faults.FailRate > 0 && rand.Float64() < faults.FailRate {
		status = faults.Status
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		return faults, status, faults.RetryAfter
	}
	return faults, 0, 0
}

// apply delays the request and fails it when the faults say so. It reports whether
// the request should be served.
func (f *faultState) apply(w http.ResponseWriter, r *http.Request) bool {
	faults, status, retryAfter := f.decide()
	if faults.LatencyMs > 0 {
		select {
		case <-time.After(time.Duration(faults.LatencyMs) * time.Millisecond):
		case <-r.Context().Done():
			return false
		}
	}
	if status == 0 {
		return true
	}
	if status == http.StatusTooManyRequests && retryAfter <= 0 {
		retryAfter = 1 // a 429 always carries Retry-After (contract §0)
	}
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	kind, known := faultStatuses[status]
	if !known { // set through SetFaults, which does not validate
		kind.name = strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_"))
		kind.oauth, kind.message = "server_error", http.StatusText(status)
	}
	if r.URL.Path == ropcPath {
		// The token endpoint answers in the OAuth 2.0 error form (contract B3).
		oauthError(w, status, kind.oauth, kind.message)
		return false
	}
	writeProblem(w, status, namespaceFor(r.URL.Path), kind.name, kind.message, nil)
	return false
}

// faultStatuses are the statuses an injected failure may carry, with the problem
// NAME, the OAuth error code used on the token endpoint and a message.
var faultStatuses = map[int]struct{ name, oauth, message string }{
	http.StatusTooManyRequests:     {"TOO_MANY_REQUESTS", "temporarily_unavailable", "too many requests; retry later"},
	http.StatusInternalServerError: {"INTERNAL_SERVER_ERROR", "server_error", "unexpected failure"},
	http.StatusBadGateway:          {"BAD_GATEWAY", "temporarily_unavailable", "bad gateway"},
	http.StatusServiceUnavailable:  {"SERVICE_UNAVAILABLE", "temporarily_unavailable", "the service is temporarily unavailable"},
	http.StatusGatewayTimeout:      {"GATEWAY_TIMEOUT", "temporarily_unavailable", "gateway timeout"},
}

// SetFaults replaces the faults in force. Unlike POST /_emulator/faults it does not
// validate f.
func (e *Emulator) SetFaults(f Faults) { e.faults.set(f) }

// Expire expires all live access tokens and/or administrator sessions now.
func (e *Emulator) Expire(tokens, sessions bool) {
	if tokens {
		e.auth.expireAll()
	}
	if sessions {
		e.admin.expireAll()
	}
}

func (e *Emulator) routeControl() {
	e.handle("GET /_emulator/stats", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, e.Stats())
	})
	e.handle("POST /_emulator/reset", func(w http.ResponseWriter, _ *http.Request) {
		e.Reset()
		writeJSON(w, http.StatusOK, map[string]any{"reset": true})
	})
	e.handle("POST /_emulator/expire", func(w http.ResponseWriter, r *http.Request) {
		// An empty body expires both.
		req := struct {
			Tokens   bool `json:"tokens"`
			Sessions bool `json:"sessions"`
		}{}
		empty, err := decodeOptionalJSON(r, &req)
		if err != nil {
			badArgument(w, "emulator", "body", err.Error())
			return
		}
		if empty {
			req.Tokens, req.Sessions = true, true
		}
		e.Expire(req.Tokens, req.Sessions)
		writeJSON(w, http.StatusOK, req)
	})
	e.handle("GET /_emulator/faults", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, e.faults.get())
	})
	e.handle("POST /_emulator/faults", func(w http.ResponseWriter, r *http.Request) {
		var f Faults
		if _, err := decodeOptionalJSON(r, &f); err != nil {
			badArgument(w, "emulator", "body", err.Error())
			return
		}
		if field, msg := f.validate(); field != "" {
			badArgument(w, "emulator", field, msg)
			return
		}
		e.SetFaults(f)
		writeJSON(w, http.StatusOK, e.faults.get())
	})
	e.handle("POST /_emulator/commands", e.handleCreateScriptedCommand)
}

// decodeOptionalJSON decodes a JSON body into v; it reports whether the body was empty.
func decodeOptionalJSON(r *http.Request, v any) (empty bool, err error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return false, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return true, nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, errors.New("the body is not valid JSON: " + err.Error())
	}
	return false, nil
}
