package client

// PEM text as people paste it: through a heredoc that indents every line, a secret
// store that adds a trailing newline or keeps the line breaks escaped, a file copied
// from Windows, or the wrong file altogether. What is unambiguous is accepted
// (NormalizePEM); what is not is named with its fix (PEMProblem). The provider's
// plan-time checks and the client's TLS configuration both read the settings
// through these two, so they accept exactly the same values.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PEMKind is what a PEM setting must hold.
type PEMKind int

const (
	// PEMCertificates is one or more CERTIFICATE blocks (ca_cert_pem, client_cert_pem).
	PEMCertificates PEMKind = iota
	// PEMPrivateKey is one unencrypted private key block (client_key_pem).
	PEMPrivateKey
)

// NormalizePEM returns text with what a paste adds to PEM removed: the whitespace
// around it, the indentation and trailing spaces of every line, and CR line ends. PEM
// lines hold no spaces of their own, so nothing is lost. Text without a PEM block is
// returned as it is, for PEMProblem to name.
func NormalizePEM(text string) string {
	if !strings.Contains(text, "-----BEGIN ") {
		return text
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")), "\n")
	for i, line := range lines {
		lines[i] = strings.TrimSpace(line)
	}
	return strings.Join(lines, "\n") + "\n"
}

// PEMProblem reports what keeps text (already through NormalizePEM) from being what
// kind asks for, as a clause starting "it …" that ends with the fix, or "" when
// nothing does. It quotes nothing of a private key. A key that does not belong to
// its certificate is ClientCertificate's to find.
func PEMProblem(text string, kind PEMKind) string {
	what, begin := "certificate", "-----BEGIN CERTIFICATE-----"
	if kind == PEMPrivateKey {
		what, begin = "private key", "-----BEGIN … PRIVATE KEY-----"
	}
	switch {
	case strings.TrimSpace(text) == "":
		return "it is empty"
	case strings.Contains(text, "-----BEGIN ") && strings.Contains(text, `\n`) && !strings.Contains(text, "\n-----END "):
		return `it holds the two characters \n where its lines should break (as a CI secret or a JSON string may keep them): ` +
			`store the PEM text with real line breaks, or turn them back in Terraform with replace(value, "\\n", "\n")`
	case !strings.Contains(text, "-----BEGIN "):
		return notPEM(text, kind, what, begin)
	}

	var certs, keys, other []*pem.Block
	for rest := []byte(text); ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		switch {
		case block.Type == "CERTIFICATE":
			certs = append(certs, block)
		case strings.HasSuffix(block.Type, "PRIVATE KEY"):
			keys = append(keys, block)
		default:
			other = append(other, block)
		}
	}
	if kind == PEMPrivateKey {
		if len(keys) == 0 {
			if len(certs) > 0 {
				return "it holds a certificate and no private key (a block starting -----BEGIN … PRIVATE KEY-----): " +
					"the certificate goes in client_cert_pem, its key here"
			}
			return "it holds no block starting " + begin + " (the value is not shown)"
		}
		key := keys[0]
		if key.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(key.Headers["Proc-Type"], "ENCRYPTED") {
			return "it holds an encrypted private key, and the provider needs it unencrypted: decrypt it once with " +
				"`openssl pkey -in key.pem -out plain.pem` (which asks for the passphrase) and keep plain.pem where " +
				"secrets are kept"
		}
		if !parsesAsKey(key.Bytes) {
			return "the private key in it does not parse (the value is not shown)"
		}
		return ""
	}
	if len(certs) == 0 {
		if len(keys) > 0 {
			return "it holds a private key and no certificate (a block starting " + begin + ")"
		}
		if len(other) > 0 {
			return fmt.Sprintf("it holds a %s block and no certificate (a block starting %s)", other[0].Type, begin)
		}
		return "it holds no block starting " + begin
	}
	for i, block := range certs {
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Sprintf("certificate %d in it does not parse: %s", i+1, err)
		}
	}
	return ""
}

// notPEM names what text without a PEM block is: a file path, binary DER or PKCS#12,
// or the base64 of one without the PEM armour.
func notPEM(text string, kind PEMKind, what, begin string) string {
	trimmed := strings.TrimSpace(text)
	if looksLikePath(trimmed) {
		shown := "path"
		if kind != PEMPrivateKey {
			shown = trimmed
		}
		return fmt.Sprintf("it is a file name, not the PEM text of a %s: read the file with file(%q) "+
			"(in a shell, for the environment variable: \"$(cat %s)\")", what, shown, shown)
	}
	if !utf8.ValidString(text) || strings.ContainsFunc(text, func(r rune) bool {
		return unicode.IsControl(r) && !unicode.IsSpace(r)
	}) {
		return "it holds " + derKind([]byte(text)) + " in binary form, not PEM text: " + derFix([]byte(text), kind)
	}
	compact := strings.Join(strings.Fields(trimmed), "")
	if der, err := base64.StdEncoding.DecodeString(compact); err == nil && len(der) > 16 && der[0] == 0x30 {
		return "it holds the base64 of " + derKind(der) + " without the PEM armour (the lines " + begin +
			" and -----END …-----): " + derFix(der, kind)
	}
	return "it holds no block starting " + begin + " (the value is not shown)"
}

// looksLikePath reports whether s is a file name rather than PEM text: one line, no
// spaces, a directory part or a certificate file's extension.
func looksLikePath(s string) bool {
	if s == "" || len(s) > 1024 || strings.ContainsAny(s, "\n\r") {
		return false
	}
	lower := strings.ToLower(s)
	for _, ext := range []string{".pem", ".crt", ".cer", ".key", ".der", ".p12", ".pfx"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, "~/") || len(s) > 2 && s[1] == ':' && (s[2] == '\\' || s[2] == '/')
}

// derKind names the DER structure in der.
func derKind(der []byte) string {
	switch {
	case isPKCS12(der):
		return "a PKCS#12 bundle (.p12/.pfx)"
	case parsesAsCertificate(der):
		return "a DER certificate"
	case parsesAsKey(der):
		return "a DER private key"
	}
	return "data that is not PEM"
}

// derFix is the command that turns der into what kind asks for.
func derFix(der []byte, kind PEMKind) string {
	switch {
	case isPKCS12(der) && kind == PEMPrivateKey:
		return "take the key out of the bundle with `openssl pkcs12 -in bundle.p12 -nodes -nocerts -out key.pem`"
	case isPKCS12(der):
		return "take the certificates out of the bundle with `openssl pkcs12 -in bundle.p12 -nodes -nokeys -out cert.pem` " +
			"(and the key, for client_key_pem, with -nocerts instead of -nokeys)"
	case parsesAsKey(der):
		return "convert it with `openssl pkey -inform DER -in key.der -out key.pem`"
	case parsesAsCertificate(der):
		return "convert it with `openssl x509 -inform DER -in cert.der -out cert.pem`"
	}
	return "give the PEM text itself (it starts with -----BEGIN)"
}

func parsesAsCertificate(der []byte) bool {
	_, err := x509.ParseCertificate(der)
	return err == nil
}

func parsesAsKey(der []byte) bool {
	if _, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return true
	}
	if _, err := x509.ParseECPrivateKey(der); err == nil {
		return true
	}
	_, err := x509.ParsePKCS1PrivateKey(der)
	return err == nil
}

// isPKCS12 reports whether der is a PKCS#12 PFX: a SEQUENCE of the version 3 and a
// ContentInfo (RFC 7292, section 4).
func isPKCS12(der []byte) bool {
	var pfx struct {
		Version  int
		AuthSafe struct {
			ContentType asn1.ObjectIdentifier
			Content     asn1.RawValue `asn1:"tag:0,explicit,optional"`
		}
		MacData asn1.RawValue `asn1:"optional"`
	}
	if _, err := asn1.Unmarshal(der, &pfx); err != nil {
		return false
	}
	data, signed := asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}, asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}
	return pfx.Version == 3 && (pfx.AuthSafe.ContentType.Equal(data) || pfx.AuthSafe.ContentType.Equal(signed))
}

// ReadClientCertificate is ClientCertificate for values as people paste them: both
// normalised, and a value that is not what it must be named with its fix before the
// pair is matched.
func ReadClientCertificate(certPEM, keyPEM string) (tls.Certificate, error) {
	certPEM, keyPEM = NormalizePEM(certPEM), NormalizePEM(keyPEM)
	if certPEM != "" {
		if problem := PEMProblem(certPEM, PEMCertificates); problem != "" {
			return tls.Certificate{}, fmt.Errorf("client_cert_pem cannot be used: %s", problem)
		}
	}
	if keyPEM != "" {
		if problem := PEMProblem(keyPEM, PEMPrivateKey); problem != "" {
			return tls.Certificate{}, fmt.Errorf("client_key_pem cannot be used: %s", problem)
		}
	}
	return ClientCertificate(certPEM, keyPEM)
}

// readCACertificates adds the certificates of ca_cert_pem to pool.
func readCACertificates(pool *x509.CertPool, caPEM string) error {
	caPEM = NormalizePEM(caPEM)
	if problem := PEMProblem(caPEM, PEMCertificates); problem != "" {
		return fmt.Errorf("ca_cert_pem cannot be used: %s", problem)
	}
	if !pool.AppendCertsFromPEM([]byte(caPEM)) {
		return fmt.Errorf("ca_cert_pem holds no valid PEM-encoded certificate")
	}
	return nil
}
