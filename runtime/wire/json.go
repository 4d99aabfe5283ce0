package wire

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/internal/known"
)

// mediaTypeJSON is the media type the JSON Codec asks for (apimachinery's
// runtime.ContentTypeJSON).
const mediaTypeJSON = "application/json"

// jsonOptions make github.com/go-json-experiment/json decode as
// sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts (apimachinery's JSON
// serializer) does: encoding/json v1 semantics (duplicate names, last wins;
// invalid UTF-8 replaced; null leaves non-nullable values alone; merge into
// existing values; v1's base64 and `string` tags; UnmarshalJSON methods called
// as v1 calls them), but with case-sensitive field names. Two v1 options are
// left out on purpose: ReportErrorsWithLegacySemantics, which pre-scans every
// value for validity before decoding it and goes on after a type error (we
// stop at the first error instead; an error is an error to both), and
// case-insensitive matching.
var jsonOptions = json.JoinOptions(jsonBaseOptions, json.WithUnmarshalers(fastUnmarshalers))

// jsonBaseOptions are jsonOptions without fastUnmarshalers.
var jsonBaseOptions = json.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsonv1.ReportErrorsWithLegacySemantics(false),
	json.MatchCaseInsensitiveNames(false),
)

// jsonOptionsPreserveInts adds sigs.k8s.io/json's PreserveInts: a JSON number
// decoded into an interface{} is an int64 when it is an integer that fits,
// else a float64. Only used for types that can hold an interface{} value, as
// the any unmarshaler makes v2 leave its fast path for interface{} values.
var jsonOptionsPreserveInts = json.JoinOptions(jsonOptions, json.WithUnmarshalers(
	json.JoinUnmarshalers(fastUnmarshalers, json.UnmarshalFromFunc(unmarshalAny))))

// jsonOptionsSkipMF and jsonOptionsPreserveIntsSkipMF add SkipManagedFields.
// Each set of unmarshalers caches its per-type lookups, so the sets are made
// once, not per codec.
var (
	jsonOptionsSkipMF = json.JoinOptions(jsonBaseOptions, json.WithUnmarshalers(
		json.JoinUnmarshalers(json.UnmarshalFromFunc(skipManagedFields), fastUnmarshalers)))
	jsonOptionsPreserveIntsSkipMF = json.JoinOptions(jsonBaseOptions, json.WithUnmarshalers(
		json.JoinUnmarshalers(json.UnmarshalFromFunc(skipManagedFields), fastUnmarshalers, json.UnmarshalFromFunc(unmarshalAny))))
)

// NewJSON returns the Codec for the JSON encoding of one resource whose
// objects have the group-version-kind gvk and Go type T, a pointer to a
// struct such as *v1alpha1.Foo; any other T is an error naming it.
//
// Every item and event object is decoded once, straight from the body into a
// freshly allocated T, with apimachinery's semantics (see jsonOptions); no
// object shares mutable memory with another (equal strings, immutable, may
// share their bytes: the decoder interns short ones). LIST items keep the apiVersion and kind
// the body gives them (as client-go's Do().Into does); watch event objects
// have theirs cleared (as client-go's watch decoder does). An item or event
// object whose apiVersion or kind is present and differs from gvk (or from
// gvk.Kind+"List" for the list itself) is a *DecodeError. A watch event object
// without apiVersion and kind is a *DecodeError too, as it is to client-go,
// which decodes watch events by their kind; names are case-sensitive here, so
// "ApiVersion" or "Kind" in another case do not count, where client-go's kind
// lookup (encoding/json's, case-insensitive) takes them: no API server sends
// them. Options change what is decoded (SkipManagedFields) and how
// (GeneratedDecoder).
//
// The Codec is safe for concurrent use.
func NewJSON[T any](gvk schema.GroupVersionKind, opts ...Option) (Codec[T], error) {
	c, err := resolve[T]("json", gvk, opts)
	if err != nil {
		return nil, err
	}
	return buildJSONCodec(c, gvk)
}

// buildJSONCodec returns the JSON codec of c's objects.
func buildJSONCodec[T any](c codecOf[T], gvk schema.GroupVersionKind) (*jsonCodec[T], error) {
	elem := c.elem
	jc := &jsonCodec[T]{newT: c.newT, skipMF: c.opts.SkipManagedFields, fake: c.opts.FakeTypeMeta}
	if c.opts.JSONDecoder != nil {
		if c.opts.JSONDecoderType != reflect.PointerTo(elem) {
			return nil, fmt.Errorf("json codec for %s: the generated decoder decodes %v, not %v", gvk, c.opts.JSONDecoderType, reflect.PointerTo(elem))
		}
		dec, ok := c.opts.JSONDecoder.(func(*JSONDecoder, any) error)
		if !ok {
			return nil, fmt.Errorf("json codec for %s: the generated decoder is a %T, not a func(*wire.JSONDecoder, any) error", gvk, c.opts.JSONDecoder)
		}
		jc.decode = dec
	}
	jc.apiVersion, jc.kind = gvk.ToAPIVersionAndKind()
	jc.listKind = gvk.Kind + "List"
	switch hasAny := holdsInterface(elem); {
	case hasAny && jc.skipMF:
		jc.opts = jsonOptionsPreserveIntsSkipMF
	case hasAny:
		jc.opts = jsonOptionsPreserveInts
	case jc.skipMF:
		jc.opts = jsonOptionsSkipMF
	default:
		jc.opts = jsonOptions
	}
	if definitionErrors(elem) {
		jc.opts = json.JoinOptions(jc.opts, jsonv1.ReportErrorsWithLegacySemantics(true))
	}
	return jc, nil
}

// definitionErrors reports whether a struct type that decoding t may reach
// has a definition that encoding/json accepts and json v2 does not: an
// embedded struct with options but no name (Tekton embeds ResolverRef
// tagged `json:",omitempty"`, KServe tags embedded structs
// `json:",inline,omitempty"`), an embedded non-struct without a name, two
// fields of one JSON name. v2 then fails every value of that struct unless
// errors have legacy semantics, under which it ignores the definition as
// encoding/json does; so the codec of such a type decodes with
// ReportErrorsWithLegacySemantics, which also makes it read an object whole
// before decoding it and go on past a field's type error (an error is still
// an error). Each struct is asked by decoding {} into a new one, which
// reports its definition's error first; types with their own UnmarshalJSON
// or UnmarshalText are not looked into, as the decoder does not.
func definitionErrors(t reflect.Type) bool {
	return decodesAny(t, map[reflect.Type]bool{}, func(t reflect.Type) bool {
		return t.Kind() == reflect.Struct && json.Unmarshal([]byte("{}"), reflect.New(t).Interface(), jsonBaseOptions) != nil
	})
}

// The errors where the JSON Codec is stricter than client-go (tests allow
// these differences).
var (
	errKindMismatch   = errors.New("apiVersion/kind mismatch")
	errDuplicateItems = errors.New(`duplicate "items" in list`)
	errNoKind         = errors.New("object has no apiVersion and kind")
)

type jsonCodec[T any] struct {
	newT                       func() T
	apiVersion, kind, listKind string
	opts                       json.Options
	skipMF                     bool
	// fake is codecopts.Options.FakeTypeMeta: objects keep their TypeMeta,
	// unchecked.
	fake bool
	// decode is the generated decoder (GeneratedDecoder), or nil.
	decode func(*JSONDecoder, any) error
}

// unmarshalObject decodes the next value of dec into obj, a fresh T: with the
// generated decoder when there is one, through jd when it reads dec (one
// JSONDecoder per body, not per object).
func (c *jsonCodec[T]) unmarshalObject(jd *JSONDecoder, dec *jsontext.Decoder, obj T) error {
	if c.decode == nil {
		return json.UnmarshalDecode(dec, obj)
	}
	if jd == nil || jd.dec != dec {
		jd = c.newJSONDecoder(dec)
	}
	if jd.intern == nil {
		jd.intern = internPool.Get().(*internCache)
		defer jd.done()
	}
	return c.decode(jd, obj)
}

// MediaType implements Codec.
func (c *jsonCodec[T]) MediaType() string { return mediaTypeJSON }

// DecodeList implements Codec. It stops at the first malformed item: a LIST
// is whole or it is an error, as it is to client-go. A second "items" member
// (which client-go would decode over the first) is an error, because the first
// one's items were already handed to each.
func (c *jsonCodec[T]) DecodeList(body io.Reader, each func(T) error) (metav1.ListMeta, error) {
	return c.DecodeListKnown(body, nil, each)
}

// DecodeListKnown is DecodeList, except that an item that l knows (the same
// name, namespace and resourceVersion, read before the item is decoded) is
// not decoded: l's object is handed to each instead. A nil l knows nothing.
func (c *jsonCodec[T]) DecodeListKnown(body io.Reader, l known.Lookup[T], each func(T) error) (metav1.ListMeta, error) {
	var lm metav1.ListMeta
	r := &ioErrReader{r: body}
	dec := jsontext.NewDecoder(r, c.opts)
	fail := func(recoverable bool, key, rv string, err error) (metav1.ListMeta, error) {
		if r.err != nil {
			return lm, fmt.Errorf("read list body: %w", r.err)
		}
		return lm, &DecodeError{Recoverable: recoverable, Key: key, ResourceVersion: rv, Offset: dec.InputOffset(), Err: err}
	}
	tok, err := dec.ReadToken()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fail(false, "", "", err)
	}
	if tok.Kind() != '{' {
		return fail(false, "", "", fmt.Errorf("list body is a JSON %s, not an object", kindName(tok.Kind())))
	}
	var meta metav1.ListMeta
	var apiVersion, kind string
	seenItems := false
	jd := c.newJSONDecoder(dec)
	jd.intern = internPool.Get().(*internCache)
	defer jd.done()
	var jk *jsonKnown[T]
	if l != nil {
		jk = c.newKnown(l, jd.intern)
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return fail(false, "", "", err)
		}
		switch name.String() {
		case "apiVersion":
			err = json.UnmarshalDecode(dec, &apiVersion)
		case "kind":
			err = json.UnmarshalDecode(dec, &kind)
		case "metadata":
			err = json.UnmarshalDecode(dec, &meta)
		case "items":
			if seenItems {
				return fail(false, "", "", errDuplicateItems)
			}
			seenItems = true
			switch dec.PeekKind() {
			case 'n':
				_, err = dec.ReadToken()
			case '[':
				if _, err := dec.ReadToken(); err != nil {
					return fail(false, "", "", err)
				}
				for dec.PeekKind() != ']' {
					from, fromJD := dec, jd
					if jk != nil {
						v, err := dec.ReadValue()
						if err != nil {
							return fail(false, "", "", err)
						}
						if obj, ok := jk.lookup(v, false); ok {
							if err := each(obj); err != nil {
								return lm, err
							}
							continue
						}
						from, fromJD = jk.decoder(v)
					}
					obj := c.newT()
					if err := c.unmarshalObject(fromJD, from, obj); err != nil {
						key, rv := identify(obj)
						return fail(false, key, rv, fmt.Errorf("list item: %w", contentFree(err)))
					}
					if err := c.checkKind(obj, false); err != nil {
						key, rv := identify(obj)
						return fail(false, key, rv, err)
					}
					if err := each(obj); err != nil {
						return lm, err
					}
				}
				_, err = dec.ReadToken()
			default:
				// Let the decoder say what is wrong (a type error, or a
				// syntax error at the right offset).
				var items []struct{}
				err = json.UnmarshalDecode(dec, &items)
				if err == nil {
					err = errors.New("list items are not an array")
				}
			}
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return fail(false, "", "", contentFree(err))
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return fail(false, "", "", err)
	}
	if apiVersion != "" && apiVersion != c.apiVersion || kind != "" && kind != c.listKind {
		return fail(false, "", "", fmt.Errorf("%w: list is %s %s, want %s %s", errKindMismatch, apiVersion, kind, c.apiVersion, c.listKind))
	}
	// Only whitespace may follow, as to sigs.k8s.io/json's Unmarshal.
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the list object")
		}
		return fail(false, "", "", err)
	}
	lm = metav1.ListMeta{ResourceVersion: meta.ResourceVersion, Continue: meta.Continue, RemainingItemCount: meta.RemainingItemCount}
	return lm, nil
}

// checkKind reports an object whose apiVersion or kind is set and is not
// the codec's. required also rejects an object without them. A fake's
// codec (codecopts.Options.FakeTypeMeta) checks nothing.
func (c *jsonCodec[T]) checkKind(obj T, required bool) error {
	o, ok := any(obj).(interface{ GetObjectKind() schema.ObjectKind })
	if !ok || c.fake {
		return nil
	}
	apiVersion, kind := o.GetObjectKind().GroupVersionKind().ToAPIVersionAndKind()
	if required && (apiVersion == "" || kind == "") {
		return errNoKind
	}
	if apiVersion != "" && apiVersion != c.apiVersion || kind != "" && kind != c.kind {
		return fmt.Errorf("%w: object is %s %s, want %s %s", errKindMismatch, apiVersion, kind, c.apiVersion, c.kind)
	}
	return nil
}

// isFraming reports an error after which the stream's framing is lost: a
// syntax error, a truncated body or a read error.
func isFraming(err error) bool {
	var se *jsontext.SyntacticError
	return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

func cmp(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// identify returns the key and resourceVersion of a (possibly partly decoded)
// object, as far as it has them.
func identify(obj any) (key, rv string) {
	o, ok := obj.(interface {
		GetNamespace() string
		GetName() string
		GetResourceVersion() string
	})
	if !ok || reflect.ValueOf(obj).IsNil() {
		return "", ""
	}
	key = o.GetName()
	if ns := o.GetNamespace(); ns != "" && key != "" {
		key = ns + "/" + key
	}
	return key, o.GetResourceVersion()
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "value"
}

// ioErrReader remembers the first error other than io.EOF its reader
// returned, so that a broken connection is told apart from a body that
// ended in the middle of an event.
type ioErrReader struct {
	r   io.Reader
	err error
}

func (r *ioErrReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}
