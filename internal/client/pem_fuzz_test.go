package client

// The fuzz target of pem.go: PEM text as people paste it, checked at plan time
// (PEMProblem after NormalizePEM) and read by the client.

import (
	"crypto/x509"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// base64Line is a line of a PEM block's body long enough to be worth hiding.
var base64Line = regexp.MustCompile(`^[A-Za-z0-9+/=]{16,}$`)

// FuzzPEM fuzzes ca_cert_pem, client_cert_pem and client_key_pem: NormalizePEM is
// idempotent; text that PEMProblem finds nothing wrong with as certificates is read
// by the client (readCACertificates, parseCertificates); a problem it names with a
// private key quotes nothing of the key.
func FuzzPEM(f *testing.F) {
	certPEM, keyPEM := testca.New(f, "fuzz CA").Issue(f, "fuzz", time.Now().Add(time.Hour))
	for _, s := range []string{certPEM, keyPEM, certPEM + keyPEM, "  " + strings.ReplaceAll(certPEM, "\n", "\r\n  "),
		strings.ReplaceAll(certPEM, "\n", `\n`), "/etc/ssl/client.pem", "C:\\certs\\client.p12",
		certPEM[:len(certPEM)/2], "-----BEGIN CERTIFICATE-----\n\xff\xfe\n-----END CERTIFICATE-----\n",
		"-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n",
		"-----BEGIN CERTIFICATE-----\n" + strings.Repeat("A", 100000) + "\n-----END CERTIFICATE-----\n", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var normal, certProblem, keyProblem string
		within(t, "checking PEM", text, func() {
			normal = NormalizePEM(text)
			certProblem = PEMProblem(normal, PEMCertificates)
			keyProblem = PEMProblem(normal, PEMPrivateKey)
		})
		if again := NormalizePEM(normal); again != normal {
			t.Fatalf("NormalizePEM is not idempotent: %q, then %q", normal, again)
		}
		if certProblem == "" {
			if err := readCACertificates(x509.NewCertPool(), text); err != nil {
				t.Fatalf("certificates PEMProblem finds nothing wrong with are refused by the client: %v", err)
			}
			if _, err := parseCertificates(normal); err != nil {
				t.Fatalf("certificates PEMProblem finds nothing wrong with do not parse: %v", err)
			}
		}
		if keyProblem != "" && strings.Contains(text, "PRIVATE KEY") {
			for _, line := range strings.Split(normal, "\n") {
				if base64Line.MatchString(line) && strings.Contains(keyProblem, line) {
					t.Fatalf("the problem with a private key quotes it: %s", keyProblem)
				}
			}
		}
	})
}
