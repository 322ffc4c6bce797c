package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// TestClientCertificate: a gateway that demands mutual TLS lets the configured client
// certificate through; without one, or with one it does not trust, the error says
// which, as a TLS failure in which nothing was sent.
func TestClientCertificate(t *testing.T) {
	t.Parallel()
	trusted, other := testca.New(t, "gateway CA"), testca.New(t, "another CA")
	pool := x509.NewCertPool()
	pool.AddCert(trusted.Cert)
	// The refused handshakes are the test (emulatortest does not log them).
	srv := emulatortest.ServeTLS(t, emulator.New(emulator.Options{}),
		&tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool, MinVersion: tls.VersionTLS12})
	config := func(certPEM, keyPEM string) Config {
		cfg := emulatorConfig(srv)
		cfg.CACertPEM, cfg.ClientCertPEM, cfg.ClientKeyPEM = srv.CertPEM(), certPEM, keyPEM
		cfg.MaxRetries = NoRetries
		return cfg
	}
	good, goodKey := trusted.Issue(t, "terraform-ci", time.Now().Add(time.Hour))
	stranger, strangerKey := other.Issue(t, "terraform-ci", time.Now().Add(time.Hour))
	for _, tc := range []struct {
		name      string
		cert, key string
		want      string // the TLS problem's kind, "" for success
	}{
		{"trusted certificate", good, goodKey, ""},
		{"no certificate", "", "", TLSClientCertMissing},
		{"certificate of another authority", stranger, strangerKey, TLSClientCertRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(config(tc.cert, tc.key))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = c.Close(t.Context()) }()
			_, err = c.PublishScore(t.Context(), PublishScoreInput{ScoreURL: "https://cdn.example/mtls.sib"})
			var netErr *NetworkError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("with a trusted certificate: %v", err)
			case tc.want == "":
			case !errors.As(err, &netErr) || netErr.Kind != NetworkTLS || netErr.TLS == nil || netErr.TLS.Kind != tc.want:
				t.Fatalf("got %v (%#v), want a TLS failure of kind %s", err, netErr, tc.want)
			case IsUnknownOutcome(err):
				t.Fatalf("a refused handshake left the publish's outcome unknown: %v", err)
			}
		})
	}
}

// TestClientCertificateChecks: the pair is refused with an error naming the setting:
// a key without a certificate, a certificate that is not PEM, a key of another
// certificate; the key is never quoted.
func TestClientCertificateChecks(t *testing.T) {
	t.Parallel()
	ca := testca.New(t, "CA")
	cert, key := ca.Issue(t, "a", time.Now().Add(time.Hour))
	_, otherKey := ca.Issue(t, "b", time.Now().Add(time.Hour))
	for _, tc := range []struct{ cert, key, want string }{
		{"", key, "client_key_pem is set without client_cert_pem"},
		{cert, "", "client_cert_pem is set without client_key_pem"},
		{"not a certificate", key, "client_cert_pem cannot be used: it holds no block starting -----BEGIN CERTIFICATE-----"},
		{cert, otherKey, "client_key_pem does not match the certificate in client_cert_pem (CN=a)"},
		{cert, "garbage", "client_key_pem cannot be used: it holds no block starting -----BEGIN … PRIVATE KEY-----"},
	} {
		_, err := New(Config{ClientCertPEM: tc.cert, ClientKeyPEM: tc.key})
		// The key's own lines (its base64) never appear, whatever the error says of its form.
		keyLine := strings.Split(key, "\n")[1]
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), keyLine) {
			t.Errorf("cert %.20q, key %.20q: %v; want %q", tc.cert, tc.key, err, tc.want)
		}
	}
}

// TestRequestHeadersOnlyToThePlatform: the configured request headers reach the
// platform with every request, are masked in the logs, and never reach another host:
// a platform link to a second host is refused before anything is sent there.
func TestRequestHeadersOnlyToThePlatform(t *testing.T) {
	t.Parallel()
	const header, value = "X-Gateway-Key", "gw-secret-5d1c"
	var mu sync.Mutex
	seen := map[string]int{} // host → requests with the header
	missing := 0
	second := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen["second"]++
	}))
	t.Cleanup(second.Close)
	env := newEmuEnv(t, emulator.Options{})
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Header.Get(header) == value {
			seen["platform"]++
		} else {
			missing++
		}
		mu.Unlock()
		env.emu.ServeHTTP(w, r)
	}))
	t.Cleanup(gateway.Close)
	c := env.client(func(cfg *Config) {
		cfg.AdminURL, cfg.PlatformURL = env.emu.AdminURL(gateway.URL), env.emu.PlatformURL(gateway.URL)
		cfg.RequestHeaders = map[string]string{header: value}
	})
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/h.sib"}); err != nil {
		t.Fatal(err)
	}
	// A link of the platform's to another host: refused, nothing sent there.
	if _, err := c.platformHref(env.ctx, second.URL+"/apis/elsewhere"); err == nil {
		t.Error("a link to a second host was accepted")
	}
	mu.Lock()
	defer mu.Unlock()
	if missing > 0 || seen["platform"] < 4 {
		t.Errorf("the platform got %d requests with the header and %d without", seen["platform"], missing)
	}
	if seen["second"] > 0 {
		t.Errorf("the second host got %d requests", seen["second"])
	}
	if strings.Contains(env.logs.String(), value) {
		t.Error("the header's value is in the logs")
	}
}

// TestRequestHeadersFromTheEnvironment: the variable holds a JSON object; anything
// else is refused naming it, without quoting the values.
func TestRequestHeadersFromTheEnvironment(t *testing.T) {
	t.Parallel()
	h, err := ParseRequestHeaders(`{"CF-Access-Client-Id": "id", "CF-Access-Client-Secret": "s"}`)
	if err != nil || len(h) != 2 {
		t.Fatalf("%v, %v", h, err)
	}
	if _, err := ParseRequestHeaders(`CF-Access-Client-Secret=s3cret`); err == nil || strings.Contains(err.Error(), "s3cret") ||
		!strings.Contains(err.Error(), EnvRequestHeaders) {
		t.Errorf("a value that is not JSON: %v", err)
	}
	for name, want := range map[string]string{
		"authorization": "sets the header Authorization itself", "token": "sets the header Token itself",
		"Content-Length": "itself", "Bad Header": "not a valid header name", "X-Ok": "",
	} {
		if got := CheckRequestHeader(name, "v"); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("header %q: %q, want %q", name, got, want)
		}
	}
	if got := CheckRequestHeader("X-Ok", "a\r\nInjected: 1"); !strings.Contains(got, "line break") {
		t.Errorf("a value with a line break: %q", got)
	}
}

// TestSameHost: one host in any spelling is one host; another port, scheme or host
// is not.
func TestSameHost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"http://[::1]:8080/x", "http://[0:0:0:0:0:0:0:1]:8080/y", true},
		{"http://[::1]:8080", "http://[::1]:08080", true},
		{"http://127.0.0.1:80", "http://[::ffff:127.0.0.1]", true},
		{"https://Platform.Example./auth", "HTTPS://platform.example:443", true},
		{"http://[fd00::10]", "http://[fd00:0::10]:80", true},
		{"http://[::1]:8080", "http://[::2]:8080", false},
		{"http://[::1]:8080", "https://[::1]:8080", false},
		{"http://platform.example", "http://platform.example:8080", false},
		{"http://platform.example", "http://platform.example.evil", false},
		{"http://127.0.0.1", "http://localhost", false},
	} {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := sameHost(a, b); got != tc.same {
			t.Errorf("sameHost(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if got := hostKey(a) == hostKey(b); got != tc.same && strings.EqualFold(a.Scheme, b.Scheme) {
			t.Errorf("hostKey(%s) = %s, hostKey(%s) = %s", tc.a, hostKey(a), tc.b, hostKey(b))
		}
	}
}
