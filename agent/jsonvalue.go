package agent

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// keyOrder remembers the key order of the maps made from JSON objects.
// Jinja templates need maps (gonja's dict methods work on
// map[string]any), but Go maps forget order, and a schema's properties
// must reach the model in the order they were declared. The order is
// kept beside the maps, keyed by map identity, for one rendering.
type keyOrder map[uintptr][]string

// decode turns JSON into template data: objects become map[string]any
// (their order recorded in o), arrays []any, numbers what Python's
// json.loads makes of them (int64, *big.Int beyond it, or float64).
func (o keyOrder) decode(data []byte) (any, error) {
	v, err := jsonx.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return o.fromValue(v), nil
}

func (o keyOrder) fromValue(v *jsonx.Value) any {
	switch v.Kind {
	case jsonx.Object:
		m := make(map[string]any, len(v.Members))
		keys := make([]string, len(v.Members))
		for i, mem := range v.Members {
			m[mem.Key] = o.fromValue(mem.Value)
			keys[i] = mem.Key
		}
		o.set(m, keys)
		return m
	case jsonx.Array:
		list := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			list[i] = o.fromValue(e)
		}
		return list
	}
	return v.Python()
}

// set records the key order of m.
func (o keyOrder) set(m map[string]any, keys []string) {
	o[reflect.ValueOf(m).Pointer()] = keys
}

// object builds an ordered map from key/value pairs.
func (o keyOrder) object(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	keys := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		m[k] = kv[i+1]
		keys = append(keys, k)
	}
	o.set(m, keys)
	return m
}

// keys returns the keys of a map in recorded order; keys the record does
// not know (added by the template) follow, sorted.
func (o keyOrder) keys(m reflect.Value) []string {
	known := o[m.Pointer()]
	seen := make(map[string]bool, len(known))
	var out []string
	for _, k := range known {
		if m.MapIndex(reflect.ValueOf(k)).IsValid() {
			out = append(out, k)
			seen[k] = true
		}
	}
	var rest []string
	for _, k := range m.MapKeys() {
		if s := fmt.Sprint(k.Interface()); !seen[s] {
			rest = append(rest, s)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// jsonStyle is how tojson writes JSON, following Python's json.dumps as
// Hugging Face chat templates call it (ensure_ascii=False by default).
type jsonStyle struct {
	indent      string // "" with hasIndent false: one line
	hasIndent   bool
	itemSep     string
	keySep      string
	sortKeys    bool
	ensureASCII bool
}

func defaultJSONStyle() jsonStyle { return jsonStyle{itemSep: ", ", keySep: ": "} }

// encode writes v as JSON.
func (o keyOrder) encode(sb *strings.Builder, v any, st jsonStyle, depth int) error {
	if ev, ok := v.(*exec.Value); ok {
		if ev.IsError() {
			return ev.Interface().(error)
		}
		v = ev.Interface()
	}
	switch x := v.(type) {
	case nil:
		sb.WriteString("null")
		return nil
	case string:
		sb.Write(jsonx.AppendDumpsString(nil, x, st.ensureASCII))
		return nil
	case bool:
		sb.WriteString(strconv.FormatBool(x))
		return nil
	case json.Number:
		sb.WriteString(x.String())
		return nil
	case float64:
		sb.Write(jsonx.AppendDumpsNumber(nil, x))
		return nil
	case float32:
		sb.Write(jsonx.AppendDumpsNumber(nil, float64(x)))
		return nil
	case *big.Int:
		sb.Write(jsonx.AppendDumpsNumber(nil, x))
		return nil
	case exec.Dict:
		return o.encodeObject(sb, len(x.Pairs), func(i int) (string, any) { return x.Pairs[i].Key.String(), x.Pairs[i].Value }, st, depth)
	case *exec.Dict:
		return o.encode(sb, *x, st, depth)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sb.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		sb.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.String:
		sb.Write(jsonx.AppendDumpsString(nil, rv.String(), st.ensureASCII))
	case reflect.Map:
		keys := o.keys(rv)
		if st.sortKeys {
			sort.Strings(keys)
		}
		return o.encodeObject(sb, len(keys), func(i int) (string, any) {
			return keys[i], rv.MapIndex(reflect.ValueOf(keys[i]).Convert(rv.Type().Key())).Interface()
		}, st, depth)
	case reflect.Slice, reflect.Array:
		n := rv.Len()
		if n == 0 {
			sb.WriteString("[]")
			return nil
		}
		sb.WriteByte('[')
		for i := range n {
			if i > 0 {
				sb.WriteString(st.itemSep)
			}
			st.newline(sb, depth+1)
			if err := o.encode(sb, rv.Index(i).Interface(), st, depth+1); err != nil {
				return err
			}
		}
		st.newline(sb, depth)
		sb.WriteByte(']')
	case reflect.Chan:
		// range() yields a channel in gonja.
		var list []any
		for {
			x, ok := rv.Recv()
			if !ok {
				break
			}
			list = append(list, x.Interface())
		}
		return o.encode(sb, list, st, depth)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("tojson: %T: %w", v, err)
		}
		sb.Write(b)
	}
	return nil
}

func (o keyOrder) encodeObject(sb *strings.Builder, n int, at func(int) (string, any), st jsonStyle, depth int) error {
	if n == 0 {
		sb.WriteString("{}")
		return nil
	}
	sb.WriteByte('{')
	for i := range n {
		if i > 0 {
			sb.WriteString(st.itemSep)
		}
		st.newline(sb, depth+1)
		k, v := at(i)
		sb.Write(jsonx.AppendDumpsString(nil, k, st.ensureASCII))
		sb.WriteString(st.keySep)
		if err := o.encode(sb, v, st, depth+1); err != nil {
			return err
		}
	}
	st.newline(sb, depth)
	sb.WriteByte('}')
	return nil
}

func (st jsonStyle) newline(sb *strings.Builder, depth int) {
	if !st.hasIndent {
		return
	}
	sb.WriteByte('\n')
	sb.WriteString(strings.Repeat(st.indent, depth))
}
