package client

// Certificates: the client certificate a gateway that demands mutual TLS is shown
// (only in handshakes with the platform's hosts), and the PEM text it comes from.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
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
		return tls.Certificate{}, errors.New("client_key_pem is set without client_cert_pem")
	case keyPEM == "":
		return tls.Certificate{}, errors.New("client_cert_pem is set without client_key_pem")
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
