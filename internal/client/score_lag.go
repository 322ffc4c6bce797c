package client

// Reads that lag writes: a platform whose reads go to a replica answers 404 for a score
// it created moments ago. A refresh (RefreshRecordedScore) and a data source's read
// (ReadScore) read such a score again while it is young on the platform's clock, once
// the platform has shown lagging reads for a score whose age cannot be told.

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// ReadLagWindow is how long after a score's creation, on the platform's clock, a 404
// for it may be a read that lags the write: a platform whose reads go to a replica
// (after a failover, or by design, as eventually consistent services do) answers 404
// for a score it created moments ago, and lists without it. Past it, a 404 is taken as
// the platform's word. It bounds what a score deleted right after its creation costs a
// refresh: one wait of at most this long.
const ReadLagWindow = 10 * time.Second

// lagFallback is the kind in Client.fallbacks of lagging reads seen: a score that
// answered 404 moments after its creation was there after all.
const lagFallback = "lagging-reads"

// lagShown reports whether the platform has shown, in this process, that its reads
// lag its writes.
func (c *Client) lagShown() bool {
	return c.fallbacks.shown(lagFallback)
}

// lagRereadMax is the longest pause between two reads of a score that answered 404
// within ReadLagWindow.
const lagRereadMax = 2 * time.Second

// RefreshRecordedScore reads the score of UUID id for a refresh, as RefreshScore does,
// for a state that records its creation at createdAt (the platform's clock; zero when
// unknown). A 404 for a score younger than ReadLagWindow by the platform's clock may be
// a lagging read, so the score is not reported gone on its word: it is read again (a
// GET each time, with growing pauses), said at WARN, until it is found or is
// ReadLagWindow old, and at most ReadLagWindow from now. When its age cannot be told
// (createdAt ahead of the platform's clock, or that clock unknown), it is read again
// only once the platform has shown lagging reads in this process. Should the context end first,
// the error is not a NotFound: a state keeps a score whose absence was not shown.
func (c *Client) RefreshRecordedScore(ctx context.Context, id string, createdAt time.Time) (*Score, error) {
	c.refresh.noteCreated(id, createdAt)
	s, err := c.RefreshScore(ctx, id)
	if IsNotFound(err) && !createdAt.IsZero() {
		s, err = c.readAgainWhileYoung(ctx, id, createdAt, err)
	}
	if err == nil {
		c.refresh.noteScore(s)
	}
	return s, err
}

// ReadScore reads a score by UUID or alias for a data source, as RefreshScore does,
// and doubts a 404 as RefreshRecordedScore does: for a score this process published or
// refreshed from a state, by the creation time it saw; for any other, whose age cannot
// be told, only once the platform has shown lagging reads in this process.
func (c *Client) ReadScore(ctx context.Context, idOrAlias string) (*Score, error) {
	s, err := c.RefreshScore(ctx, idOrAlias)
	if IsNotFound(err) {
		s, err = c.readAgainWhileYoung(ctx, idOrAlias, c.refresh.createdAt(idOrAlias), err)
	}
	return s, err
}

// readAgainWhileYoung reads again, after err (a 404), the score known as idOrAlias
// (its UUID or alias) created at createdAt on the platform's clock (zero: unknown), as
// RefreshRecordedScore says, and returns what the last read found.
func (c *Client) readAgainWhileYoung(ctx context.Context, idOrAlias string, createdAt time.Time, err error) (*Score, error) {
	id := idOrAlias
	// The platform's time is read against this exchange's real time; the window is
	// waited out on the client's one clock.
	platformNow, known := c.PlatformTime(time.Now())
	start := c.local.Now()
	age := platformNow.Sub(createdAt)
	ageText := age.Round(time.Millisecond).String() + " after its creation"
	if createdAt.IsZero() {
		age, known, ageText = 0, false, "at an age this process cannot tell"
	}
	if age >= ReadLagWindow {
		return nil, err
	}
	if (age < 0 || !known) && !c.lagShown() {
		// The age cannot be told: a creation time ahead of the platform's clock (a clock
		// stepped back), or a platform whose answers carry no Date. Waiting the whole
		// window for each such score would cost every plan ReadLagWindow per score and
		// parallelism; the wait is worth it only on a platform that has shown lagging
		// reads in this process.
		return nil, err
	}
	// A creation time ahead of the platform's clock waits no longer than a score
	// created now would.
	deadline := start.Add(min(ReadLagWindow-age, ReadLagWindow))
	tflog.Warn(c.logContext(ctx), "a score created moments ago answered 404: the platform's reads may lag its writes "+
		"(a replica after a failover); reading it again before taking it as gone", map[string]any{
		"score": id, "age": ageText, "window": ReadLagWindow.String(),
	})
	pause := 250 * time.Millisecond
	for reads := 2; ; reads++ {
		if werr := c.local.Sleep(ctx, min(pause, deadline.Sub(c.local.Now()))); werr != nil {
			return nil, fmt.Errorf("score %s answered 404 %s, which may be a read lagging the "+
				"write, and reading it again stopped: %w", id, ageText, werr)
		}
		s, err := c.GetScore(ctx, id)
		switch {
		case err == nil:
			tflog.Warn(c.logContext(ctx), "the score that answered 404 moments after its creation is there: the "+
				"platform's reads lagged its writes", map[string]any{"score": id, "reads": reads,
				"after": c.local.Now().Sub(start).Round(time.Millisecond).String()})
			c.warnFallback(ctx, lagFallback, "the platform's reads lag its writes: from now on, a publish whose answer "+
				"was lost looks for its score until it is ReadLagWindow old before publishing again", nil)
			return s, nil
		case !IsNotFound(err):
			return nil, err
		case !c.local.Now().Before(deadline):
			logDebug(c.logContext(ctx), "the score still answers 404 past the window of lagging reads: it is gone",
				map[string]any{"score": id, "reads": reads})
			return nil, err
		}
		pause = min(2*pause, lagRereadMax)
	}
}
