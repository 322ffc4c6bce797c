package provider

// The validators' hints, done as they say: the expression a message gives, put in the
// configuration, makes the problem go.

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccValidatorsHints_pemFileNameReadWithFile: ca_cert_pem given a file name is
// refused at plan time with `read the file with file("…")`; that expression, as the
// message gives it, reads the CA and the provider reaches the platform over TLS.
func TestAccValidatorsHints_pemFileNameReadWithFile(t *testing.T) {
	t.Parallel()
	emu, caPEM := newTLSTestEmulator(t)
	path := filepath.Join(t.TempDir(), "gateway-ca.pem")
	if err := os.WriteFile(path, []byte(caPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	v, ok := pemCertificates().(stringValidator)
	if !ok {
		t.Fatalf("pemCertificates is a %T", pemCertificates())
	}
	reason := v.check(path)
	hint := regexp.MustCompile(`read the file with (file\("[^"]*"\))`).FindStringSubmatch(reason)
	if hint == nil {
		t.Fatalf("the message for a file name gives no file() expression: %q", reason)
	}
	config := func(value string) string {
		return providerConfigPlus(emu, "ca_cert_pem = "+value+"\n") + `data "mediaplatform_health" "test" {}` + "\n"
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config:      config(`"` + path + `"`),
			PlanOnly:    true,
			ExpectError: errorPattern("ca_cert_pem", "it is a file name", hint[1]),
		}, {
			Config: config(hint[1]),
		}},
	})
}
