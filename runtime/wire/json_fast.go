package wire

import (
	"encoding/binary"
	"errors"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fastUnmarshalers replace the UnmarshalJSON methods of the apimachinery
// types every object holds with functions that read from the decoder, with
// the same results (proven by the differential tests). Registering any
// type-specific unmarshaler costs a lookup per decoded value, whatever its
// type, which these repay; see docs/performance.md for what was measured,
// and for the type (Quantity) whose unmarshaler did not pay.
var fastUnmarshalers = json.JoinUnmarshalers(
	json.UnmarshalFromFunc(unmarshalTime),
	json.UnmarshalFromFunc(unmarshalMicroTime),
	json.UnmarshalFromFunc(unmarshalStringMap),
	json.UnmarshalFromFunc(unmarshalFieldsV1),
)

var errTimeNotString = errors.New("time is not a JSON string")

// parseTimeValue parses the JSON value v (null or a string) with layout, as
// metav1.Time's and MicroTime's UnmarshalJSON do: null is the zero time, a
// string is parsed with time.Parse and made Local, anything else is an error.
func parseTimeValue(v jsontext.Value, layout string) (time.Time, error) {
	switch v.Kind() {
	case 'n':
		return time.Time{}, nil
	case '"':
	default:
		return time.Time{}, errTimeNotString
	}
	b := v[1 : len(v)-1]
	simple := true
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			simple = false
			break
		}
	}
	var s string
	if simple {
		// time.Parse keeps no reference to s on success; on error its
		// *time.ParseError would, so the error is made again from a copy.
		pt, err := time.Parse(layout, unsafe.String(unsafe.SliceData(b), len(b)))
		if err == nil {
			return pt.Local(), nil
		}
		s = string(b)
	} else {
		var err error
		if s, err = unquoteSlow(v); err != nil {
			return time.Time{}, err
		}
	}
	pt, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, err
	}
	return pt.Local(), nil
}

func unmarshalTime(dec *jsontext.Decoder, t *metav1.Time) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	pt, err := parseTimeValue(v, time.RFC3339)
	if err != nil {
		return err
	}
	t.Time = pt
	return nil
}

func unmarshalMicroTime(dec *jsontext.Decoder, t *metav1.MicroTime) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	pt, err := parseTimeValue(v, metav1.RFC3339Micro)
	if err != nil {
		return err
	}
	t.Time = pt
	return nil
}

// unmarshalFieldsV1 is metav1.FieldsV1's UnmarshalJSON (the value's bytes
// kept as they are, with SetRawBytes; null leaves the field alone) without
// the copy of the value that calling the method costs.
func unmarshalFieldsV1(dec *jsontext.Decoder, f *metav1.FieldsV1) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if string(v) != "null" {
		f.SetRawBytes(v)
	}
	return nil
}

var errMapNotObject = errors.New("map is not a JSON object")
var errMapValueNotString = errors.New("map value is not a JSON string")

// unmarshalStringMap decodes a map[string]string (labels, annotations,
// selectors) as encoding/json v1 does, with apimachinery's options: null is a
// nil map; an object is merged into the existing map (a new one when it is
// nil), duplicate names last wins; a null member value is "". The object is
// read as one value and its members scanned here (the decoder has checked its
// syntax), the map is made with its final size, and strings are interned.
func unmarshalStringMap(dec *jsontext.Decoder, m *map[string]string) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadToken()
		*m = nil
		return err
	case '{':
	default:
		if _, err := dec.ReadValue(); err != nil {
			return err
		}
		return errMapNotObject
	}
	obj, err := dec.ReadValue()
	if err != nil {
		return err
	}
	c := internPool.Get().(*internCache)
	defer internPool.Put(c)
	kv := c.kv[:0]
	defer func() {
		if cap(kv) > 1024 {
			kv = nil // a huge map: do not keep its scratch space in the pool
		}
		clear(kv)
		c.kv = kv[:0]
	}()
	// obj is a valid JSON object: '{', then members "name" : value separated
	// by commas, then '}', with whitespace between tokens.
	i := skipSpace(obj, 1)
	for obj[i] != '}' {
		j := endOfString(obj, i)
		ks, err := c.str(obj[i:j])
		if err != nil {
			return err
		}
		i = skipSpace(obj, skipSpace(obj, j)+1) // past the ':'
		var vs string
		switch obj[i] {
		case 'n':
			j = i + len("null")
		case '"':
			j = endOfString(obj, i)
			if vs, err = c.str(obj[i:j]); err != nil {
				return err
			}
		default:
			return errMapValueNotString
		}
		kv = append(kv, ks, vs)
		if i = skipSpace(obj, j); obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	if *m == nil {
		*m = make(map[string]string, len(kv)/2)
	}
	for i := 0; i < len(kv); i += 2 {
		(*m)[kv[i]] = kv[i+1]
	}
	return nil
}

// skipSpace returns the index of the first byte of b at or after i that is
// not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// endOfString returns the index just after the valid JSON string that
// starts at b[i].
func endOfString(b []byte, i int) int {
	for i++; ; i++ {
		switch b[i] {
		case '\\':
			i++ // the escaped byte ('u' of a \uXXXX: its hex digits are not quotes)
		case '"':
			return i + 1
		}
	}
}

// internCache is a direct-mapped cache of recently decoded strings, so that
// the label keys and values repeated across the objects of a page are
// allocated once. Strings are immutable: sharing them between objects is
// invisible. 1024 slots, not 256: generated decoders intern every string
// field through it, and with 256 the unique ones (names, uids) evicted the
// repeated ones (a Pod page then made more allocations through the generated
// decoder than through the reflective one: 29,464 against 26,541).
type internCache struct {
	s  [1024]string
	kv []string
}

var internPool = sync.Pool{New: func() any { return new(internCache) }}

// str returns the Go string of the JSON string v (with its quotes), with
// encoding/json v1's treatment of escapes and invalid UTF-8.
func (c *internCache) str(v jsontext.Value) (string, error) {
	b := v[1 : len(v)-1]
	ascii := true
	for _, ch := range b {
		if ch == '\\' {
			return unquoteSlow(v)
		}
		if ch >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(b) {
		return unquoteSlow(v)
	}
	return c.intern(b), nil
}

// intern returns string(b), from the cache when it holds it.
func (c *internCache) intern(b []byte) string {
	if len(b) < 2 || len(b) > 256 {
		return string(b)
	}
	var h uint32
	if len(b) >= 8 {
		lo := binary.LittleEndian.Uint64(b)
		hi := binary.LittleEndian.Uint64(b[len(b)-8:])
		h = uint32(lo*0x9e3779b97f4a7c15>>32) ^ uint32(hi*0xc2b2ae3d27d4eb4f>>32) ^ uint32(len(b))
	} else {
		var x uint64
		for _, ch := range b {
			x = x<<8 | uint64(ch)
		}
		h = uint32(x*0x9e3779b97f4a7c15>>32) ^ uint32(len(b))
	}
	i := h % uint32(len(c.s))
	if s := c.s[i]; s == string(b) {
		return s
	}
	s := string(b)
	c.s[i] = s
	return s
}

// unquoteSlow decodes a JSON string with escapes or invalid UTF-8 as the
// string arshaler does (v1: invalid UTF-8 and lone surrogates become U+FFFD).
func unquoteSlow(v jsontext.Value) (string, error) {
	var s string
	err := json.Unmarshal(v, &s, jsonBaseOptions)
	return s, err
}
