package emulator

// The gateway in front of the platform: the access header (Faults.RequireHeader) and
// the client certificate (Faults.ClientCACertPEM through TLSConfig). Helpers are in
// helpers_test.go; the test CAs and certificates come from internal/testca.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

const (
	gatewayHeader = "X-Access-Token"
	gatewaySecret = "gw-secret-6f1c"
)

// gatewayHeaderFaults is the JSON of a header requirement for POST /_emulator/faults.
var gatewayHeaderFaults = `{"requireHeader": {"name": "` + gatewayHeader + `", "value": "` + gatewaySecret + `"}}`

// wantGatewayPage checks a gateway's refusal: an HTML page with that status and
// title, no WWW-Authenticate, and the header named but never the expected value.
func (r *emuResponse) wantGatewayPage(t *testing.T, status int, title string) {
	t.Helper()
	r.wantStatus(t, status)
	if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type = %q, want text/html; charset=utf-8", ct)
	}
	if v, ok := r.header["Www-Authenticate"]; ok {
		t.Errorf("WWW-Authenticate = %q, want none", v)
	}
	body := string(r.body)
	if !strings.HasPrefix(body, "<!DOCTYPE html>") || !strings.Contains(body, "<title>"+title+"</title>") {
		t.Errorf("body is not an HTML page titled %q:\n%s", title, body)
	}
	if !strings.Contains(body, gatewayHeader) {
		t.Errorf("the page does not name the header %s:\n%s", gatewayHeader, body)
	}
	if strings.Contains(body, gatewaySecret) {
		t.Errorf("the page names the header's value:\n%s", body)
	}
}

func TestGatewayHeader(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.control(http.MethodPost, "faults", gatewayHeaderFaults).wantStatus(t, 200)
	right := http.Header{gatewayHeader: {gatewaySecret}}

	// Missing: 401, before anything the platform does, on every kind of platform address.
	health := et.e.PublishingURL("") + "/core/health"
	for _, path := range []string{"/auth", health, "/viewer/no-such-view", "/apis/registry;version=0/serviceroots",
		"/no/such/thing", et.e.AdminURL("") + "/checksession"} {
		res := et.do(http.MethodGet, path, nil, nil)
		res.wantGatewayPage(t, 401, "401 Authorization Required")
		if !strings.Contains(string(res.body), "requires an access header") {
			t.Errorf("GET %s: the page does not say that an access header is required:\n%s", path, res.body)
		}
	}
	// Another value, an empty one, or the header twice: 403.
	for _, h := range []http.Header{
		{gatewayHeader: {"gw-secret-6f1d"}},
		{gatewayHeader: {gatewaySecret + "x"}},
		{gatewayHeader: {""}},
		{gatewayHeader: {gatewaySecret, gatewaySecret}},
	} {
		res := et.do(http.MethodGet, "/auth", h, nil)
		res.wantGatewayPage(t, 403, "403 Forbidden")
		if sent := h.Get(gatewayHeader); sent != "" && strings.Contains(string(res.body), sent) {
			t.Errorf("the page names the value sent:\n%s", res.body)
		}
	}
	// The right value: the platform answers, and authenticates as usual.
	et.do(http.MethodGet, "/auth", right, nil).wantJSON(t, 200, "application/hal+json")
	et.do(http.MethodGet, "/auth", http.Header{"x-access-token": {gatewaySecret}}, nil).wantStatus(t, 200)
	et.do(http.MethodGet, "/apis/registry;version=0/serviceroots", right, nil).wantProblem(t, 401, "auth/UNAUTHORIZED", "")

	// The control surface is not behind the gateway.
	et.control(http.MethodGet, "faults", "").wantStatus(t, 200)
	s := et.stats()
	// Refused requests count like any other that reached the emulator.
	if got := s.Requests["GET /auth"]; got != 1+4+2 {
		t.Errorf("GET /auth counted %d times, want 7 (5 refused, 2 served); requests %v", got, s.Requests)
	}
	if got := s.Requests["GET "+health]; got != 1 {
		t.Errorf("GET %s counted %d times, want 1; requests %v", health, got, s.Requests)
	}

	// Switched off: the platform answers without the header.
	et.control(http.MethodPost, "faults", `{}`).wantStatus(t, 200)
	et.do(http.MethodGet, "/auth", nil, nil).wantStatus(t, 200)
}

func TestGatewayHeaderComesFirst(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	// Every request fails and the platform's clock is a day behind; the gateway
	// answers before either applies, on this machine's clock.
	et.control(http.MethodPost, "faults", `{"failRate": 1, "status": 503, "rateLimitPerSecond": 1,
		"clockOffsetSeconds": -86400, "readings": {"textErrors": true},
		"requireHeader": {"name": "`+gatewayHeader+`", "value": "`+gatewaySecret+`"}}`).wantStatus(t, 200)
	health := et.e.PublishingURL("") + "/core/health"
	for range 3 { // past the rate limit: still the gateway's answer
		res := et.do(http.MethodGet, health, nil, nil)
		res.wantGatewayPage(t, 401, "401 Authorization Required")
		date, err := http.ParseTime(res.header.Get("Date"))
		if err != nil || time.Since(date).Abs() > time.Hour {
			t.Errorf("Date = %q (%v), want this machine's clock", res.header.Get("Date"), err)
		}
	}
	// Through the gateway, the fault applies (the rate limit counted none of the above).
	res := et.do(http.MethodGet, health, http.Header{gatewayHeader: {gatewaySecret}}, nil)
	res.wantStatus(t, 503)
	if date, _ := http.ParseTime(res.header.Get("Date")); time.Since(date) < 23*time.Hour {
		t.Errorf("Date behind the gateway = %q, want the platform's clock, a day behind", res.header.Get("Date"))
	}
}

func TestGatewayHeaderKeptByReset(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{Faults: Faults{RequireHeader: &HeaderRequirement{Name: gatewayHeader, Value: gatewaySecret}}})
	et.do(http.MethodGet, "/auth", nil, nil).wantGatewayPage(t, 401, "401 Authorization Required")
	et.control(http.MethodPost, "reset", "").wantStatus(t, 200)
	et.do(http.MethodGet, "/auth", http.Header{gatewayHeader: {"wrong"}}, nil).wantGatewayPage(t, 403, "403 Forbidden")
	et.do(http.MethodGet, "/auth", http.Header{gatewayHeader: {gatewaySecret}}, nil).wantStatus(t, 200)

	var f struct {
		RequireHeader *HeaderRequirement `json:"requireHeader"`
	}
	if err := json.Unmarshal(et.control(http.MethodGet, "faults", "").body, &f); err != nil {
		t.Fatal(err)
	}
	if f.RequireHeader == nil || *f.RequireHeader != (HeaderRequirement{Name: gatewayHeader, Value: gatewaySecret}) {
		t.Errorf("GET faults: requireHeader = %+v", f.RequireHeader)
	}
}

func TestGatewayValidation(t *testing.T) {
	t.Parallel()
	ca := testca.New(t, "validation CA")
	_, keyPEM := ca.Issue(t, "terraform", time.Now().Add(time.Hour))
	jsonString := func(s string) string { b, _ := json.Marshal(s); return string(b) }

	et := newEmuTester(t, Options{})
	for _, tc := range []struct{ body, field string }{
		{`{"requireHeader": {}}`, "requireHeader.name"},
		{`{"requireHeader": {"name": "", "value": "v"}}`, "requireHeader.name"},
		{`{"requireHeader": {"name": "X Access", "value": "v"}}`, "requireHeader.name"},
		{`{"requireHeader": {"name": "X-Access:", "value": "v"}}`, "requireHeader.name"},
		{`{"requireHeader": {"name": "X-Äccess", "value": "v"}}`, "requireHeader.name"},
		{`{"requireHeader": {"name": "X-Access"}}`, "requireHeader.value"},
		{`{"requireHeader": {"name": "X-Access", "value": "a\r\nX-Other: b"}}`, "requireHeader.value"},
		{`{"requireHeader": {"name": "X-Access", "value": "a\nb"}}`, "requireHeader.value"},
		{`{"requireHeader": {"name": "X-Access", "value": "a\u0000b"}}`, "requireHeader.value"},
		{`{"requireHeader": {"name": "X-Access", "value": " a"}}`, "requireHeader.value"},
		{`{"clientCaCertPem": "not PEM"}`, "clientCaCertPem"},
		{`{"clientCaCertPem": ` + jsonString(keyPEM) + `}`, "clientCaCertPem"},
		{`{"clientCaCertPem": ` + jsonString(ca.PEM+keyPEM) + `}`, "clientCaCertPem"},
		{`{"clientCaCertPem": ` + jsonString(ca.PEM+"trailing text") + `}`, "clientCaCertPem"},
		{`{"clientCaCertPem": ` + jsonString(string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("junk")}))) + `}`,
			"clientCaCertPem"},
	} {
		res := et.control(http.MethodPost, "faults", tc.body)
		res.wantProblem(t, 400, "emulator/BAD_ARGUMENT", tc.field)
		if strings.Contains(string(res.body), "PRIVATE KEY-----") {
			t.Errorf("the answer repeats the PEM: %s", res.body)
		}
	}
	// Nothing was set by the refused requests; neither field is written when unset.
	body := et.control(http.MethodGet, "faults", "").wantJSON(t, 200, "application/json")
	if _, ok := body["requireHeader"]; ok {
		t.Errorf("requireHeader in %v", body)
	}
	if _, ok := body["clientCaCertPem"]; ok {
		t.Errorf("clientCaCertPem in %v", body)
	}

	// Valid values are taken and read back: two CAs in one PEM, a value with spaces inside.
	two := ca.PEM + "\n" + testca.New(t, "second CA").PEM
	body = et.control(http.MethodPost, "faults", `{"requireHeader": {"name": "cf-access-client-secret", "value": "a b=c"},
		"clientCaCertPem": `+jsonString(two)+`}`).wantJSON(t, 200, "application/json")
	if body["clientCaCertPem"] != two {
		t.Errorf("clientCaCertPem read back = %v", body["clientCaCertPem"])
	}
	if h := emuObject(t, body["requireHeader"]); h["name"] != "cf-access-client-secret" || h["value"] != "a b=c" {
		t.Errorf("requireHeader read back = %v", h)
	}
}

// newTLSEmuTester serves e over TLS the way tests in other packages do it, with
// httptest's server and e.TLSConfig(nil).
func newTLSEmuTester(t *testing.T, e *Emulator) *emuTester {
	t.Helper()
	srv := httptest.NewUnstartedServer(e)
	srv.TLS = e.TLSConfig(nil)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &emuTester{t: t, e: e, srv: srv}
}

// tlsProbe is the outcome of one request on a new connection.
type tlsProbe struct {
	err error
	// asked tells whether the server asked for a client certificate.
	asked bool
	res   *http.Response
}

// probe sends GET target on a new connection, offering cert (none when nil) if
// the server asks for one.
func (et *emuTester) probe(target string, cert *tls.Certificate) tlsProbe {
	et.t.Helper()
	var asked atomic.Bool
	pool := x509.NewCertPool()
	pool.AddCert(et.srv.Certificate())
	tr := &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: pool,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			asked.Store(true)
			if cert == nil {
				return &tls.Certificate{}, nil // none: an empty Certificate message
			}
			return cert, nil
		},
	}}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(et.request(http.MethodGet, target, nil))
	if err == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	return tlsProbe{err: err, asked: asked.Load(), res: res}
}

// wantServed checks that the request was served with status over the server's own
// certificate, and whether a client certificate was asked for.
func (p tlsProbe) wantServed(t *testing.T, et *emuTester, status int, asked bool) {
	t.Helper()
	if p.err != nil {
		t.Fatalf("request failed: %v", p.err)
	}
	if p.res.StatusCode != status {
		t.Errorf("status %d, want %d", p.res.StatusCode, status)
	}
	if p.asked != asked {
		t.Errorf("client certificate asked for: %t, want %t", p.asked, asked)
	}
	if peer := p.res.TLS.PeerCertificates; len(peer) == 0 || !peer[0].Equal(et.srv.Certificate()) {
		t.Error("the server did not present srv.Certificate()")
	}
}

// The TLS alerts of a refused client certificate, as a Go client reports them.
const (
	alertNoCertificate = "tls: certificate required"
	alertUnknownCA     = "tls: unknown certificate authority"
)

// wantRefused checks that the handshake refused the connection with the alert after
// asking for a client certificate.
func (p tlsProbe) wantRefused(t *testing.T, what, alert string) {
	t.Helper()
	if p.err == nil {
		t.Fatalf("%s: served with status %d, want the handshake to fail", what, p.res.StatusCode)
	}
	if !strings.Contains(p.err.Error(), alert) {
		t.Errorf("%s: error %v, want the alert %q", what, p.err, alert)
	}
	if !p.asked {
		t.Errorf("%s: no client certificate was asked for", what)
	}
}

func TestGatewayClientCertificate(t *testing.T) {
	t.Parallel()
	ca, other := testca.New(t, "gateway CA"), testca.New(t, "another CA")
	good, foreign := ca.ClientCertificate(t, "terraform"), other.ClientCertificate(t, "terraform")
	et := newTLSEmuTester(t, New(Options{}))

	// No fault: no client certificate asked for; one offered is not needed.
	et.probe("/auth", nil).wantServed(t, et, 200, false)

	body, err := json.Marshal(Faults{ClientCACertPEM: ca.PEM})
	if err != nil {
		t.Fatal(err)
	}
	et.control(http.MethodPost, "faults", string(body)).wantStatus(t, 200)

	et.probe("/auth", nil).wantRefused(t, "without a certificate", alertNoCertificate)
	et.probe("/auth", &foreign).wantRefused(t, "with a certificate of another CA", alertUnknownCA)
	et.probe("/auth", &good).wantServed(t, et, 200, true)
	// The handshake comes before the path: the control surface is behind it too.
	et.probe("/_emulator/stats", nil).wantRefused(t, "control surface without a certificate", alertNoCertificate)
	et.probe("/_emulator/stats", &good).wantServed(t, et, 200, true)

	// Switched off at run time, over the wire (with the certificate): no longer asked for.
	pool := x509.NewCertPool()
	pool.AddCert(et.srv.Certificate())
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{good}}}}
	defer client.CloseIdleConnections()
	roundTrip(t, client, et.request(http.MethodPost, "/_emulator/faults", strings.NewReader(`{}`))).wantStatus(t, 200)
	et.probe("/auth", nil).wantServed(t, et, 200, false)
	et.probe("/auth", &foreign).wantServed(t, et, 200, false)
}

func TestGatewayClientCertificateStartAndReset(t *testing.T) {
	t.Parallel()
	ca := testca.New(t, "gateway CA")
	good := ca.ClientCertificate(t, "terraform")
	et := newTLSEmuTester(t, New(Options{Faults: Faults{ClientCACertPEM: ca.PEM,
		RequireHeader: &HeaderRequirement{Name: gatewayHeader, Value: gatewaySecret}}}))

	et.probe("/auth", nil).wantRefused(t, "without a certificate", alertNoCertificate)
	// Past the handshake, the access header is checked as well.
	et.probe("/auth", &good).wantServed(t, et, 401, true)

	et.e.SetFaults(Faults{})
	et.probe("/auth", nil).wantServed(t, et, 200, false)
	et.e.Reset() // back to the faults of the start
	et.probe("/auth", nil).wantRefused(t, "without a certificate after a reset", alertNoCertificate)
	et.probe("/auth", &good).wantServed(t, et, 401, true)
}

func TestGatewayClientCertificateUnreadableCAs(t *testing.T) {
	t.Parallel()
	ca := testca.New(t, "gateway CA")
	good := ca.ClientCertificate(t, "terraform")
	et := newTLSEmuTester(t, New(Options{}))
	// SetFaults does not validate: CAs that cannot be read admit nobody.
	et.e.SetFaults(Faults{ClientCACertPEM: "not PEM"})
	et.probe("/auth", &good).wantRefused(t, "unreadable CAs", alertUnknownCA)
}

func TestGatewayTLSConfigKeepsBase(t *testing.T) {
	t.Parallel()
	e := New(Options{})
	cert := gatewayCertificate()
	base := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13}
	cfg := e.TLSConfig(base)
	if base.GetConfigForClient != nil {
		t.Error("TLSConfig changed its base")
	}
	if len(cfg.Certificates) != 1 || cfg.MinVersion != tls.VersionTLS13 || cfg.GetConfigForClient == nil {
		t.Errorf("TLSConfig(base) = %+v, want base's certificate and version with GetConfigForClient", cfg)
	}
	e.SetFaults(Faults{ClientCACertPEM: testca.New(t, "gateway CA").PEM})
	got, err := cfg.GetConfigForClient(&tls.ClientHelloInfo{})
	if err != nil || got == nil {
		t.Fatalf("GetConfigForClient = %v, %v", got, err)
	}
	if got.ClientAuth != tls.RequireAndVerifyClientCert || got.ClientCAs == nil || len(got.Certificates) != 1 ||
		!got.Certificates[0].Leaf.Equal(cert.Leaf) || got.MinVersion != tls.VersionTLS13 {
		t.Errorf("config under the check: ClientAuth %v, ClientCAs %v, %d certificates, MinVersion %x",
			got.ClientAuth, got.ClientCAs, len(got.Certificates), got.MinVersion)
	}
	e.SetFaults(Faults{})
	if got, err := cfg.GetConfigForClient(&tls.ClientHelloInfo{}); got != nil || err != nil {
		t.Errorf("GetConfigForClient without the fault = %v, %v; want nil, nil (the configuration as it is)", got, err)
	}
}
