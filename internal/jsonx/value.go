package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Kind is the JSON type of a value.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is a decoded JSON value that, unlike map[string]any, keeps the
// order of object members as written and numbers as their text. Schemas
// need it: properties are generated in declared order.
type Value struct {
	Kind    Kind
	Bool    bool
	Text    string // string contents, or number text
	Elems   []*Value
	Members []Member
}

// Member is one key and value of an object.
type Member struct {
	Key   string
	Value *Value
}

// Get returns member key of an object, or nil (also when v is nil or not
// an object).
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for _, m := range v.Members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Set replaces or appends member key.
func (v *Value) Set(key string, val *Value) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members[i].Value = val
			return
		}
	}
	v.Members = append(v.Members, Member{Key: key, Value: val})
}

// AsString returns the contents of a string value; ok is false for
// anything else, nil included.
func (v *Value) AsString() (string, bool) {
	if v == nil || v.Kind != String {
		return "", false
	}
	return v.Text, true
}

// NewString returns a string value.
func NewString(s string) *Value { return &Value{Kind: String, Text: s} }

// Parse decodes exactly one JSON value.
func Parse(data []byte) (*Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := Decode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// Decode reads the next JSON value from dec, which must have UseNumber
// set for numbers to keep their text.
func Decode(dec *json.Decoder) (*Value, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &Value{Kind: Null}, nil
	case bool:
		return &Value{Kind: Bool, Bool: t}, nil
	case json.Number:
		return &Value{Kind: Number, Text: t.String()}, nil
	case string:
		return NewString(t), nil
	case json.Delim:
		switch t {
		case '[':
			v := &Value{Kind: Array}
			for dec.More() {
				e, err := Decode(dec)
				if err != nil {
					return nil, err
				}
				v.Elems = append(v.Elems, e)
			}
			_, err := dec.Token()
			return v, err
		case '{':
			v := &Value{Kind: Object}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				e, err := Decode(dec)
				if err != nil {
					return nil, err
				}
				v.Set(kt.(string), e)
			}
			_, err := dec.Token()
			return v, err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// Append appends v as compact JSON, members in order, numbers as
// written, strings as encoding/json writes them without HTML escaping.
// With spaced it uses ", " and ": " separators, as Python's json.dumps
// does and as most models write JSON.
func (v *Value) Append(buf []byte, spaced bool) []byte {
	o := DumpsOptions{ItemSep: ",", KeySep: ":"}
	if spaced {
		o = DumpsOptions{ItemSep: ", ", KeySep: ": "}
	}
	return v.appendJSON(buf, o, false)
}

// appendJSON writes v with o's separators; python picks json.dumps's
// strings and numbers (see AppendDumps) over Go's canonical ones.
func (v *Value) appendJSON(buf []byte, o DumpsOptions, python bool) []byte {
	switch v.Kind {
	case Null:
		return append(buf, "null"...)
	case Bool:
		return strconv.AppendBool(buf, v.Bool)
	case Number:
		if python {
			return AppendDumpsNumber(buf, ParseNumber(v.Text))
		}
		return append(buf, v.Text...)
	case String:
		return v.appendString(buf, v.Text, o, python)
	case Array:
		buf = append(buf, '[')
		for i, e := range v.Elems {
			if i > 0 {
				buf = append(buf, o.ItemSep...)
			}
			buf = e.appendJSON(buf, o, python)
		}
		return append(buf, ']')
	default:
		buf = append(buf, '{')
		for i, m := range v.Members {
			if i > 0 {
				buf = append(buf, o.ItemSep...)
			}
			buf = v.appendString(buf, m.Key, o, python)
			buf = append(buf, o.KeySep...)
			buf = m.Value.appendJSON(buf, o, python)
		}
		return append(buf, '}')
	}
}

func (*Value) appendString(buf []byte, s string, o DumpsOptions, python bool) []byte {
	if python {
		return AppendDumpsString(buf, s, o.EnsureASCII)
	}
	return AppendString(buf, s)
}

// JSON returns v as compact JSON.
func (v *Value) JSON() []byte { return v.Append(nil, false) }

// AppendString appends s as a JSON string the way encoding/json does,
// minus HTML escaping: the canonical form our grammars expect for keys and
// literals.
func AppendString(buf []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}
