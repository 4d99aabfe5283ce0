package wire

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/informer-gen/informer-gen/runtime/internal/known"
)

// jsonKnown reads a JSON object's apiVersion, kind and metadata before the
// object is decoded, so that one a relist's cache holds at the same
// resourceVersion is handed on instead of decoded again (see
// runtime/internal/known); the others are decoded from the bytes read.
type jsonKnown[T any] struct {
	c    *jsonCodec[T]
	l    known.Lookup[T]
	peek *jsontext.Decoder
	dec  *jsontext.Decoder // decodes an object lookup did not know
	jd   *JSONDecoder      // over dec
	// copies of the metadata read (a value is valid only until the next read)
	name, ns, rv []byte
}

func (c *jsonCodec[T]) newKnown(l known.Lookup[T], intern *internCache) *jsonKnown[T] {
	k := &jsonKnown[T]{c: c, l: l, peek: jsontext.NewDecoder(new(bytes.Buffer), c.opts), dec: jsontext.NewDecoder(new(bytes.Buffer), c.opts)}
	k.jd = c.newJSONDecoder(k.dec)
	k.jd.intern = intern
	return k
}

// decoder returns a decoder of v, the raw JSON of one object, and the
// JSONDecoder over it. They are valid until the next call.
func (k *jsonKnown[T]) decoder(v jsontext.Value) (*jsontext.Decoder, *JSONDecoder) {
	// A bytes.Buffer is read in place, without a copy.
	k.dec.Reset(bytes.NewBuffer(v), k.c.opts)
	return k.dec, k.jd
}

// lookup returns l's object for v, the raw JSON of one object, when l knows
// it: v names a namespace, name and resourceVersion (strings without
// escapes) that l holds, and an apiVersion and kind that are the codec's
// (required: both present, as a watch event's object must have them). It
// reads v only up to its metadata.
func (k *jsonKnown[T]) lookup(v jsontext.Value, required bool) (T, bool) {
	var zero T
	d := k.peek
	d.Reset(bytes.NewBuffer(v), k.c.opts)
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return zero, false
	}
	sawAPIVersion, sawKind := false, false
	for d.PeekKind() == '"' {
		name, err := d.ReadValue()
		if err != nil {
			return zero, false
		}
		switch string(name) {
		case `"apiVersion"`, `"kind"`:
			want := k.c.apiVersion
			if string(name) == `"kind"` {
				want, sawKind = k.c.kind, true
			} else {
				sawAPIVersion = true
			}
			val, err := d.ReadValue()
			if err != nil {
				return zero, false
			}
			if s, ok := jsonPlainString(val); !ok || (string(s) != want && !k.c.fake) {
				return zero, false
			}
		case `"metadata"`:
			if required && !k.c.fake && (!sawAPIVersion || !sawKind) {
				return zero, false // not read yet: decode to check
			}
			if !k.readMeta(d) || len(k.name) == 0 || len(k.rv) == 0 {
				return zero, false
			}
			return k.l(k.ns, k.name, k.rv)
		default:
			if d.SkipValue() != nil {
				return zero, false
			}
		}
	}
	return zero, false
}

// readMeta reads the metadata object at d into k.name, k.ns and k.rv; it
// reports false for anything it does not read plainly.
func (k *jsonKnown[T]) readMeta(d *jsontext.Decoder) bool {
	k.name, k.ns, k.rv = k.name[:0], k.ns[:0], k.rv[:0]
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadValue()
		if err != nil {
			return false
		}
		var dst *[]byte
		switch string(name) {
		case `"name"`:
			dst = &k.name
		case `"namespace"`:
			dst = &k.ns
		case `"resourceVersion"`:
			dst = &k.rv
		default:
			if d.SkipValue() != nil {
				return false
			}
			continue
		}
		val, err := d.ReadValue()
		if err != nil {
			return false
		}
		s, ok := jsonPlainString(val)
		if !ok {
			return false
		}
		*dst = append((*dst)[:0], s...)
	}
	return d.PeekKind() == '}'
}

// jsonPlainString returns the content of v, a raw JSON string without
// escapes; ok is false for any other value.
func jsonPlainString(v jsontext.Value) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return nil, false
	}
	return v[1 : len(v)-1], true
}
