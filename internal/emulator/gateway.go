package emulator

// The gateway in front of the platform (WIRE.md, "Gateway in front of the platform"):
// a zero-trust gateway of a corporate network that demands an access header
// (Faults.RequireHeader) and/or a client certificate in the TLS handshake
// (Faults.ClientCACertPEM, through TLSConfig). It answers as a gateway does, with
// HTML pages of its own, before the platform sees the request.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"html"
	"math/big"
	"net"
	"net/http"
	"strings"
	"time"
)

// HeaderRequirement is an access header that the gateway in front of the platform
// demands on every platform request (Faults.RequireHeader).
type HeaderRequirement struct {
	// Name is the header's name, an HTTP token; it is matched case-insensitively.
	Name string `json:"name"`
	// Value is the value the header must carry, compared exactly (and in constant time).
	Value string `json:"value"`
}

// validate returns the first invalid field and a message, or "".
func (h HeaderRequirement) validate() (field, msg string) {
	switch {
	case !isToken(h.Name):
		return "requireHeader.name", "requireHeader.name must be an HTTP header name: one or more of the letters, " +
			"digits and !#$%&'*+-.^_`|~"
	case h.Value == "":
		return "requireHeader.value", "requireHeader.value must not be empty"
	case strings.ContainsAny(h.Value, "\r\n"):
		return "requireHeader.value", "requireHeader.value must not contain CR or LF"
	case strings.ContainsFunc(h.Value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }):
		// HTTP servers refuse such a header outright: no request could carry it.
		return "requireHeader.value", "requireHeader.value must not contain control characters"
	case strings.Trim(h.Value, " \t") != h.Value:
		// HTTP drops the spaces around a header value: no request could match.
		return "requireHeader.value", "requireHeader.value must not begin or end with a space or a tab"
	}
	return "", ""
}

// Validate reports what makes h impossible to demand, or nil (the emulator program's
// -require-header, which Faults cannot check before the emulator exists).
func (h HeaderRequirement) Validate() error {
	if _, msg := h.validate(); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// CheckClientCAs reports what keeps pemText from being one or more PEM CA
// certificates and nothing else, or nil (clientCaCertPem; the program's -client-ca).
func CheckClientCAs(pemText string) error {
	_, err := parseClientCAs(pemText)
	return err
}

// isToken reports whether s is an HTTP token (RFC 9110, section 5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !isTokenChar(c) {
			return false
		}
	}
	return true
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// parseClientCAs reads the CA certificates of Faults.ClientCACertPEM: one or more PEM
// CERTIFICATE blocks and nothing else.
func parseClientCAs(pemText string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	rest := []byte(pemText)
	n := 0
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		n++
		if block.Type != "CERTIFICATE" {
			// The type only: the block may be a private key pasted by mistake.
			return nil, fmt.Errorf("PEM block %d is a %s, not a CERTIFICATE", n, block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d: %w", n, err)
		}
		pool.AddCert(cert)
	}
	switch {
	case n == 0:
		return nil, errors.New("no PEM block found")
	case strings.TrimSpace(string(rest)) != "":
		return nil, fmt.Errorf("text after PEM block %d is not a PEM block", n)
	}
	return pool, nil
}

// admitThroughGateway checks a platform request against the access header the
// gateway demands (none when req is nil). It answers a refused request itself, as a
// gateway would: 401 without the header, 403 with another value (also when the
// header comes more than once). The answer carries no WWW-Authenticate: the gateway
// takes no credentials the HTTP way, and its Date is this machine's clock, not the
// platform's.
func admitThroughGateway(w http.ResponseWriter, r *http.Request, req *HeaderRequirement) bool {
	if req == nil {
		return true
	}
	values := r.Header.Values(req.Name)
	if len(values) == 0 {
		writeGatewayPage(w, http.StatusUnauthorized, "401 Authorization Required",
			"This gateway requires an access header ("+req.Name+") on every request to the service behind it.")
		return false
	}
	// Hashed first, so that the comparison takes the same time whatever the lengths.
	got, want := sha256.Sum256([]byte(values[0])), sha256.Sum256([]byte(req.Value))
	if len(values) != 1 || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		writeGatewayPage(w, http.StatusForbidden, "403 Forbidden",
			"The access header ("+req.Name+") of this request was not accepted by this gateway.")
		return false
	}
	return true
}

// writeGatewayPage writes the gateway's HTML page for a refused request.
func writeGatewayPage(w http.ResponseWriter, status int, title, text string) {
	page := "<!DOCTYPE html>\n<html>\n<head><title>" + title + "</title></head>\n<body>\n<h1>" + title + "</h1>\n<p>" +
		html.EscapeString(text) + "</p>\n<hr>\n<p>access gateway</p>\n</body>\n</html>\n"
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(page))
}

// TLSConfig returns a server TLS configuration for serving the emulator over HTTPS
// with the gateway's client certificate check: a clone of base (nil: TLS 1.2 and
// later) whose GetConfigForClient reads the faults in force at each handshake. While
// Faults.ClientCACertPEM is set, the handshake requires a client certificate that
// verifies against those CAs (tls.RequireAndVerifyClientCert, no session resumption,
// so that every connection is checked); otherwise no client certificate is asked
// for. The check covers every connection, the control surface's too: the handshake
// comes before the path. Connections already open keep the check they were opened
// with. A GetConfigForClient of base is replaced.
//
// When base has no certificate (no Certificates, no GetCertificate), the clone gets a
// fresh self-signed ECDSA certificate for 127.0.0.1, ::1, localhost, example.com and
// *.example.com (the names of httptest's own). That is what lets
//
//	srv := httptest.NewUnstartedServer(emu)
//	srv.TLS = emu.TLSConfig(nil)
//	srv.StartTLS()
//
// work: httptest completes a clone of srv.TLS with its own certificate, which
// GetConfigForClient cannot see, so a configuration returned for a handshake would
// have none. With a certificate here, httptest keeps it, and srv.Certificate() and
// srv.Client() know the certificate presented in either case.
func (e *Emulator) TLSConfig(base *tls.Config) *tls.Config {
	var cfg *tls.Config
	if base == nil {
		cfg = &tls.Config{MinVersion: tls.VersionTLS12}
	} else {
		cfg = base.Clone()
	}
	if len(cfg.Certificates) == 0 && cfg.GetCertificate == nil {
		cfg.Certificates = []tls.Certificate{gatewayCertificate()}
	}
	cfg.GetConfigForClient = nil
	// The configuration of a handshake under the check: cfg as it stands, so that it
	// carries the server certificate.
	checked := cfg.Clone()
	checked.ClientAuth = tls.RequireAndVerifyClientCert
	checked.SessionTicketsDisabled = true
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		pool := e.faults.clientCAs()
		if pool == nil {
			return nil, nil // the configuration as it is: no client certificate asked for
		}
		c := checked.Clone()
		c.ClientCAs = pool
		return c, nil
	}
	return cfg
}

// gatewayCertificate returns a fresh self-signed certificate for the loopback
// addresses, localhost and the names of httptest's certificate.
func gatewayCertificate() tls.Certificate {
	cert, _, err := SelfSignedCertificate("example.com", "*.example.com")
	if err != nil {
		panic("emulator: " + err.Error())
	}
	return cert
}

// SelfSignedCertificate returns a fresh ECDSA P-256 certificate for 127.0.0.1, ::1,
// localhost and hosts (names or addresses), and its PEM. It is its own authority:
// clients trust the PEM.
func SelfSignedCertificate(hosts ...string) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("generating a TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("generating a serial number: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "mediaplatform-emulator", Organization: []string{"mediaplatform emulator"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	for _, host := range hosts {
		switch ip := net.ParseIP(host); {
		case ip != nil && !ip.IsLoopback():
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		case ip == nil && host != "localhost":
			tmpl.DNSNames = append(tmpl.DNSNames, host)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("creating a TLS certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("reading a TLS certificate: %w", err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, certPEM, nil
}
