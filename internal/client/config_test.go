package client

import (
	"testing"
)

func TestApplyEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{EnvAdminURL: "https://env/api/v1", EnvPassword: "env-pass", EnvPublishingService: "svc"}
	cfg := Config{AdminURL: "https://config/api/v1"}
	cfg.ApplyEnv(func(k string) string { return env[k] })
	if cfg.AdminURL != "https://config/api/v1" || cfg.Password != "env-pass" || cfg.PublishingService != "svc" {
		t.Errorf("ApplyEnv: %+v", cfg)
	}
}

func TestSurroundingSpace(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":           "",
		"secret":     "",
		"sec ret":    "",
		"secret\n":   "ends with a line break",
		"secret\r\n": "ends with a line break",
		" secret":    "starts with a space",
		"\tsecret\n": "starts with a tab and ends with a line break",
		"secret ":    "ends with a space",
		" \n":        "is nothing but whitespace",
	} {
		if got := SurroundingSpace(in); got != want {
			t.Errorf("SurroundingSpace(%q) = %q, want %q", in, got, want)
		}
	}
}
