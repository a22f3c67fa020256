package checker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Values are what Python's json.loads (or ast.literal_eval) would give, in
// Go: nil, bool, int64 or, beyond int64, *big.Int (Python int), float64
// (Python float), string, []any (list; tuples become lists) and
// map[string]any (dict). JSON numbers written with '.', 'e' or 'E' are
// floats, others ints, as in Python.

// Decode parses JSON text into a Value as Python's json.loads would.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("checker: trailing data after JSON value")
	}
	return convert(v), nil
}

func convert(v any) any {
	switch x := v.(type) {
	case json.Number:
		return number(string(x))
	case []any:
		for i := range x {
			x[i] = convert(x[i])
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = convert(x[k])
		}
		return x
	}
	return v
}

// number classifies a JSON number the way Python does. An int too large
// for int64 is a *big.Int: Python keeps every int exact.
func number(s string) any {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		if i, ok := new(big.Int).SetString(s, 10); ok {
			return i
		}
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// pyType is the name of Python's type(v).
func pyType(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// pyInt returns v as an exact integer when Python's == would compare it
// as an int (bools are ints in Python).
func pyInt(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewInt(1), true
		}
		return new(big.Int), true
	case int64:
		return big.NewInt(x), true
	case *big.Int:
		return x, true
	}
	return nil, false
}

// pyFloat is Python's float(i): the nearest float64, ties to even.
func pyFloat(i *big.Int) float64 {
	f, _ := new(big.Float).SetInt(i).Float64()
	return f
}

// numEqual is Python's == on numbers: exact, also between an int and a
// float (2**53 + 1 != 2.0**53), where a conversion to float64 would round.
// ok is false when a or b is not a number.
func numEqual(a, b any) (equal, ok bool) {
	ai, aInt := pyInt(a)
	bi, bInt := pyInt(b)
	af, aFloat := a.(float64)
	bf, bFloat := b.(float64)
	switch {
	case aInt && bInt:
		return ai.Cmp(bi) == 0, true
	case aFloat && bFloat:
		return af == bf, true
	case aInt && bFloat:
		return intEqualsFloat(ai, bf), true
	case aFloat && bInt:
		return intEqualsFloat(bi, af), true
	}
	return false, aInt || aFloat || bInt || bFloat
}

func intEqualsFloat(i *big.Int, f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return false
	}
	if i.IsInt64() && math.Abs(f) < 1<<63 {
		return i.Int64() == int64(f)
	}
	fi, _ := big.NewFloat(f).Int(nil) // exact: f is an integer
	return i.Cmp(fi) == 0
}

// pyEqual is Python's == on Values.
func pyEqual(a, b any) bool {
	if eq, ok := numEqual(a, b); ok {
		return eq
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !pyEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// pyIn is Python's `v in list`.
func pyIn(v any, list []any) bool {
	for _, e := range list {
		if pyEqual(v, e) {
			return true
		}
	}
	return false
}

// pyRepr renders v roughly as Python's repr, for error messages.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case *big.Int:
		return x.String()
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return s
	case string:
		return "'" + strings.ReplaceAll(x, "'", `\'`) + "'"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := sortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyRepr(k) + ": " + pyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// Encode writes a Value as JSON, floats always with a '.' or an exponent so
// that Decode gives back the same Python types.
func Encode(v any) []byte { return appendValue(nil, v) }

func appendValue(buf []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...)
	case bool:
		return strconv.AppendBool(buf, x)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case *big.Int:
		return x.Append(buf, 10)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return append(buf, "null"...)
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return append(buf, s...)
	case string:
		b, _ := json.Marshal(x)
		return append(buf, b...)
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendValue(buf, e)
		}
		return append(buf, ']')
	case map[string]any:
		buf = append(buf, '{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendValue(buf, k)
			buf = append(buf, ':')
			buf = appendValue(buf, x[k])
		}
		return append(buf, '}')
	}
	b, _ := json.Marshal(v)
	return append(buf, b...)
}
