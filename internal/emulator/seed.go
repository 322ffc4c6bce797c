package emulator

// Seeding: a known platform to start from (Options.Seed, the program's -seed flag),
// for module authors' tests. A seed is loaded at start and again by every reset.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Seed is a platform to start from: the external authentication settings, scores and
// scripted commands. Every part is optional.
type Seed struct {
	// Settings is the external authentication settings document, as PUT
	// /externalauth takes it (domainName, externalAuthenticationEnabled, serverN, …).
	Settings map[string]json.RawMessage `json:"settings,omitempty"`
	// Scores are published in order, each created a little before the start so that
	// its status is the one asked for.
	Scores []SeedScore `json:"scores,omitempty"`
	// Commands are command scripts, as POST /_emulator/commands takes them.
	Commands []CommandScript `json:"commands,omitempty"`
}

// SeedScore is one score of a Seed.
type SeedScore struct {
	// ScoreURL is required; ScoreID (the alias) and Transpose are optional.
	ScoreURL  string `json:"scoreUrl"`
	ScoreID   string `json:"scoreId,omitempty"`
	Transpose bool   `json:"transpose,omitempty"`
	// Status is the status at start: idle (the default), error, rendering or pending.
	// A pending or rendering score goes on rendering from there.
	Status string `json:"status,omitempty"`
	// User is the publisher (publisher.identity.user); default the first platform
	// account.
	User string `json:"user,omitempty"`
}

// Validate loads the seed into a scratch emulator with opts: the error names the
// first part that POST /scores, PUT /externalauth or POST /_emulator/commands would
// refuse.
func (s *Seed) Validate(opts Options) error {
	opts.Seed = nil
	return New(opts).load(s)
}

// ReadSeedFile reads a seed from a JSON file and checks it against the options the
// emulator will run with.
func ReadSeedFile(path string) (*Seed, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Seed
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("seed file %s: %w", path, err)
	}
	return &s, nil
}

// load puts the seed on the platform; it runs in New and in every reset, before any
// request is served.
func (e *Emulator) load(seed *Seed) error {
	if seed == nil {
		return nil
	}
	if len(seed.Settings) > 0 {
		domain, enabled, field, msg := parseSettings(seed.Settings)
		if field != "" {
			return fmt.Errorf("seed settings: %s: %s", field, msg)
		}
		servers, field, msg := parseServerSets(seed.Settings)
		if field != "" {
			return fmt.Errorf("seed settings: %s: %s", field, msg)
		}
		e.admin.mu.Lock()
		e.admin.domain, e.admin.enabled, e.admin.servers = domain, enabled, servers
		e.admin.mu.Unlock()
	}
	// Created a little apart, in order, before the start.
	base := e.scores.clock().UTC().Truncate(time.Millisecond).Add(-time.Duration(len(seed.Scores)) * time.Millisecond)
	for i, sc := range seed.Scores {
		if err := e.seedScore(sc, base.Add(time.Duration(i)*time.Millisecond)); err != nil {
			return fmt.Errorf("seed score %d (%s): %w", i, sc.ScoreURL, err)
		}
	}
	for i, script := range seed.Commands {
		if _, _, err := e.commands.create(script); err != nil {
			return fmt.Errorf("seed command %d: %w", i, err)
		}
	}
	return nil
}

// seedScore publishes one seeded score with the status it asks for (as if it had been
// published at now), under the same rules as POST /scores.
func (e *Emulator) seedScore(sc SeedScore, now time.Time) error {
	host, ok := scoreURLHost(sc.ScoreURL)
	if !ok {
		return fmt.Errorf("scoreUrl must be an absolute http or https URL with a host, at most %d characters, with "+
			"characters outside RFC 3986 percent-encoded", maxScoreURLLength)
	}
	if sc.ScoreID != "" {
		if bad := checkScoreAlias(sc.ScoreID); bad != nil {
			return fmt.Errorf("scoreId: %s", bad.message)
		}
	}
	user := sc.User
	if user == "" {
		for _, u := range e.opts.Users {
			if u.Platform {
				user = u.Name
				break
			}
		}
	}
	s := &e.scores
	delay := e.opts.RenderDelay
	rec := &scoreRecord{
		id: uuid.NewString(), scoreURL: sc.ScoreURL, alias: sc.ScoreID, user: user, transpose: sc.Transpose,
		fails: strings.HasSuffix(host, ".invalid"), pages: renderedPages(sc.ScoreURL),
	}
	switch sc.Status {
	case "", scoreStatusIdle:
		rec.createdAt = now.Add(-2*delay - time.Millisecond)
		if rec.fails {
			return fmt.Errorf("status %q: a score file on a host ending in .invalid never renders", sc.Status)
		}
	case scoreStatusError:
		rec.createdAt, rec.fails = now.Add(-2*delay-time.Millisecond), true
	case scoreStatusRendering:
		rec.createdAt = now.Add(-delay)
	case scoreStatusPending:
		rec.createdAt = now
	default:
		return fmt.Errorf("status %q: it must be idle, error, rendering or pending", sc.Status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc.ScoreID != "" {
		if _, taken := s.aliases[sc.ScoreID]; taken {
			return fmt.Errorf("scoreId %q is used twice", sc.ScoreID)
		}
		s.aliases[sc.ScoreID] = rec.id
	}
	s.scores[rec.id] = rec
	return nil
}
