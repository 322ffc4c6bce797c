package provider

// Small schema validators for the platform's constrained arguments. Each one skips
// null and unknown values (the framework's convention), so a value computed by another
// resource is checked when it becomes known, and reports the attribute path with a
// message a user can act on. All run at plan time, before any request.

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"golang.org/x/text/language"
)

var _ validator.String = stringValidator{}

// aliasPattern is the contract's alias syntax: 1–128 of [A-Za-z0-9._-].
var aliasPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// stringValidator is the common shape of the validators below: a description of
// the valid values and a check that returns the reason a value is invalid ("" when
// it is valid).
type stringValidator struct {
	description string
	check       func(string) string
}

func (v stringValidator) Description(context.Context) string {
	return v.description
}

func (v stringValidator) MarkdownDescription(context.Context) string {
	return v.description
}

func (v stringValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if reason := v.check(req.ConfigValue.ValueString()); reason != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid attribute value",
			fmt.Sprintf("Attribute %s value must be %s; %s.", req.Path, v.description, reason))
	}
}

// absoluteURL accepts an absolute http or https URL with a host.
func absoluteURL() validator.String {
	return stringValidator{
		description: "an absolute http or https URL",
		check:       checkAbsoluteURL,
	}
}

func checkAbsoluteURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Sprintf("%q does not parse: %s", s, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q has the scheme %q", s, u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Sprintf("%q has no host", s)
	}
	return ""
}

// scoreAlias accepts a score alias: 1–128 characters of [A-Za-z0-9._-] that do not
// form a UUID (a UUID would be ambiguous with the generated identifiers).
func scoreAlias() validator.String {
	return stringValidator{
		description: "1 to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-' that do not form a UUID",
		check:       checkScoreAlias,
	}
}

func checkScoreAlias(s string) string {
	if !aliasPattern.MatchString(s) {
		return fmt.Sprintf("got %q", s)
	}
	if isUUID(s) {
		return fmt.Sprintf("%q is a UUID", s)
	}
	return ""
}

// scoreReference accepts what the API takes as a score's {id}: a UUID or an alias.
func scoreReference() validator.String {
	return stringValidator{
		description: "a score UUID or a score alias (1 to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-')",
		check:       checkScoreReference,
	}
}

func checkScoreReference(s string) string {
	if isUUID(s) || aliasPattern.MatchString(s) {
		return ""
	}
	return fmt.Sprintf("got %q", s)
}

// isUUID reports whether s is a UUID in its canonical hyphenated form, the form
// the platform generates (uuid.Parse alone also accepts braces and URN prefixes).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// pageList accepts comma-separated page numbers and ranges such as "1-3,5,8-9":
// pages are at least 1 and a range's start is not after its end.
func pageList() validator.String {
	return stringValidator{
		description: `comma-separated page numbers and ranges such as "1-3,5,8-9" (pages from 1, ranges ascending)`,
		check:       checkPageList,
	}
}

func checkPageList(s string) string {
	if s == "" {
		return "got an empty string"
	}
	for _, item := range strings.Split(s, ",") {
		first, last, isRange := strings.Cut(item, "-")
		start, ok := pageNumber(first)
		if !ok {
			return fmt.Sprintf("%q is not a page number or range", item)
		}
		if !isRange {
			continue
		}
		end, ok := pageNumber(last)
		if !ok {
			return fmt.Sprintf("%q is not a page number or range", item)
		}
		if start > end {
			return fmt.Sprintf("the range %q starts after it ends", item)
		}
	}
	return ""
}

// pageNumber parses a decimal page number ≥ 1 made of digits only (no sign, no spaces).
func pageNumber(s string) (int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// languageTag accepts a well-formed BCP 47 language tag such as "en" or "fr-CA".
func languageTag() validator.String {
	return stringValidator{
		description: `a BCP 47 language tag such as "en" or "fr-CA"`,
		check:       checkLanguageTag,
	}
}

func checkLanguageTag(s string) string {
	// The parser also takes '_' as a separator; BCP 47 (and the platform) does not.
	if strings.ContainsAny(s, "_ ") {
		return fmt.Sprintf("%q: subtags are separated by '-' (for example \"fr-CA\")", s)
	}
	if _, err := language.Parse(s); err != nil {
		return fmt.Sprintf("%q: %s", s, err)
	}
	return ""
}

// positiveDuration accepts a Go duration string ("30s", "10m", "1h30m") greater than zero.
func positiveDuration() validator.String {
	return stringValidator{
		description: `a positive duration such as "30s", "10m" or "1h30m"`,
		check:       checkPositiveDuration,
	}
}

func checkPositiveDuration(s string) string {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Sprintf("%q does not parse: %s", s, err)
	case d <= 0:
		return fmt.Sprintf("%q is not positive", s)
	}
	return ""
}
