package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

func TestEmulatorOverTLS(t *testing.T) {
	t.Parallel()
	srv := emulatortest.StartTLS(t, emulator.Options{}) // the untrusted handshake is expected to fail
	emu := srv.Emulator
	caPEM := srv.CertPEM()
	base := emulatorConfig(srv)
	base.RetryWaitMin, base.RetryWaitMax = time.Millisecond, time.Millisecond
	ctx := context.Background()

	untrusted, _ := New(base)
	_, err := untrusted.CheckSession(ctx)
	var uae x509.UnknownAuthorityError
	if !errors.As(err, &uae) && (err == nil || !strings.Contains(err.Error(), "certificate")) {
		t.Errorf("untrusted server: %v", err)
	}
	if n := emu.Stats().TotalRequests(); n != 0 {
		t.Errorf("TLS failures reached the handler %d times", n)
	}

	withCA := base
	withCA.CACertPEM = caPEM
	trusted, err := New(withCA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trusted.CheckSession(ctx); err != nil {
		t.Errorf("with CA: %v", err)
	}
	if _, err := trusted.Health(ctx); err != nil {
		t.Errorf("with CA: %v", err)
	}
	_ = trusted.Close(ctx)

	insecure := base
	insecure.InsecureSkipVerify = true
	c, _ := New(insecure)
	if _, err := c.CheckSession(ctx); err != nil {
		t.Errorf("insecure: %v", err)
	}
	_ = c.Close(ctx)
	if st := emu.Stats(); st.LiveSessions != 0 || st.LiveTokens != 0 {
		t.Errorf("after Close: %+v", st)
	}
}

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
