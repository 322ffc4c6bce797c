package client

// The ledger of granted tokens: the platform tokens the token cache brought that are
// neither removed nor refused yet. Close removes every one (exitTokens), not only the
// one the cache holds: a token replaced while valid is removed in the background
// (renewToken), which may have failed or still be under way.

import (
	"context"
	"sync"
)

// tokenLedger holds the tokens granted and not seen removed, by token.
type tokenLedger struct {
	mu     sync.Mutex
	tokens map[string]*AccessToken
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

// forget drops token: it was removed, or the platform no longer takes it.
func (l *tokenLedger) forget(token string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.tokens, token)
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

// loadToken is the token cache's load (renewToken); it records the token it brings.
func (c *Client) loadToken(ctx context.Context, held *AccessToken, has bool) (*AccessToken, error) {
	tok, err := c.renewToken(ctx, held, has)
	if err == nil && tok != nil {
		c.granted.record(tok)
	}
	return tok, err
}
