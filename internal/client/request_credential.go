package client

// The credential seam: what the pipeline (request.go) asks of the credential a request
// carries, without knowing where it comes from. The administrator session (session.go)
// and the platform token cache (token_cache.go) implement it; a credential given with
// the call (an explicit token or session) is givenCredential.

import (
	"context"
	"net/http"
	"sync/atomic"
)

// authMode says which credential a request carries.
type authMode int

const (
	authNone     authMode = iota
	authAdmin             // the shared administrator session, header "token"
	authPlatform          // the shared platform access token, Bearer
	authBearer            // an explicit access token (request.cred), Bearer
	authSession           // an explicit administrator session (request.cred), header "token"
)

// credential is a request's credential, as the pipeline uses it.
type credential interface {
	// get returns the credential, loading it (a login, a grant) when none is held.
	get(ctx context.Context) (string, error)
	// set puts cred on a request's header.
	set(h http.Header, cred string)
	// drop forgets cred, which the platform refused, unless it was replaced already, and
	// reports whether a fresh one can be tried: never for a credential given with the call.
	drop(cred string) bool
	// forbidden reports whether a 403 to cred, loaded before the request, came from the
	// credential (it expired) rather than from something refusing the request.
	forbidden(ctx context.Context, cred string) bool
	// loadName names the request that loads it, for a call cut while it waits for that
	// load (CredentialWaitError): "platform token grant", "administrator login".
	loadName() string
}

// credentialFor is the credential r carries, nil for none.
func (c *Client) credentialFor(r *request) credential {
	switch r.auth {
	case authAdmin:
		return adminCredential{c}
	case authPlatform:
		return tokenCredential{c}
	case authBearer:
		return givenCredential{value: r.cred}
	case authSession:
		return givenCredential{value: r.cred, session: true}
	}
	return nil
}

// credentialLoads counts the administrator logins and token grants: a request whose
// credential was not loaded while it waited for it holds one that may have expired
// since (see do).
type credentialLoads struct{ n atomic.Uint64 }

// loaded counts one login or grant.
func (l *credentialLoads) loaded() { l.n.Add(1) }

// count is the number of logins and grants so far.
func (l *credentialLoads) count() uint64 { return l.n.Load() }

// givenCredential is a credential given with the call (request.cred): an access token,
// or an administrator session when session is set. The caller owns it: it is never
// dropped nor replaced.
type givenCredential struct {
	value   string
	session bool
}

func (g givenCredential) get(context.Context) (string, error) { return g.value, nil }

func (g givenCredential) set(h http.Header, cred string) {
	if g.session {
		h.Set("token", cred)
		return
	}
	h.Set("Authorization", "Bearer "+cred)
}

func (givenCredential) drop(string) bool { return false }

func (givenCredential) forbidden(context.Context, string) bool { return false }

func (givenCredential) loadName() string { return "" } // never loaded: nothing to wait for
