package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/internal/known"
)

// mediaTypeProtobuf is the media type of Kubernetes' protobuf encoding
// (apimachinery's runtime.ContentTypeProtobuf).
const mediaTypeProtobuf = "application/vnd.kubernetes.protobuf"

// pbMaxObjectBytes bounds one object: a WATCH frame or one LIST item. It is
// client-go's bound on a watch frame (streaming.NewDecoder's maxBytes); the
// API server stores nothing near it (etcd's default request limit is 1.5 MiB).
const pbMaxObjectBytes = 16 << 20

// protobufMagic starts every object and list apimachinery's protobuf
// serializer writes: "k8s" and encoding 0, a runtime.Unknown follows.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// NewProtobuf returns the Codec of media type
// "application/vnd.kubernetes.protobuf" for the resource of kind gvk, e.g.
// NewProtobuf[*corev1.Pod](corev1.SchemeGroupVersion.WithKind("Pod")). T must
// be a pointer to a struct with the Unmarshal method go-to-protobuf generates
// for every k8s.io/api type; anything else (a CRD type, which
// controller-gen gives none, an interface, a non-pointer) is an error naming
// T. It decodes exactly what client-go's typed clients decode from the same
// bytes (reflect.DeepEqual objects, the same inputs rejected): the envelopes
// (runtime.Unknown, the XList message, metav1.WatchEvent) are read by hand,
// each object by a decoder built once per Go type from its protobuf struct
// tags, which follows the rules of the generated Unmarshal methods (those of
// a type it cannot describe, such as resource.Quantity and metav1.Time, are
// called).
//
// Objects decoded by one Codec share memory where their bytes are equal:
// repeated strings (label keys and values, namespaces, images, node names)
// are one string; a map (labels, annotations, a node selector, a
// container's resource limits and requests) whose entries were encoded with
// the same bytes as those of an earlier object is that object's map; a
// resource.Quantity holding no pointer is copied from the one decoded from
// the same bytes; a sub-object — the message a pointer field points to, the
// slice of a repeated field of messages or strings (containers, volumes,
// tolerations, probes, owner references, a managedFields entry's fields) —
// encoded with the same bytes as an earlier object's is that object's. This
// is what lets a cache of Pods of one ReplicaSet hold their labels and
// container specs once. It makes the objects read-only, as the objects of
// every informer cache are: a caller that writes to a map, a slice element
// or a pointed-to struct of an object writes to every object sharing it;
// copy the object (DeepCopy) before changing it. (Appending to a shared
// slice copies it: its capacity is its length.) What a Codec keeps for
// sharing is bounded (64Ki strings of up to 1 KiB and 4 MiB, 16Ki maps and
// 8 MiB of their bytes, 16Ki sub-objects of up to 16 KiB and 16 MiB of their
// bytes, 4Ki Quantities) and dropped whole when full, so a stream of unique
// values cannot grow it. codecopts' DistinctMaps (the factory's, for an
// informer with a Transform) turns map and sub-object sharing off.
//
// Objects come out as client-go's typed clients leave them: TypeMeta empty.
// An object whose apiVersion or kind in its envelope is not gvk's (or, for an
// ERROR watch event, not a Status) is a *DecodeError. One object (a LIST
// item or a WATCH frame) is limited to 16 MiB, client-go's watch frame limit.
// SkipManagedFields is the one Option that applies: each object's metadata
// managedFields entries are then skipped on the wire, not decoded (only
// their wire type checked).
//
// The Codec is safe for concurrent use; it decodes one object at a time.
func NewProtobuf[T any](gvk schema.GroupVersionKind, opts ...Option) (Codec[T], error) {
	c, err := resolve[T]("protobuf", gvk, opts)
	if err != nil {
		return nil, err
	}
	typ := reflect.PointerTo(c.elem)
	if !typ.Implements(reflect.TypeFor[pbUnmarshaler]()) {
		return nil, fmt.Errorf("protobuf codec for %s: %v has no generated protobuf Unmarshal method", gvk, typ)
	}
	if tab := pbTableOf(c.elem); tab != nil {
		return newProtobufTable(gvk, c.newT, tab, c.opts.SkipManagedFields, !c.opts.DistinctMaps), nil
	}
	codec := newProtobuf(gvk, c.newT, func(t T, b []byte) error { return any(t).(pbUnmarshaler).Unmarshal(b) })
	if c.opts.SkipManagedFields {
		return codec.withoutManagedFields(), nil
	}
	return codec, nil
}

// newProtobufTable returns the protobuf codec of gvk decoding objects (made
// by newT, pointers to tab's type) with the table decoder, skipping
// managedFields when skipManagedFields and sharing maps between objects
// when shareMaps.
func newProtobufTable[T any](gvk schema.GroupVersionKind, newT func() T, tab *pbTable, skipManagedFields, shareMaps bool) *protobufCodec[T] {
	skipping := false
	if skipManagedFields {
		if t := pbWithoutManagedFieldsTable(tab); t != tab {
			tab, skipping = t, true
		}
	}
	var mu sync.Mutex
	d := newPBTableDecoder()
	d.noSharedMaps = !shareMaps
	codec := newProtobuf(gvk, newT, func(t T, b []byte) error {
		p := pbObjectPointer(any(t))
		mu.Lock()
		defer mu.Unlock()
		return d.decode(tab, p, b)
	})
	codec.skipsManagedFields = skipping
	return codec
}

// pbObjectPointer returns the pointer o holds (o is a pointer to a struct,
// as a codec's newT makes).
func pbObjectPointer(o any) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&o))[1]
}

// pbUnmarshaler is the method go-to-protobuf generates.
type pbUnmarshaler interface{ Unmarshal([]byte) error }

// protobufCodec is the Codec NewProtobuf returns. newT returns a fresh
// object, unmarshal decodes an object's bytes into it.
type protobufCodec[T any] struct {
	newT      func() T
	unmarshal func(T, []byte) error
	// The group, version, kind and list kind the envelopes must name;
	// apiVersion is group/version as the API server writes it.
	group, version, kind, listKind, apiVersion string
	// skipsManagedFields: unmarshal reads objects without their
	// metadata.managedFields (SkipManagedFields).
	skipsManagedFields bool
}

func newProtobuf[T any](gvk schema.GroupVersionKind, newT func() T, unmarshal func(T, []byte) error) *protobufCodec[T] {
	return &protobufCodec[T]{
		newT:       newT,
		unmarshal:  unmarshal,
		group:      gvk.Group,
		version:    gvk.Version,
		apiVersion: gvk.GroupVersion().String(),
		kind:       gvk.Kind,
		listKind:   gvk.Kind + "List",
	}
}

func (c *protobufCodec[T]) MediaType() string { return mediaTypeProtobuf }

// checkListType checks the TypeMeta of a LIST's Unknown. Like apimachinery
// decoding into a typed list (copyKindDefaults), an empty apiVersion or kind
// stands for the expected one.
func (c *protobufCodec[T]) checkListType(tm pbTypeMeta) error {
	// An unparsable or versionless apiVersion gets the default group and
	// version (copyKindDefaults), as does an empty kind.
	group, version, _ := pbParseGroupVersion(tm.apiVersion)
	if (len(version) == 0 || string(group) == c.group && string(version) == c.version) &&
		(len(tm.kind) == 0 || string(tm.kind) == c.listKind) {
		return nil
	}
	return fmt.Errorf("list is %s, not %q %q", pbDescribeType(tm), c.apiVersion, c.listKind)
}

// pbCheckObjectType checks the TypeMeta of a WATCH event object's Unknown
// against group, version and kind. client-go decodes it with no default,
// so an empty (or unparsable) apiVersion or kind does not match.
func pbCheckObjectType(tm pbTypeMeta, group, version, kind string) bool {
	g, v, ok := pbParseGroupVersion(tm.apiVersion)
	return ok && len(v) > 0 && string(g) == group && string(v) == version && string(tm.kind) == kind
}

// pbParseGroupVersion splits an apiVersion as schema.ParseGroupVersion does:
// "v1" is the core group, "apps/v1" group apps; more than one slash is not
// an apiVersion (ok false). An empty apiVersion or "/" gives empty parts.
func pbParseGroupVersion(av []byte) (group, version []byte, ok bool) {
	switch i := bytes.IndexByte(av, '/'); {
	case len(av) == 0 || string(av) == "/":
		return nil, nil, true
	case i < 0:
		return nil, av, true
	case bytes.IndexByte(av[i+1:], '/') >= 0:
		return nil, nil, false
	default:
		return av[:i], av[i+1:], true
	}
}

// pbDescribeType names the apiVersion and kind of an envelope in an error
// message, or says they are not printable.
func pbDescribeType(tm pbTypeMeta) string {
	if !pbPrintable(tm.apiVersion) || !pbPrintable(tm.kind) {
		return "of an unprintable apiVersion/kind"
	}
	return fmt.Sprintf("%q %q", tm.apiVersion, tm.kind)
}

var (
	errNotProtobuf = errors.New("body does not start with the protobuf magic \"k8s\\x00\"")
	errPBEmptyBody = errors.New("empty protobuf body")
	// Items go to each as they are decoded, so an envelope that changes
	// after them cannot be honoured; no API server writes one.
	errTwoRaws          = errors.New("list envelope holds its raw list twice")
	errTypeMetaAfterRaw = errors.New("list envelope names its type after its items")
	// apimachinery decodes an envelope without raw as an empty list; every
	// API server writes raw, so its absence is a body cut short after the
	// envelope's TypeMeta, which must not empty a cache.
	errNoRaw = errors.New("list envelope without its raw list")
)

// DecodeList reads a LIST body: the magic, then a runtime.Unknown whose raw
// (field 2) is the XList message (metav1.ListMeta in field 1, items in field 2).
// Items are decoded one by one as the body arrives and handed to each; the
// list is never built. See k8s.io/apimachinery/pkg/runtime/serializer/protobuf
// (Serializer.Decode, collections.go) for the encoding.
func (c *protobufCodec[T]) DecodeList(body io.Reader, each func(T) error) (metav1.ListMeta, error) {
	return c.DecodeListKnown(body, nil, each)
}

// DecodeListKnown is DecodeList, except that an item that l knows (the same
// name, namespace and resourceVersion) is not decoded: l's object is handed
// to each instead. A nil l knows nothing.
func (c *protobufCodec[T]) DecodeListKnown(body io.Reader, l known.Lookup[T], each func(T) error) (metav1.ListMeta, error) {
	s := newPBStream(body)
	fail := func(err error) (metav1.ListMeta, error) {
		var de *DecodeError
		if se, ok := err.(pbStopError); ok {
			return metav1.ListMeta{}, se.err
		}
		switch {
		case s.readErr() != nil:
			// The body failed (a cancelled request, a reset connection):
			// not malformed bytes.
			return metav1.ListMeta{}, s.readErr()
		case errors.As(err, &de):
			return metav1.ListMeta{}, err
		}
		return metav1.ListMeta{}, &DecodeError{Offset: s.off, Err: err}
	}
	magic, err := s.next(len(protobufMagic))
	switch {
	case err == io.ErrUnexpectedEOF && s.off == 0:
		return fail(errPBEmptyBody)
	case err == io.ErrUnexpectedEOF:
		return fail(errNotProtobuf)
	case err != nil:
		return fail(err)
	case !bytes.Equal(magic, protobufMagic):
		s.off = 0
		return fail(errNotProtobuf)
	}
	var (
		tm     pbTypeMeta
		lm     metav1.ListMeta
		sawRaw bool
		sawAny bool
	)
	for {
		v, err := s.varint()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		sawAny = true
		field, wt, err := pbCheckTag(v)
		if err != nil {
			return fail(err)
		}
		if field > 4 {
			if err := s.skip(wt, 1<<62); err != nil {
				return fail(err)
			}
			continue
		}
		if wt != wireBytes {
			return fail(wrongWireType("Unknown", field, wt))
		}
		n, err := s.varint()
		if err != nil {
			return fail(pbEOFIsUnexpected(err))
		}
		switch {
		case field == 2:
			if sawRaw {
				return fail(errTwoRaws)
			}
			sawRaw = true
			if err := c.checkListType(tm); err != nil {
				return fail(err)
			}
			if n > 1<<62 {
				return fail(io.ErrUnexpectedEOF)
			}
			if err := c.decodeItems(s, s.off+int64(n), &lm, l, each); err != nil {
				return fail(err)
			}
		case n > pbMaxObjectBytes:
			return fail(fmt.Errorf("list envelope field %d of %d bytes, more than %d", field, n, pbMaxObjectBytes))
		case field == 1:
			if sawRaw {
				return fail(errTypeMetaAfterRaw)
			}
			b, err := s.next(int(n))
			if err != nil {
				return fail(err)
			}
			// A second TypeMeta merges into the first, field by field, as
			// in the generated Unmarshal. b is overwritten by the next
			// read: keep copies.
			var next pbTypeMeta
			if err := next.merge(b); err != nil {
				return fail(err)
			}
			if next.apiVersion != nil {
				tm.apiVersion = bytes.Clone(next.apiVersion)
			}
			if next.kind != nil {
				tm.kind = bytes.Clone(next.kind)
			}
		default: // contentEncoding, contentType: ignored, as apimachinery does
			if err := s.discard(int64(n)); err != nil {
				return fail(err)
			}
		}
	}
	switch {
	case !sawAny:
		return fail(errPBEmptyBody)
	case !sawRaw:
		return fail(errNoRaw)
	}
	return metav1.ListMeta{
		ResourceVersion:    lm.ResourceVersion,
		Continue:           lm.Continue,
		RemainingItemCount: lm.RemainingItemCount,
	}, nil
}

// pbStopError carries an error returned by a DecodeList caller's each, which
// DecodeList returns as is.
type pbStopError struct{ err error }

func (e pbStopError) Error() string { return e.err.Error() }

// decodeItems reads an XList message that ends at offset end: metadata
// (field 1, merged into lm as the generated code merges a repeated message
// field) and items (field 2), each decoded into a fresh T, or looked up in l
// (see DecodeListKnown), and handed to each.
func (c *protobufCodec[T]) decodeItems(s *pbStream, end int64, lm *metav1.ListMeta, l known.Lookup[T], each func(T) error) error {
	for s.off < end {
		v, err := s.varint()
		if err != nil {
			return pbEOFIsUnexpected(err)
		}
		field, wt, err := pbCheckTag(v)
		if err != nil {
			return err
		}
		if field != 1 && field != 2 {
			if err := s.skip(wt, end); err != nil {
				return err
			}
			continue
		}
		if wt != wireBytes {
			return wrongWireType("list", field, wt)
		}
		n, err := s.varint()
		if err != nil {
			return pbEOFIsUnexpected(err)
		}
		if n > uint64(end-s.off) {
			return io.ErrUnexpectedEOF
		}
		if n > pbMaxObjectBytes {
			return fmt.Errorf("list item of %d bytes, more than %d", n, pbMaxObjectBytes)
		}
		start := s.off
		b, err := s.next(int(n))
		if err != nil {
			return err
		}
		if field == 1 {
			if err := lm.Unmarshal(b); err != nil {
				return &DecodeError{Offset: start, Err: fmt.Errorf("list metadata: %w", err)}
			}
			continue
		}
		t, ok := c.lookup(l, b)
		if !ok {
			t = c.newT()
			if err := c.unmarshal(t, b); err != nil {
				key, rv := pbObjectKey(b)
				return &DecodeError{Key: key, ResourceVersion: rv, Offset: start, Err: fmt.Errorf("list item: %w", contentFree(err))}
			}
		}
		if err := each(t); err != nil {
			return pbStopError{err}
		}
	}
	if s.off > end {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// lookup returns l's object for the object whose bytes are obj, if l knows
// it (a nil l knows nothing). Only the metadata is read: an object with a
// name and a resourceVersion l holds is, on the server, the one l's object
// was decoded from.
func (c *protobufCodec[T]) lookup(l known.Lookup[T], obj []byte) (T, bool) {
	if l == nil {
		var zero T
		return zero, false
	}
	name, ns, rv := pbObjectMeta(obj)
	if len(name) == 0 || len(rv) == 0 {
		var zero T
		return zero, false
	}
	return l(ns, name, rv)
}
