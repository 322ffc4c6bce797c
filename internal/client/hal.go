package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	stduritemplate "github.com/std-uritemplate/std-uritemplate/go/v2"
)

// Link is a HAL link object.
type Link struct {
	Href      string `json:"href"`
	Name      string `json:"name,omitempty"`
	Templated bool   `json:"templated,omitempty"`
	Title     string `json:"title,omitempty"`
}

// Links are the HAL links of a resource by relation. Every relation is read
// as an array; a relation given as a single object (such as "self") becomes
// an array of one.
type Links map[string][]Link

// UnmarshalJSON accepts each relation as an array or a single object.
func (l *Links) UnmarshalJSON(b []byte) error {
	var m map[string]oneOrMany[Link]
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*l = make(Links, len(m))
	for rel, links := range m {
		(*l)[rel] = links
	}
	return nil
}

// relation returns the links of relation rel, compared without regard to case when
// no relation is spelt exactly so (RFC 8288 §2.1.1: relation types compare
// case-insensitively).
func (l Links) relation(rel string) []Link {
	if links, ok := l[rel]; ok {
		return links
	}
	for r, links := range l {
		if strings.EqualFold(r, rel) {
			return links
		}
	}
	return nil
}

// First returns the first link of relation rel, its href expanded (see expanded).
func (l Links) First(rel string) (Link, bool) {
	if links := l.relation(rel); len(links) > 0 {
		return links[0].expanded(), true
	}
	return Link{}, false
}

// Named returns the link of relation rel with the given name, its href expanded (see
// expanded).
func (l Links) Named(rel, name string) (Link, bool) {
	for _, link := range l.relation(rel) {
		if link.Name == name {
			return link.expanded(), true
		}
	}
	return Link{}, false
}

// expanded returns the link with its href expanded as an RFC 6570 URI template with
// no variables (rule "every link may be a template"): contract §0 lets any link be
// templated, and a link the client follows has no variable the client could fill, so
// an optional expression such as {?fields} expands to nothing. An href holding a
// brace is taken as a template even without "templated": braces are not allowed in a
// URI (RFC 3986 §2), so no plain href has one.
func (l Link) expanded() Link {
	if !l.Templated && !strings.ContainsAny(l.Href, "{}") {
		return l
	}
	if href, err := stduritemplate.Expand(l.Href, stduritemplate.Substitutions{}); err == nil {
		l.Href, l.Templated = href, false
	}
	return l
}

// oneOrMany decodes a JSON array of T, or a single T as an array of one.
type oneOrMany[T any] []T

// UnmarshalJSON accepts an array, a single value or null.
func (o *oneOrMany[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		*o = nil
		return nil
	case b[0] == '[':
		var many []T
		if err := json.Unmarshal(b, &many); err != nil {
			return err
		}
		*o = many
		return nil
	default:
		var one T
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*o = []T{one}
		return nil
	}
}

// resolveHref resolves a possibly relative href against the document address.
func resolveHref(base *url.URL, href string) (string, error) {
	ref, err := url.Parse(href)
	if err != nil {
		return "", fmt.Errorf("invalid href %q: %w", href, err)
	}
	if base == nil {
		if !ref.IsAbs() {
			return "", fmt.Errorf("relative href %q without a base address", href)
		}
		return ref.String(), nil
	}
	return base.ResolveReference(ref).String(), nil
}
