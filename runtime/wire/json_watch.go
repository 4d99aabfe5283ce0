package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/known"
)

// NewWatchDecoder implements Codec.
func (c *jsonCodec[T]) NewWatchDecoder(body io.Reader) WatchDecoder[T] {
	return c.NewWatchDecoderKnown(body, nil)
}

// NewWatchDecoderKnown is NewWatchDecoder, except that the object of an
// ADDED or MODIFIED event that l knows (the same name, namespace and
// resourceVersion, read before the object is decoded) is not decoded: the
// event carries l's object. A WatchList uses it for its initial events, most
// of which a relist's cache holds.
func (c *jsonCodec[T]) NewWatchDecoderKnown(body io.Reader, l known.Lookup[T]) WatchDecoder[T] {
	r := &ioErrReader{r: body}
	dec := jsontext.NewDecoder(r, c.opts)
	d := &jsonWatchDecoder[T]{c: c, r: r, dec: dec, jd: c.newJSONDecoder(dec)}
	if l != nil {
		d.known = c.newKnown(l, nil)
	}
	return d
}

// jsonWatchDecoder frames the events of a JSON watch stream itself: the body
// is a sequence of {"type": ..., "object": {...}} objects.
type jsonWatchDecoder[T any] struct {
	c     *jsonCodec[T]
	r     *ioErrReader
	dec   *jsontext.Decoder
	jd    *JSONDecoder  // over dec, for a generated decoder; its intern cache is taken per event
	known *jsonKnown[T] // see NewWatchDecoderKnown
	err   error         // sticky: the stream is unusable
}

// Next implements WatchDecoder.
func (d *jsonWatchDecoder[T]) Next() (Event[T], error) {
	if d.err != nil {
		return Event[T]{}, d.err
	}
	ev, recoverable, key, rv, err := d.next()
	if err == nil {
		return ev, nil
	}
	switch {
	case err == io.EOF:
		d.err = io.EOF
		return Event[T]{}, io.EOF
	case d.r.err != nil:
		d.err = fmt.Errorf("read watch body: %w", d.r.err)
		return Event[T]{}, d.err
	}
	de := &DecodeError{Recoverable: recoverable, Key: key, ResourceVersion: rv, Offset: d.dec.InputOffset(), Err: err}
	if !recoverable {
		d.err = de
	}
	return Event[T]{}, de
}

// next reads one event. recoverable reports that the event's frame was read
// whole after an error.
func (d *jsonWatchDecoder[T]) next() (ev Event[T], recoverable bool, key, rv string, err error) {
	dec := d.dec
	switch dec.PeekKind() {
	case '{':
	case 0:
		_, err = dec.ReadToken() // io.EOF between events, or the error
		return ev, false, "", "", err
	default:
		k := dec.PeekKind()
		if err := dec.SkipValue(); err != nil {
			return ev, false, "", "", err
		}
		return ev, true, "", "", fmt.Errorf("watch event is a JSON %s, not an object", kindName(k))
	}
	if _, err := dec.ReadToken(); err != nil {
		return ev, false, "", "", err
	}
	var (
		typ       string
		raw       jsontext.Value // the object when it came before the type
		haveObj   bool
		semantic  error // the first error that left the frame intact, but objErr
		objErr    error // of the last "object": a later one replaces it, as for client-go
		objIsStat bool
	)
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return ev, false, "", "", err
		}
		switch name.String() {
		case "type":
			if err := json.UnmarshalDecode(dec, &typ); err != nil {
				if isFraming(err) {
					return ev, false, "", "", err
				}
				semantic = cmp(semantic, fmt.Errorf("watch event type: %w", contentFree(err)))
			}
			if haveObj && raw == nil && (typ == string(watch.Error)) != objIsStat {
				// A duplicate "type" (the last one wins, as to client-go)
				// that needs another Go type than the object was decoded
				// into: client-go would decode the object by its kind.
				objErr = cmp(objErr, fmt.Errorf("%w: watch event type changed to %q after its object", errKindMismatch, typ))
			}
		case "object":
			haveObj = true
			if typ == "" {
				// Rare: the object came before the type. Keep its bytes.
				v, err := dec.ReadValue()
				if err != nil {
					return ev, false, "", "", err
				}
				raw = v.Clone()
				continue
			}
			// A duplicate "object" replaces the one before it, and its
			// error: the last one wins, as to client-go.
			raw, objErr, key, rv = nil, nil, "", ""
			objIsStat = typ == string(watch.Error)
			var derr error
			ev, derr = d.decodeObject(typ, dec)
			if derr != nil {
				if isFraming(derr) {
					return ev, false, "", "", derr
				}
				objErr = derr
				key, rv = identify(ev.Object)
				ev = Event[T]{}
			}
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return ev, false, key, rv, err
		}
		// After a decode error, find the end of the member's value, so the
		// next event can be read: or say the framing is lost.
		for dec.StackDepth() > 1 {
			if _, err := dec.ReadToken(); err != nil {
				return ev, false, key, rv, err
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return ev, false, key, rv, err
	}
	semantic = cmp(semantic, objErr)
	if semantic == nil && raw != nil {
		ev, semantic = d.decodeObject(typ, jsontext.NewDecoder(bytes.NewReader(raw), d.c.opts))
		if semantic != nil {
			key, rv = identify(ev.Object)
			ev = Event[T]{}
		}
	}
	switch {
	case semantic != nil:
	case typ == "":
		semantic = errors.New("watch event has no type")
	case !haveObj:
		semantic = fmt.Errorf("%s watch event has no object", typ)
	default:
		switch watch.EventType(typ) {
		case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark, watch.Error:
		default: // a later duplicate "type" replaced the one the object was decoded for
			semantic = fmt.Errorf("unknown watch event type %q", typ)
		}
	}
	if semantic != nil {
		return Event[T]{}, true, key, rv, semantic
	}
	ev.Type = watch.EventType(typ)
	return ev, false, "", "", nil
}

// decodeObject decodes the object of a watch event of type typ, the next
// value of dec. On error the returned event's Object, when set, is what was
// decoded so far (to name it).
func (d *jsonWatchDecoder[T]) decodeObject(typ string, dec *jsontext.Decoder) (Event[T], error) {
	switch watch.EventType(typ) {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
	case watch.Error:
		st := new(metav1.Status)
		if err := json.UnmarshalDecode(dec, st); err != nil {
			return Event[T]{}, fmt.Errorf("ERROR watch event: %w", contentFree(err))
		}
		// client-go decodes the object by its kind, as for other events.
		if st.APIVersion == "" || st.Kind == "" {
			return Event[T]{}, fmt.Errorf("ERROR watch event: %w", errNoKind)
		}
		if st.Kind != "Status" {
			return Event[T]{}, fmt.Errorf("%w: ERROR watch event carries %s, not a Status", errKindMismatch, st.Kind)
		}
		st.TypeMeta = metav1.TypeMeta{}
		return Event[T]{Status: st}, nil
	default:
		return Event[T]{}, fmt.Errorf("unknown watch event type %q", typ)
	}
	jd := d.jd
	if d.known != nil && (typ == string(watch.Added) || typ == string(watch.Modified)) {
		v, err := dec.ReadValue()
		if err != nil {
			return Event[T]{}, err
		}
		if obj, ok := d.known.lookup(v, true); ok {
			return Event[T]{Object: obj}, nil
		}
		dec, jd = d.known.decoder(v)
	}
	obj := d.c.newT()
	if err := d.c.unmarshalObject(jd, dec, obj); err != nil {
		return Event[T]{Object: obj}, fmt.Errorf("%s watch event: %w", typ, contentFree(err))
	}
	if err := d.c.checkKind(obj, true); err != nil {
		return Event[T]{Object: obj}, fmt.Errorf("%s watch event: %w", typ, err)
	}
	if o, ok := any(obj).(interface{ GetObjectKind() schema.ObjectKind }); ok && !d.c.fake {
		o.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	}
	return Event[T]{Object: obj}, nil
}
