package client

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// pemCase is a value of a PEM setting as someone may paste it, and the start of the
// problem it must be named with ("" when it is accepted).
type pemCase struct {
	name, value string
	kind        PEMKind
	want        []string
}

// pemCases are the values people paste: what is unambiguous is accepted, the rest
// named with its fix.
func pemCases(t *testing.T) (cases []pemCase, cert, key string) {
	t.Helper()
	ca := testca.New(t, "paste CA")
	cert, key = ca.Issue(t, "paste", time.Now().Add(time.Hour))
	certDER, _ := pem.Decode([]byte(cert))
	keyDER, _ := pem.Decode([]byte(key))
	indent := func(s string) string {
		return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
	}
	escaped := func(s string) string { return strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", `\n`) }
	//nolint:staticcheck // the legacy encryption is what an old openssl wrote; it must be recognised
	legacy, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", keyDER.Bytes, []byte("secret"), x509.PEMCipherAES256)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8Encrypted := string(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{0x30, 0x03, 0x02, 0x01, 0x00}}))
	p12 := minimalPKCS12(t)

	cases = []pemCase{
		{"a certificate", cert, PEMCertificates, nil},
		{"a certificate, every line indented (<<EOT)", indent(cert), PEMCertificates, nil},
		{"a certificate with spaces and blank lines around it", "\n  \t" + cert + "\n\n  ", PEMCertificates, nil},
		{"a certificate with Windows line ends", strings.ReplaceAll(cert, "\n", "\r\n"), PEMCertificates, nil},
		{"a key", key, PEMPrivateKey, nil},
		{"a key, every line indented", indent(key), PEMPrivateKey, nil},
		{"a key with Windows line ends and a leading space", " " + strings.ReplaceAll(key, "\n", "\r\n"), PEMPrivateKey, nil},

		{"a certificate with escaped line breaks", escaped(cert), PEMCertificates, []string{`it holds the two characters \n where its lines should break`, `replace(value, "\\n", "\n")`}},
		{"a key with escaped line breaks", escaped(key), PEMPrivateKey, []string{`it holds the two characters \n`}},
		{"an absolute file path", "/etc/ssl/gateway-ca.pem", PEMCertificates, []string{`it is a file name, not the PEM text of a certificate: read the file with file("/etc/ssl/gateway-ca.pem")`}},
		{"a relative file path", "certs/ca.crt", PEMCertificates, []string{"it is a file name", `file("certs/ca.crt")`}},
		{"a Windows path", `C:\certs\ca`, PEMCertificates, []string{"it is a file name", `file("C:\\certs\\ca")`}},
		{"a key's file path, not quoted", "./secrets/client-key.pem", PEMPrivateKey, []string{`it is a file name, not the PEM text of a private key: read the file with file("path")`}},
		{"a DER certificate", string(certDER.Bytes), PEMCertificates, []string{"it holds a DER certificate in binary form, not PEM text", "openssl x509 -inform DER -in cert.der -out cert.pem"}},
		{"a DER key", string(keyDER.Bytes), PEMPrivateKey, []string{"it holds a DER private key in binary form", "openssl pkey -inform DER -in key.der -out key.pem"}},
		{"base64 of a DER certificate without armour", base64.StdEncoding.EncodeToString(certDER.Bytes), PEMCertificates, []string{"it holds the base64 of a DER certificate without the PEM armour", "openssl x509 -inform DER"}},
		{"a PKCS#12 bundle", string(p12), PEMCertificates, []string{"it holds a PKCS#12 bundle (.p12/.pfx) in binary form", "openssl pkcs12 -in bundle.p12 -nodes -nokeys -out cert.pem"}},
		{"a PKCS#12 bundle as the key", string(p12), PEMPrivateKey, []string{"it holds a PKCS#12 bundle", "openssl pkcs12 -in bundle.p12 -nodes -nocerts -out key.pem"}},
		{"base64 of a PKCS#12 bundle", base64.StdEncoding.EncodeToString(p12), PEMPrivateKey, []string{"it holds the base64 of a PKCS#12 bundle (.p12/.pfx) without the PEM armour"}},
		{"an encrypted key (openssl's legacy form)", string(pem.EncodeToMemory(legacy)), PEMPrivateKey, []string{"it holds an encrypted private key, and the provider needs it unencrypted", "openssl pkey -in key.pem -out plain.pem"}},
		{"an encrypted key (PKCS #8)", pkcs8Encrypted, PEMPrivateKey, []string{"it holds an encrypted private key"}},
		{"a key where the certificate goes", key, PEMCertificates, []string{"it holds a private key and no certificate"}},
		{"a certificate where the key goes", cert, PEMPrivateKey, []string{"it holds a certificate and no private key", "the certificate goes in client_cert_pem"}},
		{"text that is no PEM", "hello", PEMCertificates, []string{"it holds no block starting -----BEGIN CERTIFICATE-----"}},
		{"nothing but spaces", "  \n", PEMCertificates, []string{"it is empty"}},
	}
	if openssl, err := exec.LookPath("openssl"); err == nil {
		// A bundle as openssl writes it, besides the minimal one built above.
		dir := t.TempDir()
		for name, content := range map[string]string{"cert.pem": cert, "key.pem": key} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(dir, "bundle.p12")
		cmd := exec.CommandContext(t.Context(), openssl, "pkcs12", "-export", "-in", "cert.pem", "-inkey", "key.pem", "-out", out, "-passout", "pass:x")
		cmd.Dir = dir
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl pkcs12 -export: %v\n%s", err, msg)
		}
		bundle, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, pemCase{"a PKCS#12 bundle written by openssl", string(bundle), PEMCertificates,
			[]string{"it holds a PKCS#12 bundle (.p12/.pfx) in binary form"}})
	} else {
		t.Log("openssl is not on PATH: the bundle written by openssl is not checked, the minimal one is")
	}
	return cases, cert, key
}

// minimalPKCS12 is the smallest PFX: version 3 and a data ContentInfo.
func minimalPKCS12(t *testing.T) []byte {
	t.Helper()
	der, err := asn1.Marshal(struct {
		Version  int
		AuthSafe struct {
			ContentType asn1.ObjectIdentifier
			Content     asn1.RawValue `asn1:"tag:0,explicit"`
		}
	}{Version: 3, AuthSafe: struct {
		ContentType asn1.ObjectIdentifier
		Content     asn1.RawValue `asn1:"tag:0,explicit"`
	}{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}, asn1.RawValue{Tag: asn1.TagOctetString, Bytes: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}}})
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func TestPEMProblem_asPeoplePasteIt(t *testing.T) {
	t.Parallel()
	cases, _, _ := pemCases(t)
	for _, tc := range cases {
		got := PEMProblem(NormalizePEM(tc.value), tc.kind)
		switch {
		case tc.want == nil && got != "":
			t.Errorf("%s: refused: %s", tc.name, got)
		case tc.want != nil && got == "":
			t.Errorf("%s: accepted", tc.name)
		}
		for i, want := range tc.want {
			if i == 0 && !strings.HasPrefix(got, want) || !strings.Contains(got, want) {
				t.Errorf("%s: got %q, want it to contain %q", tc.name, got, want)
			}
		}
		if tc.kind == PEMPrivateKey && tc.want != nil && len(tc.value) > 40 && strings.Contains(got, tc.value[20:40]) {
			t.Errorf("%s: the problem quotes the key: %q", tc.name, got)
		}
	}
}

// TestNew_readsPEMAsTheChecksDo: the client accepts exactly the values the provider's
// plan-time checks accept (PEMProblem), as ca_cert_pem and as the client certificate
// and key, so a value that passes the plan never fails in the client, and the
// reverse.
func TestNew_readsPEMAsTheChecksDo(t *testing.T) {
	t.Parallel()
	cases, cert, key := pemCases(t)
	for _, tc := range cases {
		cfg := Config{PlatformURL: "https://platform.example"}
		switch tc.kind {
		case PEMCertificates:
			cfg.CACertPEM = tc.value
		case PEMPrivateKey:
			cfg.ClientCertPEM, cfg.ClientKeyPEM = cert, tc.value
		}
		c, err := New(cfg)
		accepted := PEMProblem(NormalizePEM(tc.value), tc.kind) == ""
		switch {
		case accepted && err != nil:
			t.Errorf("%s: passes the checks, refused by the client: %v", tc.name, err)
		case !accepted && err == nil:
			t.Errorf("%s: refused by the checks, accepted by the client", tc.name)
		case err != nil && tc.want != nil && !strings.Contains(err.Error(), tc.want[0]):
			t.Errorf("%s: the client's error %q lacks %q", tc.name, err, tc.want[0])
		}
		if c != nil {
			_ = c.Close(t.Context())
		}
	}
	// The pair, indented as a heredoc leaves it and with Windows line ends.
	indented := "  " + strings.ReplaceAll(cert, "\n", "\n  ")
	if _, err := ReadClientCertificate(indented, strings.ReplaceAll(key, "\n", "\r\n")); err != nil {
		t.Errorf("an indented certificate with its key in CRLF: %v", err)
	}
}

// TestPEMProblem_theFixesWork runs the openssl commands that the errors and the guide
// give for an encrypted key and a PKCS#12 bundle (with the passphrase on the command
// line instead of at the prompt), and checks that what they write is accepted and
// makes a pair: the advice is not a guess.
func TestPEMProblem_theFixesWork(t *testing.T) {
	t.Parallel()
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl is not on PATH: the commands the errors give cannot be run")
	}
	cert, key := testca.New(t, "fix CA").Issue(t, "fix", time.Now().Add(time.Hour))
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), openssl, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for name, content := range map[string]string{"cert.pem": cert, "plain-key.pem": key} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// An encrypted key, as a secret store may hold it.
	run("pkey", "-in", "plain-key.pem", "-aes256", "-passout", "pass:secret", "-out", "key.pem")
	if got := PEMProblem(NormalizePEM(read("key.pem")), PEMPrivateKey); !strings.Contains(got, "openssl pkey -in key.pem -out plain.pem") {
		t.Fatalf("an encrypted key written by openssl: %q", got)
	}
	run("pkey", "-in", "key.pem", "-passin", "pass:secret", "-out", "plain.pem")
	if _, err := ReadClientCertificate(cert, read("plain.pem")); err != nil {
		t.Errorf("the key decrypted as the error says: %v", err)
	}

	// A PKCS#12 bundle.
	run("pkcs12", "-export", "-in", "cert.pem", "-inkey", "plain-key.pem", "-passout", "pass:secret", "-out", "bundle.p12")
	bundle := read("bundle.p12")
	if got := PEMProblem(bundle, PEMCertificates); !strings.Contains(got, "openssl pkcs12 -in bundle.p12 -nodes -nokeys -out cert.pem") {
		t.Fatalf("a PKCS#12 bundle as the certificate: %q", got)
	}
	if got := PEMProblem(bundle, PEMPrivateKey); !strings.Contains(got, "openssl pkcs12 -in bundle.p12 -nodes -nocerts -out key.pem") {
		t.Fatalf("a PKCS#12 bundle as the key: %q", got)
	}
	run("pkcs12", "-in", "bundle.p12", "-passin", "pass:secret", "-nodes", "-nokeys", "-out", "bundle-cert.pem")
	run("pkcs12", "-in", "bundle.p12", "-passin", "pass:secret", "-nodes", "-nocerts", "-out", "bundle-key.pem")
	// openssl writes "Bag Attributes" lines before each block: still PEM.
	if _, err := ReadClientCertificate(read("bundle-cert.pem"), read("bundle-key.pem")); err != nil {
		t.Errorf("the certificate and key taken out of the bundle as the errors say: %v", err)
	}

	// DER files, as some tools write them: the errors' commands, run as they give them.
	run("x509", "-in", "cert.pem", "-outform", "DER", "-out", "cert.der")
	run("pkey", "-in", "plain-key.pem", "-outform", "DER", "-out", "key.der")
	command := regexp.MustCompile("`openssl ([^`]*)`")
	for _, c := range []struct {
		file string
		kind PEMKind
	}{{"cert.der", PEMCertificates}, {"key.der", PEMPrivateKey}} {
		got := PEMProblem(read(c.file), c.kind)
		m := command.FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("%s: the error gives no openssl command: %q", c.file, got)
		}
		run(strings.Fields(m[1])...)
	}
	if _, err := ReadClientCertificate(read("cert.pem"), read("key.pem")); err != nil {
		t.Errorf("the certificate and key converted from DER as the errors say: %v", err)
	}
}
