package wire

import (
	"encoding"
	stdjson "encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// unmarshalAny decodes a JSON value into an interface{} as
// sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts does: objects become
// map[string]interface{} (duplicate names: last wins), arrays
// []interface{}, numbers int64 when they have no '.' and fit, float64
// otherwise.
func unmarshalAny(dec *jsontext.Decoder, v *any) error {
	val, err := decodeAny(dec)
	if err != nil {
		return err
	}
	*v = val
	return nil
}

func decodeAny(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 'f':
		return false, nil
	case 't':
		return true, nil
	case '"':
		return tok.String(), nil
	case '0':
		s := tok.String()
		if !strings.Contains(s, ".") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i, nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("number out of the range of a float64")
		}
		return f, nil
	case '{':
		m := make(map[string]any)
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the token is voided by the next read
			val, err := decodeAny(dec)
			if err != nil {
				return nil, err
			}
			m[name] = val
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return m, nil
	case '[':
		a := make([]any, 0)
		for dec.PeekKind() != ']' {
			val, err := decodeAny(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, val)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return a, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok.Kind())
}

var (
	jsonUnmarshalerType = reflect.TypeFor[stdjson.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// holdsInterface reports whether a value of type t can hold an interface{}
// that the JSON decoder fills (not one behind an UnmarshalJSON method).
func holdsInterface(t reflect.Type) bool {
	return decodesAny(t, map[reflect.Type]bool{}, func(t reflect.Type) bool {
		return t.Kind() == reflect.Interface && t.NumMethod() == 0
	})
}

// decodesAny reports whether is holds for a type the JSON decoder may reach
// from t: t, the elements of its pointers, slices, arrays and maps, and the
// types of its struct fields. Types with their own UnmarshalJSON or
// UnmarshalText are not looked into, as the decoder does not, nor are
// interfaces; seen are the types already asked.
func decodesAny(t reflect.Type, seen map[reflect.Type]bool, is func(reflect.Type) bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Kind() != reflect.Interface && (reflect.PointerTo(t).Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)) {
		return false
	}
	if is(t) {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return decodesAny(t.Elem(), seen, is)
	case reflect.Struct:
		for i := range t.NumField() {
			if decodesAny(t.Field(i).Type, seen, is) {
				return true
			}
		}
	}
	return false
}
