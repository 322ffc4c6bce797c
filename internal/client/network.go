package client

// What a corporate network asks of the client before any request reaches the
// platform: a client certificate for a gateway that demands mutual TLS, and access
// headers for one that demands a service token or an API key. Both go to the
// platform's own hosts only.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"
)

// platformRequestKey marks the context of a request to one of the platform's hosts:
// the TLS handshake of its connection presents the client certificate.
type platformRequestKey struct{}

// ClientCertificate parses a client certificate and its key (PEM), with errors that
// name the setting at fault and quote nothing of the key.
func ClientCertificate(certPEM, keyPEM string) (tls.Certificate, error) {
	switch {
	case certPEM == "":
		return tls.Certificate{}, errors.New("client_key_pem is set without client_cert_pem: set both, or neither")
	case keyPEM == "":
		return tls.Certificate{}, errors.New("client_cert_pem is set without client_key_pem: set both, or neither")
	}
	certs, err := parseCertificates(certPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("client_cert_pem: %w", err)
	}
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		if !strings.Contains(keyPEM, "PRIVATE KEY") {
			return tls.Certificate{}, errors.New("client_key_pem holds no PEM-encoded private key")
		}
		return tls.Certificate{}, fmt.Errorf("client_key_pem does not match the certificate in client_cert_pem (%s)",
			certs[0].Subject.String())
	}
	pair.Leaf = certs[0]
	return pair, nil
}

// parseCertificates reads every CERTIFICATE block of a PEM text.
func parseCertificates(text string) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	rest := []byte(text)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("a certificate does not parse: %w", err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM-encoded certificate (a block starting -----BEGIN CERTIFICATE-----)")
	}
	return certs, nil
}

// CertificateExpiry returns when the first certificate of a PEM text expires, for a
// plan-time warning (zero when it does not parse).
func CertificateExpiry(certPEM string) (notAfter time.Time, subject string) {
	certs, err := parseCertificates(certPEM)
	if err != nil {
		return time.Time{}, ""
	}
	return certs[0].NotAfter, certs[0].Subject.String()
}

// platformOnlyCertificate presents pair in the handshake of a connection made for a
// request to the platform's hosts (see send), and no certificate otherwise.
func platformOnlyCertificate(pair tls.Certificate) func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		if ctx := cri.Context(); ctx != nil {
			if platform, _ := ctx.Value(platformRequestKey{}).(bool); platform {
				return &pair, nil
			}
		}
		return &tls.Certificate{}, nil
	}
}

// platformHosts are the addresses of the platform's own hosts: where credentials,
// the client certificate and the request headers may go.
func (c *Client) platformHosts() []string {
	publishing, _ := c.PublishingURL()
	return []string{c.cfg.AdminURL, c.cfg.PlatformURL, publishing, c.cfg.RegistryURL}
}

// forPlatform marks ctx for a request to u when u is on one of the platform's hosts,
// and reports whether it is.
func (c *Client) forPlatform(ctx context.Context, u *url.URL) (context.Context, bool) {
	if !hostIn(u, c.platformHosts()) {
		return ctx, false
	}
	return context.WithValue(ctx, platformRequestKey{}, true), true
}

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
		if canonical == owned {
			return fmt.Sprintf("the provider sets the header %s itself", owned)
		}
	}
	if name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) {
		return fmt.Sprintf("%q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~ only)", name)
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return fmt.Sprintf("the value of %s holds a line break or a NUL character", canonical)
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

// addressError turns a 404 for a path the platform always serves (path, under the
// address of setting) into an *AddressError that says what answered instead, as far
// as the answer shows it; any other error is returned as it is.
func (c *Client) addressError(setting, address, path string, err error) error {
	if !IsNotFound(err) {
		return err
	}
	e := &AddressError{Setting: setting, Address: address, Path: path, Err: err, Answered: answeredBy(err)}
	if setting == "publishing_url" || strings.HasPrefix(setting, "admin_url (with") {
		if c.cfg.AdminURL != "" {
			e.Expected = fmt.Sprintf("the publishing service's address, %s/apis/%s;version=2;realm=global (admin_url, then "+
				"the service name)", redactURL(strings.TrimRight(c.cfg.AdminURL, "/")), c.publishingService())
		} else {
			e.Expected = "the publishing service's address, {admin_url}/apis/" + c.publishingService() + ";version=2;realm=global"
		}
	}
	return e
}

// answeredBy says what sent an error answer, by its form: the platform's other APIs
// by the namespace of their error codes, anything else by its kind of body.
func answeredBy(err error) string {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return ""
	}
	switch ns := apiErr.Namespace(); {
	case apiErr.HTML:
		return "a web server's HTML page, not the platform's API (whose errors are JSON)"
	case ns == "admin":
		return fmt.Sprintf("the administrator API (its error code %s)", apiErr.Code)
	case ns == "auth":
		return fmt.Sprintf("the platform's token service (its error code %s)", apiErr.Code)
	case ns == "publishing":
		return fmt.Sprintf("the publishing service, without this route (its error code %s)", apiErr.Code)
	case ns != "":
		return fmt.Sprintf("a service of the platform's other than the one this setting is for (its error code %s)", apiErr.Code)
	}
	return "a server that is not the platform's API (its answer has no error code of the platform's)"
}

// publishingService is the service name in the derived publishing address.
func (c *Client) publishingService() string {
	if c.cfg.PublishingService != "" {
		return c.cfg.PublishingService
	}
	return DefaultPublishingService
}

// publishingSetting names the setting the publishing address came from.
func (c *Client) publishingSetting() string {
	if c.cfg.PublishingURL == "" {
		return "admin_url (with publishing_service)"
	}
	return "publishing_url"
}
