package jsonx

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Python values are what Python's json.loads gives, in Go: nil (None),
// bool, int64 or, beyond int64, *big.Int (int: Python keeps every int
// exact), float64 (float), string, []any (list) and map[string]any (dict).

// ParseNumber reads JSON number text as Python's json.loads does: text
// with '.', 'e' or 'E' is a float (float64, ±Inf beyond its range), other
// text an int (int64, or *big.Int beyond int64).
func ParseNumber(text string) any {
	if !strings.ContainsAny(text, ".eE") {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return i
		}
		if i, ok := new(big.Int).SetString(text, 10); ok {
			return i
		}
	}
	f, _ := strconv.ParseFloat(text, 64) // ±Inf with an error beyond float64, as Python gives
	return f
}

// LoadPython parses JSON text into Python values, as json.loads does. A
// repeated object key keeps its last value, as in Python.
func LoadPython(data []byte) (any, error) {
	v, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return v.Python(), nil
}

// Python returns v as Python values (see [LoadPython]).
func (v *Value) Python() any {
	switch v.Kind {
	case Bool:
		return v.Bool
	case Number:
		return ParseNumber(v.Text)
	case String:
		return v.Text
	case Array:
		list := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			list[i] = e.Python()
		}
		return list
	case Object:
		m := make(map[string]any, len(v.Members))
		for _, mem := range v.Members {
			m[mem.Key] = mem.Value.Python()
		}
		return m
	}
	return nil
}

// FloatRepr is Python's repr(f) (and str(f)): the shortest text that reads
// back as f, in positional notation with at least one decimal ("1.0",
// "0.0001") for exponents from -4 to 15 and scientific notation with at
// least two exponent digits otherwise ("1e+16", "1e-05"); "nan", "inf"
// and "-inf" for the others.
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return string(appendFloat(nil, f))
}

// appendFloat appends a finite f as Python's repr does.
func appendFloat(buf []byte, f float64) []byte {
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX, shortest digits
	exp, _ := strconv.Atoi(e[strings.LastIndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return append(buf, e...) // Go writes at least two exponent digits, as Python does
	}
	start := len(buf)
	buf = strconv.AppendFloat(buf, f, 'f', -1, 64)
	if !bytes.ContainsRune(buf[start:], '.') {
		buf = append(buf, ".0"...)
	}
	return buf
}

// DumpsOptions are the json.dumps arguments offgrid uses. The zero value
// is compact (",", ":") with non-ASCII kept; [PythonDefaults] gives
// json.dumps's defaults.
type DumpsOptions struct {
	// ItemSep and KeySep separate items and a key from its value.
	ItemSep, KeySep string
	// EnsureASCII escapes every character above U+007E (U+007F included)
	// as \uXXXX, surrogate pairs above U+FFFF, as ensure_ascii=True does.
	EnsureASCII bool
}

// PythonDefaults are json.dumps's defaults: ", " and ": " separators,
// ensure_ascii=True.
var PythonDefaults = DumpsOptions{ItemSep: ", ", KeySep: ": ", EnsureASCII: true}

// AppendDumps appends v as json.dumps(json.loads(v)) writes it: members in
// order, numbers with Python's meaning (1.50 becomes 1.5, 1E5 100000.0,
// -0 0; ints keep every digit), strings escaped as json.dumps does.
func (v *Value) AppendDumps(buf []byte, o DumpsOptions) []byte { return v.appendJSON(buf, o, true) }

// AppendDumpsPython appends a Python value (see [LoadPython]) as
// json.dumps(v, sort_keys=True) writes it: a Go map has no order to keep.
func AppendDumpsPython(buf []byte, v any, o DumpsOptions) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...)
	case bool:
		return strconv.AppendBool(buf, x)
	case string:
		return AppendDumpsString(buf, x, o.EnsureASCII)
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, o.ItemSep...)
			}
			buf = AppendDumpsPython(buf, e, o)
		}
		return append(buf, ']')
	case map[string]any:
		buf = append(buf, '{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				buf = append(buf, o.ItemSep...)
			}
			buf = AppendDumpsString(buf, k, o.EnsureASCII)
			buf = append(buf, o.KeySep...)
			buf = AppendDumpsPython(buf, x[k], o)
		}
		return append(buf, '}')
	}
	return AppendDumpsNumber(buf, v)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// AppendDumpsNumber appends a Python number (int, int64, *big.Int or
// float64) as json.dumps writes it: floats as repr, with NaN, Infinity
// and -Infinity for the non-finite ones.
func AppendDumpsNumber(buf []byte, n any) []byte {
	switch x := n.(type) {
	case int:
		return strconv.AppendInt(buf, int64(x), 10)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case *big.Int:
		return x.Append(buf, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return append(buf, "NaN"...)
		case math.IsInf(x, 1):
			return append(buf, "Infinity"...)
		case math.IsInf(x, -1):
			return append(buf, "-Infinity"...)
		}
		return appendFloat(buf, x)
	}
	panic(fmt.Sprintf("jsonx: %T is not a Python number", n))
}

// AppendDumpsString appends s as json.dumps writes a str: quotes,
// backslashes and \b \f \n \r \t escaped by name, other characters below
// U+0020 as \u00XX; with ensureASCII also everything above U+007E. Bytes
// that are not UTF-8 (a Python str cannot hold them) are written as
// \ufffd.
func AppendDumpsString(buf []byte, s string, ensureASCII bool) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			buf = append(buf, `\"`...)
		case r == '\\':
			buf = append(buf, `\\`...)
		case r == '\n':
			buf = append(buf, `\n`...)
		case r == '\r':
			buf = append(buf, `\r`...)
		case r == '\t':
			buf = append(buf, `\t`...)
		case r == '\b':
			buf = append(buf, `\b`...)
		case r == '\f':
			buf = append(buf, `\f`...)
		case r < 0x20 || r == utf8.RuneError && size == 1:
			buf = appendU(buf, r)
		case ensureASCII && r > 0x7e:
			if r > 0xffff {
				a, b := utf16.EncodeRune(r)
				buf = appendU(appendU(buf, a), b)
			} else {
				buf = appendU(buf, r)
			}
		default:
			buf = utf8.AppendRune(buf, r)
		}
	}
	return append(buf, '"')
}

func appendU(buf []byte, r rune) []byte {
	return fmt.Appendf(buf, `\u%04x`, r)
}

// Repr is Python's repr of a Python value (see [LoadPython]): None, True,
// False, ints, floats as [FloatRepr], strings as [StringRepr], lists, and
// dicts with their keys sorted (a Go map has no order to keep). Other Go
// values are written with fmt.
func Repr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case *big.Int:
		return x.String()
	case float64:
		return FloatRepr(x)
	case string:
		return StringRepr(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Repr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := sortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = StringRepr(k) + ": " + Repr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// StringRepr is Python's repr of a str: single quotes unless the text
// holds a single quote and no double quote; \\, the quote, \t \n \r
// escaped; other characters that are not printable (control and format
// characters, spaces other than U+0020) as \xXX, \uXXXX or \UXXXXXXXX.
func StringRepr(s string) string {
	quote := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = '"'
	}
	buf := []byte{quote}
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			buf = append(buf, '\\', byte(r))
		case r == '\t':
			buf = append(buf, `\t`...)
		case r == '\n':
			buf = append(buf, `\n`...)
		case r == '\r':
			buf = append(buf, `\r`...)
		case unicode.IsPrint(r):
			buf = utf8.AppendRune(buf, r)
		case r < 0x100:
			buf = fmt.Appendf(buf, `\x%02x`, r)
		case r < 0x10000:
			buf = fmt.Appendf(buf, `\u%04x`, r)
		default:
			buf = fmt.Appendf(buf, `\U%08x`, r)
		}
	}
	return string(append(buf, quote))
}
