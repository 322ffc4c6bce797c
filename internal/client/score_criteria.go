package client

// The criteria of a list or a count in every form the specification's words allow.
// It gives `score` as an object and leaves open "whether each parameter travels in
// the query string or in a body". The contract sends an object in the query as JSON
// text (score={"status":"idle"}); a platform that reads objects in the query only in
// bracket form (OpenAPI's deepObject style, Express's qs, Spring's nested binding)
// answers that with 400, and one may take an object only in a JSON body. A 400 to one
// form is answered by the next; the form that worked is learned once per client,
// while the calls that need it wait for it, and used from then on.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
)

// criteriaForm is a form of the criteria in a request.
type criteriaForm int32

const (
	criteriaJSONText criteriaForm = iota // score={"status":"idle"}: the contract's
	criteriaBrackets                     // score[status]=idle, score[publisher][scoreId]=x
	criteriaBody                         // in a JSON body only, also on GET
	criteriaForms                        // the number of forms
)

// String names the form for the log.
func (f criteriaForm) String() string {
	switch f {
	case criteriaJSONText:
		return "JSON text in the query"
	case criteriaBrackets:
		return "bracket form in the query"
	}
	return "a JSON body"
}

// criteriaCodec is how this platform takes criteria: learned from the first call
// whose answer shows it, shared by every call of the client.
type criteriaCodec struct {
	learned atomic.Int32 // the form + 1; 0 while none is known
	once    sync.Once
	finding chan struct{} // held by the one call finding the form
}

// form returns the form learned, and whether one is.
func (e *criteriaCodec) form() (criteriaForm, bool) {
	n := e.learned.Load()
	return criteriaForm(max(n-1, 0)), n > 0
}

// find waits until no other call is finding the form (or ctx ends), and returns the
// release of this call's turn.
func (e *criteriaCodec) find(ctx context.Context) (release func(), err error) {
	e.once.Do(func() { e.finding = make(chan struct{}, 1) })
	select {
	case e.finding <- struct{}{}:
		return func() { <-e.finding }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// withCriteria sends req, a list or count whose query and body (when req carries one)
// hold its other parameters, with criteria (none when empty) in the form this platform
// takes, and body the whole body of the call (criteria included), for the body form.
// Until a form is known, calls with criteria go one at a time: a 400 to one form sends
// the call again in the next, and the form of the first answer that is not a 400 is
// learned, from a call that carries the criteria in its query alone or in the body
// form; a call that carries a body as well learns nothing from its query (the body may
// have won). When every form is refused, the error is the first form's.
func (c *Client) withCriteria(ctx context.Context, req *request, criteria map[string]string, body map[string]any,
	out any) error {
	if len(criteria) == 0 {
		_, err := c.do(ctx, req, out)
		return err
	}
	form, known := c.criteria.form()
	if !known {
		release, err := c.criteria.find(ctx)
		if err != nil {
			return err
		}
		defer release()
		form, known = c.criteria.form()
	}
	telling := !known && req.body == nil
	var firstErr error
	for try := form; try < criteriaForms; try++ {
		_, err := c.do(ctx, criteriaIn(req, criteria, body, try), out)
		switch {
		case firstErr == nil && statusOf(err) == http.StatusBadRequest && !known:
			firstErr = err
			continue
		case firstErr != nil && statusOf(err) == http.StatusBadRequest:
			continue
		case firstErr != nil && statusOf(err) != 0:
			// A later form refused otherwise (a CDN refusing a GET with a body): the
			// first form's 400 says more.
			return firstErr
		}
		if err == nil && (telling || (!known && try == criteriaBody)) {
			c.criteria.learned.Store(int32(try) + 1)
			if try != criteriaJSONText {
				c.warnFallback(ctx, "criteria-form", fmt.Sprintf("the platform refused the score criteria as JSON text in "+
					"the query (HTTP 400) and took them in %s; they travel so from now on", try), nil)
			}
		}
		return err
	}
	return firstErr
}

// criteriaIn is req with criteria in form: in its query, or in its body, which is then
// body.
func criteriaIn(req *request, criteria map[string]string, body map[string]any, form criteriaForm) *request {
	r := *req
	r.query = url.Values{}
	maps.Copy(r.query, req.query)
	switch form {
	case criteriaJSONText:
		text, _ := json.Marshal(criteria) // a map of strings always encodes
		r.query.Set("score", string(text))
	case criteriaBrackets:
		bracketParams(r.query, "score", criteria)
	default:
		r.body = body
	}
	return &r
}

// bracketParams adds v under name to q in bracket form: an object's members as
// name[member], nested objects as name[member][inner], anything else as its text.
func bracketParams(q url.Values, name string, v any) {
	switch v := v.(type) {
	case map[string]string:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			q.Add(name+"["+k+"]", v[k])
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			bracketParams(q, name+"["+k+"]", v[k])
		}
	case string:
		q.Add(name, v)
	default:
		q.Add(name, fmt.Sprint(v))
	}
}
