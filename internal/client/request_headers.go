package client

// The headers of every request: the access headers a gateway in front of the platform
// demands (request_headers, only to the platform's hosts), the User-Agent and Accept.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
)

// setRequestHeaders adds the configured request headers to a request for one of the
// platform's hosts.
func (c *Client) setRequestHeaders(h http.Header) {
	for name, value := range c.cfg.RequestHeaders {
		h.Set(name, value)
	}
}

// OwnedHeaders are the request headers the provider sets itself, which
// request_headers may not replace.
var OwnedHeaders = []string{"Authorization", "Token", "Content-Type", "Host", "Content-Length"}

// CheckRequestHeader reports what is wrong with a request header for
// request_headers, or "".
func CheckRequestHeader(name, value string) string {
	canonical := textproto.CanonicalMIMEHeaderKey(name)
	for _, owned := range OwnedHeaders {
		if canonical == owned && owned == "Authorization" {
			return "the provider sets the header Authorization itself (the platform's credential): give a gateway's " +
				"credential in a header of its own, such as Proxy-Authorization"
		}
		if canonical == owned {
			return fmt.Sprintf("the provider sets the header %s itself", owned)
		}
	}
	if name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) {
		return fmt.Sprintf("%q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~ only)", name)
	}
	// RFC 9110 §5.5: no control character but the tab (net/http refuses the others).
	if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
		return fmt.Sprintf("the value of %s holds a control character (a line break, NUL or DEL; only the tab is allowed)", canonical)
	}
	return ""
}

// ParseRequestHeaders reads request_headers from its environment variable: a JSON
// object of strings.
func ParseRequestHeaders(text string) (map[string]string, error) {
	var h map[string]string
	if err := json.Unmarshal([]byte(text), &h); err != nil {
		return nil, fmt.Errorf("%s must be a JSON object of strings, e.g. {\"CF-Access-Client-Id\": \"…\"}: %s",
			EnvRequestHeaders, jsonProblem(err))
	}
	return h, nil
}

const acceptJSON = "application/json, application/hal+json, application/problem+json"

// setBaseHeaders sets the headers of every request: a gateway's access headers on a
// request to the platform's hosts (first, so that none replaces the provider's own),
// the User-Agent, and Accept (accept, or the JSON types when "").
func (c *Client) setBaseHeaders(h http.Header, platform bool, accept string) {
	if platform {
		c.setRequestHeaders(h)
	}
	h.Set("User-Agent", c.userAgent)
	if accept == "" {
		accept = acceptJSON
	}
	h.Set("Accept", accept)
}
