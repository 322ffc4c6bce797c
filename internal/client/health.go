package client

// The platform's health call, read from whatever shape of 2xx it answers.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode"
)

// Health is the publishing service's health report.
type Health struct {
	Status   string
	Verifier string
	// Healthy is true when Status is "ok" (in any case).
	Healthy bool
	// Raw is the answer when it is JSON.
	Raw json.RawMessage
	// Note says why Status is "unknown" (an answer that holds no status).
	Note string
}

// Health reads the publishing service's health report (GET /core/health). The
// specification calls the call unreliable ("not strictly part of the public API and
// must not be relied upon") and shows no body of its own, so whatever a 2xx carries,
// Health reports what it can and fails on no answer's shape (contract §V): the
// contract's {"service": {"healthStatus": …}}, a top-level status, or a short text
// ("OK") give the status as reported; anything else (an HTML page, other JSON) is
// status "unknown", with Note saying why. Only a failed request is an error.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	base, err := c.PublishingURL()
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, &request{method: http.MethodGet, url: base + "/core/health", auth: authPlatform, textAnswer: true}, nil)
	var foreign *ForeignAnswerError
	if errors.As(err, &foreign) && strings.HasSuffix(foreign.Path, "/core/health") {
		// The health answer itself, not the login on the way to it.
		return &Health{Status: healthUnknown, Note: foreign.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	h := readHealth(resp.body)
	h.Healthy = strings.EqualFold(h.Status, "ok")
	if h.Status == healthUnknown {
		c.warnFallback(ctx, "health", "the health answer holds no status the provider can read; reported as unknown", nil)
	}
	return h, nil
}

// healthUnknown is the status of a health answer that says none.
const healthUnknown = "unknown"

// readHealth takes the status out of a 2xx health answer of any form.
func readHealth(body []byte) *Health {
	body = bytes.TrimSpace(body)
	var doc struct {
		Service struct {
			HealthStatus   string `json:"healthStatus"`
			HealthVerifier string `json:"healthVerifier"`
		} `json:"service"`
		HealthStatus string `json:"healthStatus"`
		Status       string `json:"status"`
	}
	if json.Valid(body) {
		if json.Unmarshal(body, &doc) == nil {
			for _, status := range []string{doc.Service.HealthStatus, doc.HealthStatus, doc.Status} {
				if status != "" {
					return &Health{Status: status, Verifier: doc.Service.HealthVerifier, Raw: json.RawMessage(body)}
				}
			}
		}
		return &Health{Status: healthUnknown, Note: "the answer is JSON without a health status", Raw: json.RawMessage(body)}
	}
	// A short word of text ("OK", "healthy"): the status as reported.
	if text := string(body); len(text) > 0 && len(text) <= 32 && !strings.ContainsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != ' '
	}) {
		return &Health{Status: text}
	}
	return &Health{Status: healthUnknown, Note: "the answer is text that says no status"}
}
