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
