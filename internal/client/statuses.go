package client

// What an answer's status means, for the kind of call that met it: one table for every
// status that RFC 9110 and its companions define (Go's http.StatusText is the
// registry), read by every predicate (IsNotFound, IsConflict, …) and so by every call.
// A status means the same wherever it is met, and a status no platform has sent yet
// already has a meaning: a read of a score answered 410 Gone by a platform that keeps
// tombstones drops the score as a 404 does, and a delete forgives it. A status the
// table gives no meaning for a call (Meaningless) is reported naming the status and
// the call. statuses_test.go derives its cases from the table's rows for every call
// kind, and fails on a registered status without a row.

import (
	"errors"
	"net/http"
)

// Meaning is what a status says about the call that met it.
type Meaning int

// The meanings a status may have for a call.
const (
	// Meaningless: the table gives the status no meaning for the call; the error
	// names the status and the call, and nothing is concluded from it.
	Meaningless Meaning = iota
	// Gone: the object the call addressed is not there (404 Not Found, 410 Gone). A read
	// drops it (once its collection answered, contract §0), a delete is done. Where the
	// call addressed what the platform always serves (the settings, a collection, a
	// discovered link), the address is wrong instead (addressError, linkGone).
	Gone
	// Conflict: the call collides with the platform's state (409; 412 and 428, a
	// precondition; 423, a lock): an alias taken, a change made meanwhile.
	Conflict
	// RefusedArguments: the platform refused what the call sent (400, 413, 414, 415, 416,
	// 422, 431): a parameter missing, malformed, too large or of a type it does not take.
	RefusedArguments
	// RefusedCredentials: the credential the call carried is not taken (401).
	RefusedCredentials
	// NotAllowed: the caller is known but may not do this (403, 451).
	NotAllowed
	// Throttled: the platform asks to come back later (429; 503 Service Unavailable),
	// before the call had any effect (contract §0).
	Throttled
	// Transient: the call may succeed if repeated (408, 425, 500, 502, 504, 507, 508);
	// a 502 or 504 may come after the effect.
	Transient
	// NotServed: the address does not serve the call's method or feature (405, 406, 501,
	// 505, 510): a wrong address or another kind of server.
	NotServed
	// NotThePlatforms: something between the client and the platform answered: a proxy
	// that wants a login (407), a server for another host (421), a TLS port asked in
	// plain HTTP (426; many servers send 400 for that too), a captive portal (511).
	NotThePlatforms
)

// String names the meaning in an error or a lead.
func (m Meaning) String() string {
	switch m {
	case Gone:
		return "gone"
	case Conflict:
		return "conflict"
	case RefusedArguments:
		return "refused arguments"
	case RefusedCredentials:
		return "refused credentials"
	case NotAllowed:
		return "not allowed"
	case Throttled:
		return "throttled"
	case Transient:
		return "transient"
	case NotServed:
		return "not served"
	case NotThePlatforms:
		return "not the platform's"
	}
	return "no meaning for this call"
}

// CallKind is what a call does to the object it addresses, as its method says.
type CallKind int

// The kinds of call.
const (
	// CallRead reads an object or a collection (GET, HEAD).
	CallRead CallKind = iota
	// CallWrite creates or changes (POST, PUT, PATCH): a login and a token grant too.
	CallWrite
	// CallDelete removes an object (DELETE).
	CallDelete
)

// CallKinds lists every kind of call, for the tests that derive their cases.
var CallKinds = []CallKind{CallRead, CallWrite, CallDelete}

// String names the kind in a lead.
func (k CallKind) String() string {
	switch k {
	case CallWrite:
		return "write"
	case CallDelete:
		return "delete"
	}
	return "read"
}

// callKindOf is the kind of a call by its method.
func callKindOf(method string) CallKind {
	switch method {
	case http.MethodDelete:
		return CallDelete
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		return CallWrite
	}
	return CallRead
}

// statusMeanings is the table: every status in the 4xx and 5xx ranges that
// http.StatusText knows, with what it means for every kind of call. A status absent
// from a kind's column means nothing for that kind (Meaningless). 1xx never reaches a
// caller; 2xx and 3xx are read by the pipeline (request.go, request_answers.go) before
// any error exists.
var statusMeanings = map[int]map[CallKind]Meaning{
	http.StatusBadRequest:                   every(RefusedArguments),
	http.StatusUnauthorized:                 every(RefusedCredentials),
	http.StatusPaymentRequired:              every(NotAllowed),
	http.StatusForbidden:                    every(NotAllowed),
	http.StatusNotFound:                     every(Gone),
	http.StatusMethodNotAllowed:             every(NotServed),
	http.StatusNotAcceptable:                every(NotServed),
	http.StatusProxyAuthRequired:            every(NotThePlatforms),
	http.StatusRequestTimeout:               every(Transient),
	http.StatusConflict:                     every(Conflict),
	http.StatusGone:                         every(Gone),
	http.StatusLengthRequired:               every(RefusedArguments),
	http.StatusPreconditionFailed:           every(Conflict),
	http.StatusRequestEntityTooLarge:        every(RefusedArguments),
	http.StatusRequestURITooLong:            every(RefusedArguments),
	http.StatusUnsupportedMediaType:         every(RefusedArguments),
	http.StatusRequestedRangeNotSatisfiable: every(RefusedArguments),
	http.StatusExpectationFailed:            every(RefusedArguments),
	// 418 (RFC 2324, kept by RFC 9110 §15.5.19 as unused): no platform's meaning.
	http.StatusTeapot:                        {},
	http.StatusMisdirectedRequest:            every(NotThePlatforms),
	http.StatusUnprocessableEntity:           every(RefusedArguments),
	http.StatusLocked:                        every(Conflict),
	http.StatusFailedDependency:              every(Conflict),
	http.StatusTooEarly:                      every(Transient),
	http.StatusUpgradeRequired:               every(NotThePlatforms),
	http.StatusPreconditionRequired:          every(Conflict),
	http.StatusTooManyRequests:               every(Throttled),
	http.StatusRequestHeaderFieldsTooLarge:   every(RefusedArguments),
	http.StatusUnavailableForLegalReasons:    every(NotAllowed),
	http.StatusInternalServerError:           every(Transient),
	http.StatusNotImplemented:                every(NotServed),
	http.StatusBadGateway:                    every(Transient),
	http.StatusServiceUnavailable:            every(Throttled),
	http.StatusGatewayTimeout:                every(Transient),
	http.StatusHTTPVersionNotSupported:       every(NotServed),
	http.StatusVariantAlsoNegotiates:         every(NotServed),
	http.StatusInsufficientStorage:           every(Transient),
	http.StatusLoopDetected:                  every(Transient),
	http.StatusNotExtended:                   every(NotServed),
	http.StatusNetworkAuthenticationRequired: every(NotThePlatforms),
}

// every gives a status the same meaning for every kind of call.
func every(m Meaning) map[CallKind]Meaning {
	col := make(map[CallKind]Meaning, len(CallKinds))
	for _, k := range CallKinds {
		col[k] = m
	}
	return col
}

// MeaningOf is what status means for a call of the given kind.
func MeaningOf(kind CallKind, status int) Meaning {
	return statusMeanings[status][kind]
}

// StatusesWithMeanings lists the statuses of the table, for the tests that derive
// their cases from it.
func StatusesWithMeanings() []int {
	out := make([]int, 0, len(statusMeanings))
	for s := range statusMeanings {
		out = append(out, s)
	}
	return out
}

// MeaningOfError is what the platform's error answer in err's chain means for the call
// that met it, with the call's kind and the status: Meaningless and 0 for an error
// that carries no platform's status (statusOf: an address error carries none).
func MeaningOfError(err error) (Meaning, CallKind, int) {
	status := statusOf(err)
	method := http.MethodGet
	var apiErr *APIError
	var oauthErr *OAuthError
	switch {
	case errors.As(err, &apiErr) && apiErr.Method != "":
		method = apiErr.Method
	case errors.As(err, &oauthErr) && oauthErr.Method != "":
		method = oauthErr.Method
	}
	kind := callKindOf(method)
	return MeaningOf(kind, status), kind, status
}

// meaningOf is the meaning alone, for the predicates.
func meaningOf(err error) Meaning {
	m, _, _ := MeaningOfError(err)
	return m
}
