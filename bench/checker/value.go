package checker

import (
	"fmt"
	"math"
	"math/big"
)

// Values are Python values as package jsonx decodes them
// (jsonx.LoadPython): nil, bool, int64 or *big.Int, float64, string, []any
// and map[string]any.

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
