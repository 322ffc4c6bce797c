package client

// What the client does when an answer leaves a member out, for every member the
// answers behind the resources carry (the token flow, the administrator login and
// settings, the scores and views), in one place. A member the client needs to
// conclude is Needed, and Without is the error its caller then gets (a regular
// expression, for the test); any other member is optional, and its absence leaves the
// value the caller knew, or an unknown one, never a zero that reaches the state
// (reading table, rule 1). The provider's TestAccAnswerMembers takes the members from
// the answers themselves and fails on one without an entry here.

// AnswerMember is what an answer without the member means to the client.
type AnswerMember struct {
	// Needed is set when no conclusion can be drawn without the member.
	Needed bool
	// Without is, for a needed member, the error the caller gets (a regular
	// expression); for an optional one, what the client reads instead.
	Without string
	// ImportUnknown is the attribute an import cannot learn without the member (no
	// state to keep it from): it is then empty in the imported state.
	ImportUnknown string
	// LeavesLive is set for a member without which a credential the platform granted
	// is never known to the client, so it cannot be removed: it lives until it expires.
	LeavesLive bool
}

// AnswerMembers classifies every member by name; a numbered member of the settings
// (server0, server1, …) by its family's name with N (serverN).
var AnswerMembers = map[string]AnswerMember{
	// The token flow (contract B): what it needs to find the grant and use the token.
	"_links":                  needed("platform token discovery failed"),
	"href":                    needed("platform token discovery failed"),
	"auth:identity-providers": needed("platform token discovery failed"),
	"_embedded":               needed("platform token discovery failed"),
	"auth:identity-provider":  needed("platform token discovery failed"),
	"auth:ropc-default":       needed("platform token discovery failed"),
	"auth:token":              needed("platform token discovery failed"),
	"access_token":            optional("the serviceAccessToken cookie the grant also sets (contract B3)"),
	"name":                    optional("the one auth:token link there is, when it carries no name"),
	"kind":                    optional("the identity provider that has a password grant link"),
	"self":                    optional("not read, but as the token's removal address without auth-token:removal"),
	"auth-token:extend":       optional("the token is not extended: a new one is granted when it expires"),
	"auth-token:removal":      optional("the token information's self link, its own address"),
	"token_type":              optional("Bearer, the only type the grant gives"),
	"expires_in":              optional("the token information's expiry, or the lifetime learned from a 401"),
	"expiresIn":               optional("expiresAt"),
	"expiresAt":               optional("for a token, expiresIn; for a view, the lifetime asked for from when the request left"),
	"accessToken":             optional("the token the grant gave"),
	"scope":                   optional("not read"),
	// The administrator API (contract A).
	"token":                         {Needed: true, Without: "Unable to store external authentication settings", LeavesLive: true},
	"user":                          optional("not read"),
	"domainName":                    optional("what was sent, in a write's answer; the state's value in a read's"),
	"externalAuthenticationEnabled": optional("by what the platform has shown (rule 1): false, or the state's value"),
	"serverN":                       optional("what was sent, in a write's answer; the state's address in a read's"),
	"portN":                         optional("what was sent, in a write's answer; the state's port in a read's"),
	"enabledN":                      optional("by what the platform has shown (rule 1), else the state's value"),
	// The scores and views (contract C).
	"score":         needed("Unable to publish score"),
	"id":            needed("Unable to publish score"),
	"scores":        optional("an empty page: the walk reads the scores with GETs"),
	"count":         optional("0, checked against a listing before it is believed (V4)"),
	"scoreUrl":      {Without: "the state's address: a score's address never changes", ImportUnknown: "score_url"},
	"publisher":     optional("the alias the score was read by, or the state's alias"),
	"scoreId":       optional("the alias the score was read by, or the state's alias"),
	"identity":      optional("no publisher known: a restored score is not taken for the state's"),
	"options":       optional("a summary: the score is read whole once (rule 17)"),
	"transpose":     optional("the state's value: transpose never changes"),
	"status":        optional("the rendering wait ends at once, with a warning that names the missing status"),
	"createdAt":     optional("no creation time: the lag window and the adoption rules do not take the score"),
	"updatedAt":     optional("no rendering time learned"),
	"renderings":    optional("a summary for an idle score: read whole once; page_count stays unknown"),
	"format":        optional("not read"),
	"pages":         optional("page_count stays unknown"),
	"view":          needed("the answer holds no view"),
	"viewerUrl":     needed("the answer holds no view"),
	"settings":      optional("the view settings as configured"),
	"printable":     optional("as configured"),
	"licenseString": optional("as configured"),
	"lang":          optional("as configured"),
}

func needed(err string) AnswerMember       { return AnswerMember{Needed: true, Without: err} }
func optional(instead string) AnswerMember { return AnswerMember{Without: instead} }
