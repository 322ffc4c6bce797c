package emulator

// Section G of the contract: the emulator-only control surface under /_emulator/.

import (
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Faults are injected into platform requests (never into the control surface).
// The zero value injects nothing.
type Faults struct {
	// FailRate is the share (0 to 1) of requests that fail before taking effect.
	FailRate float64 `json:"failRate"`
	// Status is the status of a failed request; default 503.
	Status int `json:"status"`
	// RetryAfter, in seconds, is sent as Retry-After on failed requests when > 0.
	RetryAfter int `json:"retryAfter"`
	// LatencyMs delays every request.
	LatencyMs int `json:"latencyMs"`
	// RateLimitPerSecond answers 429 with Retry-After once more requests than this
	// arrive within one second; 0 means no limit.
	RateLimitPerSecond int `json:"rateLimitPerSecond"`
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
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	name, message := "SERVICE_UNAVAILABLE", "the service is temporarily unavailable"
	switch status {
	case http.StatusTooManyRequests:
		name, message = "TOO_MANY_REQUESTS", "too many requests; retry later"
	case http.StatusInternalServerError:
		name, message = "INTERNAL_SERVER_ERROR", "unexpected failure"
	}
	writeProblem(w, status, namespaceFor(r.URL.Path), name, message, nil)
	return false
}

// SetFaults replaces the faults in force.
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
		if f.FailRate < 0 || f.FailRate > 1 {
			badArgument(w, "emulator", "failRate", "failRate must be between 0 and 1")
			return
		}
		if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
			badArgument(w, "emulator", "status", "status must be an HTTP error status")
			return
		}
		if f.RetryAfter < 0 || f.LatencyMs < 0 || f.RateLimitPerSecond < 0 {
			badArgument(w, "emulator", "body", "retryAfter, latencyMs and rateLimitPerSecond must not be negative")
			return
		}
		e.SetFaults(f)
		writeJSON(w, http.StatusOK, f)
	})
	e.handle("POST /_emulator/commands", e.handleCreateScriptedCommand)
}

// decodeOptionalJSON decodes a JSON body into v; it reports whether the body was empty.
func decodeOptionalJSON(r *http.Request, v any) (empty bool, err error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return false, err
	}
	if len(body) == 0 {
		return true, nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, errors.New("the body is not valid JSON: " + err.Error())
	}
	return false, nil
}
