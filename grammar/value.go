package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// kind is the JSON type of a value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is a decoded JSON value that, unlike map[string]any, keeps the
// order of object members as written. Schemas need it: properties are
// generated in declared order.
type value struct {
	kind kind
	b    bool
	s    string // string contents, or number text
	arr  []*value
	obj  []member
}

type member struct {
	key string
	val *value
}

// get returns member key of an object, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kindObject {
		return nil
	}
	for _, m := range v.obj {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// set replaces or appends member key.
func (v *value) set(key string, val *value) {
	for i := range v.obj {
		if v.obj[i].key == key {
			v.obj[i].val = val
			return
		}
	}
	v.obj = append(v.obj, member{key, val})
}

func (v *value) str() (string, bool) {
	if v == nil || v.kind != kindString {
		return "", false
	}
	return v.s, true
}

func stringValue(s string) *value { return &value{kind: kindString, s: s} }

// parseValue decodes exactly one JSON value.
func parseValue(data []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (*value, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &value{kind: kindNull}, nil
	case bool:
		return &value{kind: kindBool, b: t}, nil
	case json.Number:
		return &value{kind: kindNumber, s: t.String()}, nil
	case string:
		return stringValue(t), nil
	case json.Delim:
		switch t {
		case '[':
			v := &value{kind: kindArray}
			for dec.More() {
				e, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, e)
			}
			_, err := dec.Token()
			return v, err
		case '{':
			v := &value{kind: kindObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				e, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				v.set(kt.(string), e)
			}
			_, err := dec.Token()
			return v, err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// encode appends v as compact JSON, members in order, without HTML
// escaping. With spaced it uses ", " and ": " separators, as Python's
// json.dumps does and as most models write JSON.
func (v *value) encode(buf []byte, spaced bool) []byte {
	switch v.kind {
	case kindNull:
		return append(buf, "null"...)
	case kindBool:
		return strconv.AppendBool(buf, v.b)
	case kindNumber:
		return append(buf, v.s...)
	case kindString:
		return appendJSONString(buf, v.s)
	case kindArray:
		buf = append(buf, '[')
		for i, e := range v.arr {
			if i > 0 {
				buf = appendSep(buf, ',', spaced)
			}
			buf = e.encode(buf, spaced)
		}
		return append(buf, ']')
	default:
		buf = append(buf, '{')
		for i, m := range v.obj {
			if i > 0 {
				buf = appendSep(buf, ',', spaced)
			}
			buf = appendJSONString(buf, m.key)
			buf = appendSep(buf, ':', spaced)
			buf = m.val.encode(buf, spaced)
		}
		return append(buf, '}')
	}
}

func appendSep(buf []byte, c byte, spaced bool) []byte {
	buf = append(buf, c)
	if spaced {
		buf = append(buf, ' ')
	}
	return buf
}

func (v *value) json() []byte { return v.encode(nil, false) }

// appendJSONString appends s as a JSON string the way encoding/json does,
// minus HTML escaping: the canonical form our grammars expect for keys and
// literals.
func appendJSONString(buf []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}
