package client

// The links of the token flow are a cache of /auth: the password grant, the token
// information and, from it, a token's extension and removal. An upgrade of the
// identity service may move them while a run goes on, and the old paths then answer
// 404 or 410: the client reads them again, once, and repeats the call where they lead.

import (
	"context"
	"errors"
	"fmt"
)

// linkGone reports whether err is the answer of a link that no longer serves: a
// status the table reads as Gone (404, 410), as a token service that moved answers
// at its old paths.
func linkGone(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && MeaningOf(callKindOf(apiErr.Method), apiErr.Status) == Gone
}

// followMoved repeats, once, a call to the token-flow link href (relation rel) that
// answered 404 or 410, with the link refind finds again. Any other outcome is
// returned as it is. When the link found again is the same, or answers 404 or 410
// too, the error is a *TokenServiceMovedError.
func (c *Client) followMoved(ctx context.Context, method, rel, href string, resp *response, err error,
	refind func() (string, error), call func(href string) (*response, error)) (*response, error) {
	if !linkGone(err) {
		return resp, err
	}
	path := pathOf(mustParse(href))
	logDebug(ctx, "a link of the token flow answered as gone; finding it again", map[string]any{
		"method": method, "path": path, "link": rel, "status": statusOf(err),
	})
	again, rerr := refind()
	if rerr != nil {
		return nil, fmt.Errorf("%s %s answered HTTP %d, and finding its link again failed: %w", method, path, statusOf(err), rerr)
	}
	moved := &TokenServiceMovedError{Method: method, Path: path, Link: rel, Status: statusOf(err), Err: err}
	if again == href {
		return nil, moved
	}
	if resp, err = call(again); linkGone(err) {
		moved.Again, moved.Err = pathOf(mustParse(again)), err
		return nil, moved
	}
	if err == nil {
		c.warnFallback(ctx, "token-service-moved", "The platform's token service moved while the provider ran: a link "+
			"found through /auth answered as gone, and the provider follows the one /auth gives now",
			map[string]any{"method": method, "from": path, "to": pathOf(mustParse(again)), "link": rel})
	}
	return resp, err
}

// discovered runs call with the link of the token flow that pick takes from the
// links discovery found, and follows a move of it (followMoved) by reading /auth again.
func (c *Client) discovered(ctx context.Context, method, rel string, pick func(*authEndpoints) string,
	call func(href string) (*response, error)) (*response, error) {
	ep, err := c.authEndpoints(ctx)
	if err != nil {
		return nil, err
	}
	href := pick(ep)
	resp, err := call(href)
	return c.followMoved(ctx, method, rel, href, resp, err, func() (string, error) {
		fresh, err := c.rediscover(ctx, ep)
		if err != nil {
			return "", err
		}
		return pick(fresh), nil
	}, call)
}

// rediscover forgets the links discovery found, unless another call has already
// found them again, and returns the links /auth gives now: many calls that meet the
// same move read /auth once.
func (c *Client) rediscover(ctx context.Context, stale *authEndpoints) (*authEndpoints, error) {
	c.discovery.resetIf(func(ep *authEndpoints) bool { return ep == stale })
	return c.authEndpoints(ctx)
}

// freshTokenLinks reads tok's links again from its token information resource (found
// again through /auth when it moved too) and keeps them on the token held.
func (c *Client) freshTokenLinks(ctx context.Context, tok *AccessToken) (*tokenLinks, error) {
	links, err := c.readTokenLinks(ctx, tok)
	if err != nil {
		return nil, err
	}
	c.keepTokenLinks(tok, links, true)
	return links, nil
}

// viaTokenLinks runs call with the link that pick takes from links, tok's, and follows
// a move of it (followMoved) by reading tok's links again.
func (c *Client) viaTokenLinks(ctx context.Context, tok *AccessToken, links *tokenLinks, method, rel string,
	pick func(*tokenLinks) string, call func(href string) (*response, error)) (*response, error) {
	href := pick(links)
	if href == "" {
		return nil, &MissingMemberError{Member: rel + " link", Object: "the platform token",
			Need: "the token information leads to no address for this call"}
	}
	resp, err := call(href)
	return c.followMoved(ctx, method, rel, href, resp, err, func() (string, error) {
		fresh, err := c.freshTokenLinks(ctx, tok)
		if err != nil {
			return "", err
		}
		return pick(fresh), nil
	}, call)
}

// TokenServiceMovedError is a link of the token flow that answered 404 or 410 even
// after the client read /auth again: the token service moved (an upgrade of the
// identity service), and /auth does not lead to where it went, or not yet. It is
// never a "not found" of the object a call was for: IsNotFound is false for it.
type TokenServiceMovedError struct {
	// Method and Path are the request, Link the relation of the link it followed
	// ("auth:ropc-default"), Status the answer.
	Method, Path, Link string
	Status             int
	// Again is the path of the link found when /auth was read again, when it differs
	// from Path and answered 404 or 410 too; "" when /auth still leads to Path.
	Again string
	// Err is the last answer.
	Err error
}

// Error names the link, the answer, and what reading /auth again found.
func (e *TokenServiceMovedError) Error() string {
	again := ", and /auth, read again, still leads there"
	if e.Again != "" {
		again = fmt.Sprintf(", and so did %s, where /auth leads when read again", e.Again)
	}
	return fmt.Sprintf("%s %s (the %s link found through /auth) answered HTTP %d%s: %v", e.Method, e.Path, e.Link,
		e.Status, again, e.Err)
}

// Unwrap returns the last answer.
func (e *TokenServiceMovedError) Unwrap() error { return e.Err }
