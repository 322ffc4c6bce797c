package provider

import (
	"os"
	"testing"
)

func TestQuietUnreadLogs(t *testing.T) {
	quieted := []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_MEDIAPLATFORM"}
	for _, tc := range []struct {
		name, set string
		wantOff   bool
	}{
		{name: "no TF_LOG variable", wantOff: true},
		{name: "TF_LOG", set: "TF_LOG", wantOff: false},
		{name: "TF_LOG_PROVIDER", set: "TF_LOG_PROVIDER", wantOff: false},
		{name: "TF_LOG_SDK_PROTO", set: "TF_LOG_SDK_PROTO", wantOff: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range append(quieted, "TF_LOG", "TF_LOG_PROVIDER") {
				t.Setenv(name, "")
				if err := os.Unsetenv(name); err != nil {
					t.Fatal(err)
				}
			}
			if tc.set != "" {
				t.Setenv(tc.set, "trace")
			}
			quietUnreadLogs()
			for _, name := range quieted {
				if name == tc.set {
					continue
				}
				if got := os.Getenv(name) == "OFF"; got != tc.wantOff {
					t.Errorf("%s = %q, want OFF: %v", name, os.Getenv(name), tc.wantOff)
				}
			}
		})
	}
}
