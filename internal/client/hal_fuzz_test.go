package client

// The fuzz target of hal.go: HAL links, one or many per relation, templated or not,
// and the resolution of their hrefs.

import (
	"net/url"
	"testing"
)

// FuzzLinks fuzzes a HAL _links object: a relation it reads is found whatever the
// case of its name, its links expand (RFC 6570) and resolve against the document's
// address without a panic, and a resolved href is an absolute URL.
func FuzzLinks(f *testing.F) {
	for _, kind := range []string{kindLinks, kindTokenInfo, kindCommand, kindScores} {
		for _, b := range answersOf(f, kind) {
			f.Add(b)
		}
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Add([]byte(`{"_links": {"Auth:Token": [{"href": "{+x}{/y*}{?z:99999999}{#w}", "name": "current"}], ` +
		`"self": {"href": "{", "templated": true}, "next": null, "x": [null, {}]}}`))
	base, _ := url.Parse("https://platform.example:8443/auth/identity-providers?x=1")
	f.Fuzz(func(t *testing.T, body []byte) {
		var doc struct {
			Links Links `json:"_links"`
		}
		if decodeAnswer(body, "", &doc) != nil {
			return
		}
		within(t, "reading links", body, func() {
			for rel, links := range doc.Links {
				first, ok := doc.Links.First(rel)
				if !ok && len(links) > 0 {
					t.Fatalf("the relation %q holds %d links, and First finds none", rel, len(links))
				}
				for _, l := range links {
					_, _ = doc.Links.Named(rel, l.Name)
				}
				if !ok {
					continue
				}
				href, err := resolveHref(base, first.Href)
				if err != nil {
					continue
				}
				if u, err := url.Parse(href); err != nil || !u.IsAbs() {
					t.Fatalf("the href %q of %q resolves to %q, which is not an absolute URL (%v)", first.Href, rel, href, err)
				}
			}
		})
	})
}
