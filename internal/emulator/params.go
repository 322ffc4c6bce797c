package emulator

// Section C of the contract, the parameters of the score publishing API: read from
// the query string and a JSON body (the body winning leaf by leaf), by their dotted
// names, with their JSON types.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Request parameters: the query string and a JSON body, the body winning leaf by leaf.

// badParam names the parameter that is missing, malformed or out of range.
type badParam struct {
	field   string
	message string
}

type scoreParams struct {
	body  map[string]any // nil without a body
	query url.Values
	// brackets holds the object parameters of the query in bracket form
	// (score[status]=idle, score[publisher][scoreId]=x), under the reading
	// bracketQueryObjects, which reads objects in the query in no other form.
	brackets map[string]any
	// bracketsOnly refuses an object sent as JSON text in the query.
	bracketsOnly bool
}

// bracketObjects folds the query's parameters in bracket form, name[a][b]=v, into
// nested objects of strings, as qs and OpenAPI's deepObject style read them. A
// parameter given twice keeps its first value.
func bracketObjects(query url.Values) map[string]any {
	out := map[string]any{}
	for key, values := range query {
		open := strings.IndexByte(key, '[')
		if open <= 0 || !strings.HasSuffix(key, "]") || len(values) == 0 {
			continue
		}
		names := append([]string{key[:open]}, strings.Split(key[open+1:len(key)-1], "][")...)
		node := out
		for i, name := range names {
			if i == len(names)-1 {
				if _, taken := node[name]; !taken {
					node[name] = values[0]
				}
				break
			}
			inner, ok := node[name].(map[string]any)
			if !ok {
				inner = map[string]any{}
				node[name] = inner
			}
			node = inner
		}
	}
	return out
}

// readScoreParams reads the query string and the optional JSON object body. On failure it
// writes 400 and returns false.
func readScoreParams(w http.ResponseWriter, r *http.Request) (*scoreParams, bool) {
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		badArgument(w, scoreNamespace, "query", "the query string is malformed: "+err.Error())
		return nil, false
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		badArgument(w, scoreNamespace, "body", "the body could not be read")
		return nil, false
	}
	params := &scoreParams{query: query}
	if len(bytes.TrimSpace(raw)) == 0 {
		return params, true
	}
	value, err := decodeParamJSON(raw)
	body, isObject := value.(map[string]any)
	if err != nil || !isObject {
		badArgument(w, scoreNamespace, "body", "the body must be a JSON object")
		return nil, false
	}
	params.body = body
	return params, true
}

// decodeParamJSON decodes one JSON value, keeping numbers exact.
func decodeParamJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// param is one parameter as found: a JSON value, or the text of a query parameter.
type param struct {
	value  any
	text   string
	isText bool
}

// lookup finds the parameter named by a dotted path: first in the body (nested
// objects), then in the query string, either dotted or in a JSON-text container.
func (p *scoreParams) lookup(path string) (param, bool, *badParam) {
	names := strings.Split(path, ".")
	if v, found, bad := walkParams(p.body, names, ""); bad != nil || found {
		return param{value: v}, found, bad
	}
	if v, found, bad := walkParams(p.brackets, names, ""); bad != nil || found {
		if text, isText := v.(string); isText {
			return param{text: text, isText: true}, true, nil
		}
		return param{value: v}, found, bad
	}
	if p.query.Has(path) {
		return param{text: p.query.Get(path), isText: true}, true, nil
	}
	// A container sent as JSON text, e.g. settings={"pages":"1-3"}.
	for i := len(names) - 1; i >= 1; i-- {
		container := strings.Join(names[:i], ".")
		if !p.query.Has(container) {
			continue
		}
		value, err := decodeParamJSON([]byte(p.query.Get(container)))
		obj, isObject := value.(map[string]any)
		if err != nil || !isObject {
			return param{}, false, &badParam{container, container + " must be a JSON object"}
		}
		v, found, bad := walkParams(obj, names[i:], container+".")
		return param{value: v}, found, bad
	}
	return param{}, false, nil
}

// walkParams follows names through nested objects. null counts as absent; a container
// that is not an object is an error naming it.
func walkParams(obj map[string]any, names []string, prefix string) (any, bool, *badParam) {
	if obj == nil {
		return nil, false, nil
	}
	v, ok := obj[names[0]]
	if !ok || v == nil {
		return nil, false, nil
	}
	if len(names) == 1 {
		return v, true, nil
	}
	inner, isObject := v.(map[string]any)
	if !isObject {
		return nil, false, &badParam{prefix + names[0], prefix + names[0] + " must be an object"}
	}
	return walkParams(inner, names[1:], prefix+names[0]+".")
}

// str reads an optional string and whether it was sent.
func (p *scoreParams) str(path string) (string, bool, *badParam) {
	v, found, bad := p.lookup(path)
	if bad != nil || !found {
		return "", false, bad
	}
	if v.isText {
		return v.text, true, nil
	}
	s, ok := v.value.(string)
	if !ok {
		return "", false, &badParam{path, path + " must be a string"}
	}
	return s, true, nil
}

// boolean reads an optional boolean; absent reads as false.
func (p *scoreParams) boolean(path string) (bool, *badParam) {
	v, found, bad := p.lookup(path)
	if bad != nil || !found {
		return false, bad
	}
	if v.isText {
		switch v.text {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	} else if b, ok := v.value.(bool); ok {
		return b, nil
	}
	return false, &badParam{path, path + " must be a boolean"}
}

// integer reads an optional decimal integer and whether it was sent.
func (p *scoreParams) integer(path string) (int64, bool, *badParam) {
	v, found, bad := p.lookup(path)
	if bad != nil || !found {
		return 0, false, bad
	}
	text := v.text
	if !v.isText {
		n, ok := v.value.(json.Number)
		if !ok {
			return 0, false, &badParam{path, path + " must be an integer"}
		}
		text = n.String()
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, false, &badParam{path, path + " must be an integer"}
	}
	return n, true, nil
}

// object reads an optional JSON object; in the query string it is JSON text.
func (p *scoreParams) object(path string) (map[string]any, bool, *badParam) {
	v, found, bad := p.lookup(path)
	if bad != nil || !found {
		return nil, false, bad
	}
	value := v.value
	if v.isText && p.bracketsOnly {
		// ajv's words behind an Express or Fastify route that reads objects with qs.
		return nil, false, &badParam{path, "request/query/" + path + " must be object"}
	}
	if v.isText {
		var err error
		if value, err = decodeParamJSON([]byte(v.text)); err != nil {
			value = nil
		}
	}
	obj, ok := value.(map[string]any)
	if !ok {
		return nil, false, &badParam{path, path + " must be a JSON object"}
	}
	return obj, true, nil
}
