package client

// The ledger of granted tokens: the platform tokens the client granted that are
// neither removed nor refused yet, those its token cache brought and those it handed
// out (GrantAccessToken, the ephemeral resource's). Close removes every one
// (exitTokens), not only the one the cache holds: a token replaced while valid is
// removed in the background (renewToken), which may have failed or still be under
// way; and a token handed out is removed by its holder only when Terraform closes the
// ephemeral resource, which it does not promise on a Ctrl-C, a SIGTERM or its own
// death.

import (
	"context"
	"sync"
)

// tokenLedger holds the tokens granted and not seen removed, by token, and counts
// the grants for the caller still under way.
type tokenLedger struct {
	mu        sync.Mutex
	tokens    map[string]*AccessToken
	handedOut map[string]bool // the tokens of tokens that GrantAccessToken returned
	granting  int             // GrantAccessToken calls under way
}

// record adds tok.
func (l *tokenLedger) record(tok *AccessToken) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tokens == nil {
		l.tokens = map[string]*AccessToken{}
	}
	l.tokens[tok.Token] = tok
}

// recordHandedOut adds tok, a token granted for the caller.
func (l *tokenLedger) recordHandedOut(tok *AccessToken) {
	l.record(tok)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.handedOut == nil {
		l.handedOut = map[string]bool{}
	}
	l.handedOut[tok.Token] = true
}

// extended replaces a recorded token by its extension, which expires later: the exit
// skips a token it believes expired. A token not recorded stays unrecorded.
func (l *tokenLedger) extended(tok *AccessToken) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.tokens[tok.Token]; ok {
		l.tokens[tok.Token] = tok
	}
}

// forget drops token: it was removed, or the platform no longer takes it.
func (l *tokenLedger) forget(token string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.tokens, token)
	delete(l.handedOut, token)
}

// all returns the tokens recorded and not forgotten.
func (l *tokenLedger) all() []*AccessToken {
	l.mu.Lock()
	defer l.mu.Unlock()
	tokens := make([]*AccessToken, 0, len(l.tokens))
	for _, tok := range l.tokens {
		tokens = append(tokens, tok)
	}
	return tokens
}

// kind names token in the exit's report: the client's own or one handed out.
func (l *tokenLedger) kind(token string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.handedOut[token] {
		return "handed-out platform token"
	}
	return "platform token"
}

// grantStarted and grantDone bracket a grant for the caller; grantsUnderWay reports
// whether one is under way, whose token the exit cannot remove.
func (l *tokenLedger) grantStarted() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.granting++
}

func (l *tokenLedger) grantDone() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.granting--
}

func (l *tokenLedger) grantsUnderWay() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.granting > 0
}

// loadToken is the token cache's load (renewToken); it records the token it brings.
func (c *Client) loadToken(ctx context.Context, held *AccessToken, has bool) (*AccessToken, error) {
	tok, err := c.renewToken(ctx, held, has)
	if err == nil && tok != nil {
		c.granted.record(tok)
	}
	return tok, err
}
