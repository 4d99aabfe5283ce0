package wire

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file is the runtime half of generated JSON decoders: informer-gen
// emits, per object type, a function that reads the object's members from a
// *JSONDecoder with its methods and the generic helpers below, and the codec
// calls it instead of the reflective decoder (GeneratedDecoder). Only
// generated code calls them; they are not an API for hand-written decoders.
//
// The contract that keeps a generated decoder exactly as the codec's own: a
// helper takes its fast path only for what it understands, and only into a
// zero value (generated decoders fill fresh objects, and a member seen twice
// in one object is handed to DecodeDefault, which merges as encoding/json v1
// does); anything else (null, a value of another JSON kind, a number that does
// not parse, a type with its own UnmarshalJSON, an interface) is decoded by
// DecodeDefault, i.e. by the codec's reflective decoder with its options, from
// the same position of the same stream. The differential tests in this
// package compare the two paths with client-go's.

// A JSONDecoder is the stream a generated decoder reads one object from, for
// generated code only: its methods and the generic functions that take it
// (DecodeField, DecodeString, DecodeBool, DecodeNumber, DecodeMethod,
// DecodeSlice, DecodeMap, CheckedDecoder) are what informer-gen's generated
// decode.go files call; the methods named after apimachinery's types
// (DecodeObjectMeta, DecodeCondition, …, json_generated_metav1.go) are
// generated too, once, here. A JSONDecoder is only valid during the call the
// codec makes; it is not safe for concurrent use.
type JSONDecoder struct {
	dec     *jsontext.Decoder
	opts    json.Options
	intern  *internCache
	skipMF  bool
	nameBuf []byte
}

// newJSONDecoder returns a JSONDecoder over dec, without its intern cache
// (taken from the pool while it decodes, given back by done).
func (c *jsonCodec[T]) newJSONDecoder(dec *jsontext.Decoder) *JSONDecoder {
	return &JSONDecoder{dec: dec, opts: c.opts, skipMF: c.skipMF}
}

func (d *JSONDecoder) done() {
	if d.intern != nil {
		internPool.Put(d.intern)
		d.intern = nil
	}
}

// BeginObject consumes the '{' that starts an object and reports true, or
// reports false, consuming nothing, when the next value is not an object (the
// caller then hands it to DecodeDefault, which decodes null or reports the
// error).
func (d *JSONDecoder) BeginObject() (bool, error) {
	if d.dec.PeekKind() != '{' {
		return false, nil
	}
	_, err := d.dec.ReadToken()
	return err == nil, err
}

// NextName returns the name of the object's next member, unquoted, or more
// false after consuming the object's closing '}'. The name is only valid
// until the next call.
func (d *JSONDecoder) NextName() (name []byte, more bool, err error) {
	if d.dec.PeekKind() == '}' {
		_, err := d.dec.ReadToken()
		return nil, false, err
	}
	v, err := d.dec.ReadValue()
	if err != nil {
		return nil, false, err
	}
	b := v[1 : len(v)-1]
	for _, ch := range b {
		if ch == '\\' || ch >= 0x80 {
			// Escapes or non-ASCII bytes: unquoted as the struct
			// decoder does (invalid UTF-8 replaced).
			s, err := unquoteSlow(v)
			if err != nil {
				return nil, false, err
			}
			d.nameBuf = append(d.nameBuf[:0], s...)
			return d.nameBuf, true, nil
		}
	}
	return b, true, nil
}

// SkipValue skips the next value (an unknown member's).
func (d *JSONDecoder) SkipValue() error {
	// ReadValue consumes the value in one pass; SkipValue reads it token
	// by token.
	_, err := d.dec.ReadValue()
	return err
}

// DecodeDefault decodes the next value into p, a pointer, with the codec's
// reflective decoder and options: what the codec does without generated
// decoders.
//
// It takes p as an interface and the generic helpers below are generic over
// pointer types, not over the values they point to, on purpose: every
// pointer type has one shape, so a generated package compiles each helper
// once; a value type argument that is a struct with embedded fields (a kind
// embedding TypeMeta and ObjectMeta, metav1.Time embedding time.Time) would
// make it compile a wrapper for every promoted method of that struct's shape,
// which was most of the cost of compiling a generated decode.go
// (docs/performance.md).
func (d *JSONDecoder) DecodeDefault(p any) error {
	return json.UnmarshalDecode(d.dec, p)
}

// PeekNull reports whether the next value is null, consuming nothing.
func (d *JSONDecoder) PeekNull() bool { return d.dec.PeekKind() == 'n' }

// DecodeField decodes the next value, a member of a struct, into *p: with
// decode the first time (*seen false, then set), with DecodeDefault after,
// which merges a duplicate member into the value as encoding/json v1 does.
// For generated code.
func DecodeField[P any](d *JSONDecoder, seen *bool, p P, decode func(*JSONDecoder, P) error) error {
	if *seen {
		return d.DecodeDefault(p)
	}
	*seen = true
	return decode(d, p)
}

// fallback decodes the value v, the value just read from the stream, into p
// with the codec's options: after a fast path found v unusual. Its error
// names the place in the body (/items/1/spec/size), as the reflective
// decoder's does, not the place in v alone.
func (d *JSONDecoder) fallback(v jsontext.Value, p any) error {
	err := json.Unmarshal(v, p, d.opts)
	if se, ok := errors.AsType[*json.SemanticError](err); ok {
		se.JSONPointer = d.dec.StackPointer() + se.JSONPointer
	}
	return err
}

// DecodeString decodes a JSON string into *p, a string type without
// methods. For generated code.
func DecodeString[S ~string](d *JSONDecoder, p *S) error {
	if d.dec.PeekKind() != '"' {
		return d.DecodeDefault(p)
	}
	v, err := d.dec.ReadValue()
	if err != nil {
		return err
	}
	s, err := d.intern.str(v)
	if err != nil {
		return err
	}
	*p = S(s)
	return nil
}

// DecodeBool decodes a JSON boolean into *p, a bool type without methods.
// For generated code.
func DecodeBool[B ~bool](d *JSONDecoder, p *B) error {
	if k := d.dec.PeekKind(); k != 't' && k != 'f' {
		return d.DecodeDefault(p)
	}
	tok, err := d.dec.ReadToken()
	if err != nil {
		return err
	}
	*p = B(tok.Bool())
	return nil
}

// DecodeNumber decodes a JSON number into *p, an integer or floating-point
// type without methods, as the codec does: an integer that does not fit, or
// a number with a fraction or an exponent for an integer type, is the
// reflective decoder's error. For generated code.
func DecodeNumber[N ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64](d *JSONDecoder, p *N) error {
	if d.dec.PeekKind() != '0' {
		return d.DecodeDefault(p)
	}
	v, err := d.dec.ReadValue()
	if err != nil {
		return err
	}
	s, bits := unsafe.String(unsafe.SliceData(v), len(v)), int(unsafe.Sizeof(*p))*8
	// The kind of N, from its arithmetic: constant in each instantiation
	// (one per underlying type), so only one branch is compiled in.
	one, two, zero := N(1), N(2), N(0)
	switch {
	case one/two != zero: // floating-point
		f, err := strconv.ParseFloat(s, bits)
		if err != nil {
			return d.fallback(v, p)
		}
		*p = N(f)
	case zero-one > zero: // unsigned
		n, err := strconv.ParseUint(s, 10, bits)
		if err != nil {
			return d.fallback(v, p)
		}
		*p = N(n)
	default:
		n, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return d.fallback(v, p) // a fraction, an exponent, out of range
		}
		*p = N(n)
	}
	return nil
}

// DecodeMethod decodes the next value into *p by calling its UnmarshalJSON
// method with the value's bytes, as the codec does for a type that has one
// (and no UnmarshalJSONFrom; null is passed to the method too). The method
// must not keep the bytes (encoding/json's rule). If it fails, the value is
// decoded again by the codec's decoder, for its error. For generated code.
func DecodeMethod[P interface{ UnmarshalJSON([]byte) error }](d *JSONDecoder, p P) error {
	v, err := d.dec.ReadValue()
	if err != nil {
		return err
	}
	if err := p.UnmarshalJSON(v); err != nil {
		return d.fallback(v, p)
	}
	return nil
}

// DecodeTime decodes a metav1.Time as the codec does. For generated code.
func (d *JSONDecoder) DecodeTime(p *metav1.Time) error { return unmarshalTime(d.dec, p) }

// DecodeMicroTime decodes a metav1.MicroTime as the codec does. For generated
// code.
func (d *JSONDecoder) DecodeMicroTime(p *metav1.MicroTime) error {
	return unmarshalMicroTime(d.dec, p)
}

// DecodeFieldsV1 decodes a metav1.FieldsV1 as the codec does. For generated
// code.
func (d *JSONDecoder) DecodeFieldsV1(p *metav1.FieldsV1) error { return unmarshalFieldsV1(d.dec, p) }

// DecodeStringMap decodes a map[string]string (labels, annotations) as the
// codec does. For generated code.
func (d *JSONDecoder) DecodeStringMap(p *map[string]string) error {
	if *p != nil {
		return d.DecodeDefault(p)
	}
	return unmarshalStringMap(d.dec, p)
}

// DecodeManagedFields decodes an object's managedFields as the codec does:
// skipped when the codec has SkipManagedFields and this is the decoded
// object's own metadata, else as a slice. For generated code.
func (d *JSONDecoder) DecodeManagedFields(p *[]metav1.ManagedFieldsEntry, elem func(*JSONDecoder, *metav1.ManagedFieldsEntry) error) error {
	if d.skipMF {
		if k := d.dec.PeekKind(); (k == '[' || k == 'n') && isTopManagedFields(string(d.dec.StackPointer())) {
			if _, err := d.dec.ReadValue(); err != nil {
				return err
			}
			*p = nil
			return nil
		}
	}
	return DecodeSlice(d, p, elem)
}

// scratchPools hold, per element type, the slices that DecodeSlice decodes
// elements into before it copies them into a slice of the exact length.
var scratchPools sync.Map // reflect.Type -> *sync.Pool of *[]E

// scratchPool returns the pool of scratch slices for element type t, made
// with newSlice on first use. It, getScratch and putScratch are not generic
// and not inlined on purpose: inlined into the generic DecodeSlice, sync.Map's
// and sync.Pool's bodies (and their generic internals) would be compiled again
// in every generated package (docs/performance.md).
//
//go:noinline
func scratchPool(t reflect.Type, newSlice func() any) *sync.Pool {
	if p, ok := scratchPools.Load(t); ok {
		return p.(*sync.Pool)
	}
	p, _ := scratchPools.LoadOrStore(t, &sync.Pool{New: newSlice})
	return p.(*sync.Pool)
}

//go:noinline
func getScratch(p *sync.Pool) any { return p.Get() }

//go:noinline
func putScratch(p *sync.Pool, s any) { p.Put(s) }

// newScratch returns a new, empty scratch slice of E.
func newScratch[E any]() any { return new([]E) }

// maxScratch is the capacity above which a scratch slice is not kept.
const maxScratch = 1024

// DecodeSlice decodes a JSON array into *p, a nil slice, each element with
// elem into a zero value; the slice is allocated once, with the array's
// length. null leaves *p nil; anything else is DecodeDefault's. For
// generated code.
func DecodeSlice[S ~[]E, E any](d *JSONDecoder, p *S, elem func(*JSONDecoder, *E) error) error {
	if *p != nil || d.dec.PeekKind() != '[' {
		return d.DecodeDefault(p)
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	pool := scratchPool(reflect.TypeFor[E](), newScratch[E])
	sp := getScratch(pool).(*[]E)
	s := (*sp)[:0]
	var err error
	for d.dec.PeekKind() != ']' {
		var zero E
		s = append(s, zero)
		if err = elem(d, &s[len(s)-1]); err != nil {
			break
		}
	}
	if err == nil {
		_, err = d.dec.ReadToken()
	}
	out := make(S, len(s))
	copy(out, s)
	*p = out
	clear(s)
	if cap(s) <= maxScratch {
		*sp = s[:0]
		putScratch(pool, sp)
	}
	return err
}

// DecodeMap decodes a JSON object into *p, a nil map with string keys
// without methods: each member's value is decoded by elem into a zero value,
// a duplicate name's last value wins (as encoding/json v1 has it). null
// leaves *p nil; anything else is DecodeDefault's. For generated code.
func DecodeMap[M ~map[K]V, K ~string, V any](d *JSONDecoder, p *M, elem func(*JSONDecoder, *V) error) error {
	if *p != nil || d.dec.PeekKind() != '{' {
		return d.DecodeDefault(p)
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	m := make(M)
	*p = m
	for d.dec.PeekKind() != '}' {
		kv, err := d.dec.ReadValue()
		if err != nil {
			return err
		}
		k, err := d.intern.str(kv)
		if err != nil {
			return err
		}
		var v V
		err = elem(d, &v)
		m[K(k)] = v
		if err != nil {
			return err
		}
	}
	_, err := d.dec.ReadToken()
	return err
}

// CheckedDecoder returns fn, a generated decoder, when every struct type in
// fields still has the JSON members (in order, comma-separated) it had when
// the decoder was generated, and nil otherwise: a dependency upgraded without
// regenerating (a field added to a k8s.io/api or apimachinery type) must not
// make the decoder skip the new member silently. A nil decoder leaves the
// codec to its own, reflective decoder (factory.Type.DecodeJSON nil). Only
// generated code calls it, once per kind, when the generated package is
// initialized; it inspects the types with reflection and is safe for
// concurrent use.
//
// The check covers the decoders of apimachinery's types (DecodeObjectMeta,
// DecodeCondition, …) that every generated decoder calls: when one of those
// types has other members than the ones these decoders were generated from,
// every generated decoder is nil. It covers the other shared decoder
// packages fn calls (runtime/wire/corev1) through current, the Current
// method of each one's X: fn is nil when any of them reports false.
func CheckedDecoder[P any](fields map[reflect.Type]string, fn func(*JSONDecoder, P) error, current ...func() bool) func(*JSONDecoder, P) error {
	if !sharedCurrent() || !membersMatch(fields) {
		return nil
	}
	for _, c := range current {
		if !c() {
			return nil
		}
	}
	return fn
}

// sharedCurrent reports whether sharedMembers (json_generated_metav1.go)
// match the compiled apimachinery; checked once.
var sharedCurrent = sync.OnceValue(func() bool { return membersMatch(sharedMembers) })

// membersMatch reports whether every struct type in fields has the JSON
// members fields gives it.
func membersMatch(fields map[reflect.Type]string) bool {
	for t, want := range fields {
		if got, ok := cachedMembers(t); !ok || got != want {
			return false
		}
	}
	return true
}

// membersCache holds jsonMembers' results by type: a generated package
// checks its whole table once per kind.
var membersCache sync.Map // reflect.Type -> members

type members struct {
	names string
	ok    bool
}

func cachedMembers(t reflect.Type) (string, bool) {
	if m, ok := membersCache.Load(t); ok {
		return m.(members).names, m.(members).ok
	}
	names, ok := jsonMembers(t)
	membersCache.Store(t, members{names, ok})
	return names, ok
}

// jsonMembers returns the JSON member names of the struct type t as the
// generator's planner (generator/decode) computes them for the structs it
// generates decoders for, comma-separated; ok is false for a struct outside
// what it generates for.
func jsonMembers(t reflect.Type) (string, bool) {
	var names []string
	if t.Kind() != reflect.Struct || !collectMembers(t, map[reflect.Type]bool{}, &names) {
		return "", false
	}
	return strings.Join(names, ","), true
}

func collectMembers(t reflect.Type, visiting map[reflect.Type]bool, names *[]string) bool {
	if visiting[t] {
		return false
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		inline := false
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "", "omitempty", "omitzero":
			case "inline":
				inline = true
			default:
				return false
			}
		}
		if f.Anonymous {
			if f.Type.Kind() == reflect.Pointer {
				return false
			}
			isStruct := f.Type.Kind() == reflect.Struct
			if !f.IsExported() && !isStruct {
				continue
			}
			if name == "" && isStruct {
				if !f.IsExported() || !collectMembers(f.Type, visiting, names) {
					return false
				}
				continue
			}
			if !f.IsExported() || inline {
				return false
			}
		} else {
			if !f.IsExported() {
				continue
			}
			if inline {
				return false
			}
		}
		if name == "" {
			name = f.Name
		}
		*names = append(*names, name)
	}
	return true
}
