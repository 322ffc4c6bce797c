package client

// Deleting a score, and confirming that it is gone.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
)

// DeleteScore deletes a score by UUID or alias, purging its rendered assets
// when purge is set. A missing score gives an error for which IsNotFound holds.
func (c *Client) DeleteScore(ctx context.Context, idOrAlias string, purge bool) error {
	c.refresh.invalidate()
	defer c.refresh.invalidate()
	defer c.renders.forgetTotal() // the list shrank: the rendering waits count it again
	u, err := c.scoreURL(idOrAlias)
	if err != nil {
		return err
	}
	var q url.Values
	if purge {
		q = url.Values{"purge": {"true"}}
	}
	resp, err := c.do(ctx, &request{method: http.MethodDelete, url: u, query: q, auth: authPlatform}, nil)
	if err == nil && resp.status == http.StatusAccepted {
		// 202: accepted, not yet enacted (RFC 9110 §15.3.3). The delete returns when
		// its effect holds (the score and its alias are gone), or when ctx (the
		// delete's timeout) ends: a replacement or a new apply would otherwise meet
		// the alias still taken.
		return c.waitScoreGone(ctx, idOrAlias)
	}
	if IsForeignAnswer(err) {
		// A 2xx that is not the platform's (a WAF's "request blocked" page, a catch-all
		// front end) proves nothing: the score leaves the state only once the platform
		// itself says it is gone.
		_, gerr := c.GetScore(ctx, idOrAlias)
		switch {
		case IsNotFound(gerr):
			logDebug(c.logContext(ctx), "the delete's answer was not the platform's, but the score is gone", nil)
			return nil
		case gerr == nil:
			return fmt.Errorf("%w; and the score still exists on the platform, so it was not deleted", err)
		default:
			return fmt.Errorf("%w; and whether the score is gone is unknown: reading it failed: %w", err, gerr)
		}
	}
	return c.confirmScoreGone(ctx, err)
}

// waitScoreGone polls the score until the platform says it is gone (a 404 the
// collection confirms), backing off, within ctx.
func (c *Client) waitScoreGone(ctx context.Context, idOrAlias string) error {
	return poll(ctx, func() (bool, error) {
		_, err := c.GetScore(ctx, idOrAlias)
		switch {
		case IsNotFound(err):
			return true, nil
		case err != nil:
			return false, fmt.Errorf("the platform accepted the delete of score %q (HTTP 202); whether it is gone is unknown: %w", idOrAlias, err)
		}
		return false, nil
	}, func() string {
		return fmt.Sprintf("the platform accepted the delete of score %q (HTTP 202) but still holds it", idOrAlias)
	})
}

// scoreGone is what confirms that a score is gone.
type scoreGone struct {
	// collectionSeen is set once the score list has answered, which confirms that a 404
	// on a score's address means the score is gone.
	collectionSeen atomic.Bool
}

// confirmScoreGone checks a 404 from a score's address before it counts as "the
// score is gone" (contract §0): a wrong publishing address or a gateway without
// the route answers 404 too. The score collection must answer (GET
// /scores?limit=1 → 200); once it has, the answer is remembered for the life of
// the client. When it does not, the 404 becomes an *AddressError, for which
// IsNotFound is false. Any other error is returned as it is.
func (c *Client) confirmScoreGone(ctx context.Context, err error) error {
	if !IsNotFound(err) || c.gone.collectionSeen.Load() {
		return err
	}
	base, berr := c.PublishingURL()
	if berr != nil {
		return err
	}
	_, lerr := c.do(ctx, &request{method: http.MethodGet, url: base + "/scores", query: url.Values{"limit": {"1"}}, auth: authPlatform}, nil)
	switch {
	case lerr == nil:
		c.gone.collectionSeen.Store(true)
		return err
	case IsNotFound(lerr):
		return c.addressError(c.publishingSetting(), base, "/scores", fmt.Errorf("%w; and the score list at the same address answered %w", err, lerr))
	default:
		return fmt.Errorf("%w (whether the score is gone is unknown: checking the score list failed: %w)", stripNotFound(err), lerr)
	}
}

// stripNotFound returns err's text as an error for which IsNotFound is false.
func stripNotFound(err error) error { return errors.New(err.Error()) }
