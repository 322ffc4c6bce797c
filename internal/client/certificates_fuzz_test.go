package client

// The fuzz target of certificates.go: a client certificate and its key, as the client
// reads them (ReadClientCertificate, CertificateExpiry).

import (
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// FuzzClientCertificate fuzzes client_cert_pem and client_key_pem together: an error
// quotes no line of the key; a pair it takes has the certificate's leaf and key.
func FuzzClientCertificate(f *testing.F) {
	ca := testca.New(f, "fuzz CA")
	cert, key := ca.Issue(f, "fuzz", time.Now().Add(time.Hour))
	_, otherKey := ca.Issue(f, "other", time.Now().Add(time.Hour))
	expired, expiredKey := ca.Issue(f, "expired", time.Now().Add(-time.Hour))
	f.Add(cert, key)
	f.Add(cert, otherKey)
	f.Add(expired, expiredKey)
	f.Add(key, cert)
	f.Add(cert+cert, key+key)
	f.Add(strings.ReplaceAll(cert, "\n", "\r\n\t"), " "+key+" ")
	f.Add("", key)
	f.Add(cert, "")
	f.Add(cert[:len(cert)-40], key[:len(key)-40])
	f.Fuzz(func(t *testing.T, certPEM, keyPEM string) {
		var err error
		within(t, "reading a client certificate", certPEM+keyPEM, func() {
			_, err = ReadClientCertificate(certPEM, keyPEM)
			_, _ = CertificateExpiry(certPEM)
		})
		if err == nil {
			return
		}
		for _, line := range strings.Split(NormalizePEM(keyPEM), "\n") {
			if base64Line.MatchString(line) && strings.Contains(err.Error(), line) {
				t.Fatalf("the error quotes the key: %v", err)
			}
		}
	})
}
