package wire

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/fxamacker/cbor/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apicbor "k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/watch"
)

// mediaTypeCBOR is the media type of Kubernetes' CBOR encoding (apimachinery's
// runtime.ContentTypeCBOR), served by API servers with the
// CBORServingAndStorage feature gate. A WATCH response to it comes as
// "application/cbor-seq" (RFC 8742, a sequence of data items).
const mediaTypeCBOR = "application/cbor"

// NewCBOR returns the Codec of media type "application/cbor" for the resource of
// kind gvk, for any typed T (a pointer to a struct: built-in or CRD type).
//
// Objects are decoded by apimachinery's own CBOR serializer
// (k8s.io/apimachinery/pkg/runtime/serializer/cbor, the lax decode mode
// client-go uses, RawExtension and FieldsV1 transcoded to JSON), so their
// semantics are client-go's by construction: its decode modes are internal
// to apimachinery and cannot be configured from outside (the exported
// serializer/cbor/direct.Unmarshal is its strict mode, which refuses unknown
// fields). What is ours is around it: a WATCH frame's event decoded on its
// own and its object straight into T (no negotiator, no object of another
// kind), a LIST's items handed to each one by one instead of a list, the
// group-version-kind checked, and *DecodeError with Recoverable for a frame
// read whole.
//
// A LIST body is read whole before its items are decoded (CBOR has no
// length-prefixed envelope to stream from). Objects come out with the
// TypeMeta client-go leaves: empty for WATCH objects, as in the body for
// LIST items. It returns an error if T is not a pointer to a struct that is
// a runtime.Object, or is unstructured (T is checked at run time, so that
// generic code holding T as a type parameter can call it). No Option
// applies. The Codec is safe for concurrent use.
func NewCBOR[T any](gvk schema.GroupVersionKind, opts ...Option) (Codec[T], error) {
	c, err := resolve[T]("cbor", gvk, opts)
	if err != nil {
		return nil, err
	}
	typ := reflect.PointerTo(c.elem)
	proto, ok := reflect.New(c.elem).Interface().(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("cbor codec for %s: %v is not a runtime.Object", gvk, typ)
	}
	if _, ok := proto.(runtime.Unstructured); ok {
		return nil, fmt.Errorf("cbor codec for %s: %v is unstructured", gvk, typ)
	}
	return newCBOR[T](gvk, proto), nil
}

// newCBOR is NewCBOR for the object type of proto, which must be a T.
func newCBOR[T any](gvk schema.GroupVersionKind, proto runtime.Object) *cborCodec[T] {
	// A scheme of our own that knows T, the list envelope and the
	// unversioned kinds (Status, WatchEvent), and nothing else: an object of
	// another kind cannot be made from it.
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	s.AddKnownTypeWithName(gvk, proto)
	s.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &cborListMeta{})
	return &cborCodec[T]{
		gvk:    gvk,
		object: apicbor.NewSerializer(s, s),
		// The serializer client-go's stream decoder uses for the event.
		event: apicbor.NewSerializer(s, s, apicbor.Transcode(false)),
	}
}

// cborListMeta decodes what a LIST body says besides its items ("items" is
// an unknown field to it, skipped).
type cborListMeta struct {
	metav1.TypeMeta `json:",inline"`
	Meta            metav1.ListMeta `json:"metadata,omitempty"`
}

func (l *cborListMeta) DeepCopyObject() runtime.Object {
	c := &cborListMeta{TypeMeta: l.TypeMeta}
	l.Meta.DeepCopyInto(&c.Meta)
	return c
}

type cborCodec[T any] struct {
	gvk           schema.GroupVersionKind
	object, event runtime.Decoder
}

func (c *cborCodec[T]) MediaType() string { return mediaTypeCBOR }

// DecodeList reads a LIST body: one CBOR map (apimachinery writes kind,
// apiVersion, metadata, items). A first decode, by apimachinery, reads the
// type and metadata and validates the body; then each element of "items" is
// decoded into a fresh T, as apimachinery decodes the elements of a typed
// list's Items.
func (c *cborCodec[T]) DecodeList(body io.Reader, each func(T) error) (metav1.ListMeta, error) {
	src := &pbErrRecorder{r: body}
	data, err := io.ReadAll(src)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	var lm cborListMeta
	out, _, err := c.object.Decode(data, nil, &lm)
	switch {
	case err != nil:
		return metav1.ListMeta{}, &DecodeError{Err: fmt.Errorf("list: %w", contentFree(err))}
	case out != &lm:
		return metav1.ListMeta{}, &DecodeError{Err: fmt.Errorf("list is a %T, not %s", out, c.gvk.Kind+"List")}
	}
	items, err := cborListItems(data)
	if err != nil {
		return metav1.ListMeta{}, &DecodeError{Err: fmt.Errorf("list: %w", err)}
	}
	for _, it := range items {
		t, err := c.decodeObject(data[it.start:it.end], false)
		if err != nil {
			return metav1.ListMeta{}, &DecodeError{Offset: int64(it.start), Err: fmt.Errorf("list item: %w", contentFree(err))}
		}
		if err := each(t); err != nil {
			return metav1.ListMeta{}, err
		}
	}
	return metav1.ListMeta{ResourceVersion: lm.Meta.ResourceVersion, Continue: lm.Meta.Continue, RemainingItemCount: lm.Meta.RemainingItemCount}, nil
}

// decodeObject decodes one object into a fresh T. An item of a list is
// decoded into T whatever its body says its kind is missing; a watch
// event's object, like client-go's, must name its kind.
func (c *cborCodec[T]) decodeObject(data []byte, watchObject bool) (T, error) {
	var zero T
	var into runtime.Object
	var defaults *schema.GroupVersionKind
	if !watchObject {
		defaults = &c.gvk
	}
	obj, actual, err := c.object.Decode(data, defaults, into)
	if err != nil {
		return zero, err
	}
	t, ok := obj.(T)
	if !ok || *actual != c.gvk {
		return zero, fmt.Errorf("object is %s, not %s", actual, c.gvk)
	}
	if watchObject {
		// As client-go's WithoutVersionDecoder leaves it.
		obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	}
	return t, nil
}

func (c *cborCodec[T]) NewWatchDecoder(body io.Reader) WatchDecoder[T] {
	src := &pbErrRecorder{r: body}
	return &cborWatch[T]{c: c, src: src, dec: cbor.NewDecoder(src)}
}

// cborWatch is the WatchDecoder of a cborCodec. Frames are found as
// client-go's CBOR framer finds them (a cbor.Decoder reading one data item).
type cborWatch[T any] struct {
	c      *cborCodec[T]
	src    *pbErrRecorder
	dec    *cbor.Decoder
	buf    []byte
	broken error
}

func (w *cborWatch[T]) Next() (Event[T], error) {
	if w.broken != nil {
		return Event[T]{}, w.broken
	}
	start := int64(w.dec.NumBytesRead())
	// Decoded into the previous frame's buffer, as client-go's CBOR framer
	// reuses its read buffer: nothing decoded from a frame aliases it.
	frame := cbor.RawMessage(w.buf[:0])
	err := w.dec.Decode(&frame)
	if cap(frame) <= pbKeepScratch {
		w.buf = frame[:0]
	}
	if err != nil {
		switch {
		case w.src.err != nil:
			err = w.src.err
		case err != io.EOF:
			err = &DecodeError{Offset: start, Err: fmt.Errorf("watch event frame: %w", err)}
		}
		w.broken = err
		return Event[T]{}, err
	}
	if len(frame) > pbMaxObjectBytes {
		return Event[T]{}, &DecodeError{Recoverable: true, Offset: start, Err: errPBFrameTooLarge}
	}
	ev, err := w.c.decodeEvent(frame)
	if err != nil {
		var de *DecodeError
		if !errors.As(err, &de) {
			de = &DecodeError{Err: err}
		}
		de.Recoverable, de.Offset = true, start
		return Event[T]{}, de
	}
	return ev, nil
}

func (c *cborCodec[T]) decodeEvent(frame []byte) (Event[T], error) {
	var got metav1.WatchEvent
	res, _, err := c.event.Decode(frame, nil, &got)
	switch {
	case err != nil:
		return Event[T]{}, fmt.Errorf("watch event: %w", contentFree(err))
	case res != &got:
		return Event[T]{}, fmt.Errorf("watch event frame holds a %T", res)
	}
	et := watch.EventType(got.Type)
	switch et {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
	case watch.Error:
		obj, _, err := c.object.Decode(got.Object.Raw, nil, nil)
		if err != nil {
			return Event[T]{}, fmt.Errorf("ERROR watch event status: %w", contentFree(err))
		}
		st, ok := obj.(*metav1.Status)
		if !ok {
			return Event[T]{}, fmt.Errorf("ERROR watch event object is a %T, not a Status", obj)
		}
		st.SetGroupVersionKind(schema.GroupVersionKind{})
		return Event[T]{Type: et, Status: st}, nil
	default:
		return Event[T]{}, errPBEventType
	}
	t, err := c.decodeObject(got.Object.Raw, true)
	if err != nil {
		return Event[T]{}, fmt.Errorf("%s watch event object: %w", et, contentFree(err))
	}
	return Event[T]{Type: et, Object: t}, nil
}
