package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/known"
)

// A protobuf WATCH body is a stream of frames (the API server's
// protobuf.LengthDelimitedFramer, k8s.io/apimachinery/pkg/util/framer): a
// 4-byte big-endian length, then that many bytes of a metav1.WatchEvent
// encoded by the raw serializer (no magic, no Unknown: the codec factory's
// StreamSerializer for protobuf is protobuf.NewRawSerializer). The event's
// object (field 2, a RawExtension whose field 1 is raw) is the object encoded
// by the protobuf serializer: the magic and a runtime.Unknown around it.

var (
	errPBFrameTooLarge = fmt.Errorf("watch event frame longer than %d bytes", pbMaxObjectBytes)
	errPBEmptyFrame    = errors.New("empty watch event frame")
	errPBEventType     = errors.New("watch event of an pbUnknown type")
	errPBNoObject      = errors.New("watch event object without the protobuf magic")
)

func (c *protobufCodec[T]) NewWatchDecoder(body io.Reader) WatchDecoder[T] {
	return c.NewWatchDecoderKnown(body, nil)
}

// NewWatchDecoderKnown is NewWatchDecoder, except that the object of an
// ADDED or MODIFIED event that l knows (the same name, namespace and
// resourceVersion) is not decoded: the event carries l's object. A WatchList
// uses it for its initial events, most of which a relist's cache holds.
func (c *protobufCodec[T]) NewWatchDecoderKnown(body io.Reader, l known.Lookup[T]) WatchDecoder[T] {
	return &protobufWatch[T]{c: c, s: newPBStream(body), known: l}
}

// protobufWatch is the WatchDecoder of a protobufCodec.
type protobufWatch[T any] struct {
	c     *protobufCodec[T]
	s     *pbStream
	known known.Lookup[T] // see NewWatchDecoderKnown
	// skip is the rest of an oversized frame, discarded before the next one.
	skip int64
	// broken is the error that ended the stream, returned again by Next.
	broken error
}

func (w *protobufWatch[T]) Next() (Event[T], error) {
	if w.broken != nil {
		return Event[T]{}, w.broken
	}
	ev, err := w.next()
	if err != nil {
		var de *DecodeError
		switch {
		case w.s.readErr() != nil:
			err = w.s.readErr()
		case errors.As(err, &de) && de.Recoverable:
			return Event[T]{}, err
		}
		w.broken = err
	}
	return ev, err
}

func (w *protobufWatch[T]) next() (Event[T], error) {
	s := w.s
	if w.skip > 0 {
		n := w.skip
		w.skip = 0
		if err := s.discard(n); err != nil {
			return Event[T]{}, &DecodeError{Offset: s.off, Err: err}
		}
	}
	hdr, err := s.r.Peek(4)
	if len(hdr) < 4 {
		if err == io.EOF && len(hdr) == 0 {
			return Event[T]{}, io.EOF
		}
		return Event[T]{}, &DecodeError{Offset: s.off + int64(len(hdr)), Err: pbEOFIsUnexpected(err)}
	}
	n := int64(binary.BigEndian.Uint32(hdr))
	s.r.Discard(4) //nolint:errcheck // Peek returned 4 bytes
	s.off += 4
	start := s.off
	if n > pbMaxObjectBytes {
		// Like client-go's streaming decoder (ErrObjectTooLarge), skip the
		// frame and go on with the next one.
		w.skip = n
		return Event[T]{}, &DecodeError{Recoverable: true, Offset: start, Err: errPBFrameTooLarge}
	}
	frame, err := s.next(int(n))
	if err != nil {
		return Event[T]{}, &DecodeError{Offset: s.off, Err: err}
	}
	ev, pos, err := w.c.decodeEvent(frame, w.known)
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			de.Recoverable, de.Offset = true, start+de.Offset
			return Event[T]{}, de
		}
		return Event[T]{}, &DecodeError{Recoverable: true, Offset: start + int64(pos), Err: err}
	}
	return ev, nil
}

// decodeEvent decodes the WatchEvent of one frame. On error pos is the
// offset in frame where decoding failed. The object of an ADDED or MODIFIED
// event that l knows is l's (see NewWatchDecoderKnown).
func (c *protobufCodec[T]) decodeEvent(frame []byte, l known.Lookup[T]) (_ Event[T], pos int, _ error) {
	if len(frame) == 0 {
		return Event[T]{}, 0, errPBEmptyFrame
	}
	// WatchEvent: type (1, string), object (2, RawExtension: raw is field 1).
	// A field that appears twice replaces (type, raw) or merges (object) as
	// metav1.WatchEvent.Unmarshal does.
	var typ, raw []byte
	p := pbBytes{b: frame}
	for !p.done() {
		field, wt, err := p.tag()
		if err != nil {
			return Event[T]{}, p.i, err
		}
		if field != 1 && field != 2 {
			if err := p.skip(wt); err != nil {
				return Event[T]{}, p.i, err
			}
			continue
		}
		if wt != wireBytes {
			return Event[T]{}, p.i, wrongWireType("WatchEvent", field, wt)
		}
		v, err := p.bytes()
		if err != nil {
			return Event[T]{}, p.i, err
		}
		if field == 1 {
			typ = v
			continue
		}
		ext := pbBytes{b: v}
		for !ext.done() {
			f, wt, err := ext.tag()
			if err != nil {
				return Event[T]{}, p.i, err
			}
			if f != 1 {
				if err := ext.skip(wt); err != nil {
					return Event[T]{}, p.i, err
				}
				continue
			}
			if wt != wireBytes {
				return Event[T]{}, p.i, wrongWireType("RawExtension", f, wt)
			}
			if raw, err = ext.bytes(); err != nil {
				return Event[T]{}, p.i, err
			}
		}
	}
	var et watch.EventType
	switch string(typ) { // no allocation: the compiler compares the bytes
	case string(watch.Added):
		et = watch.Added
	case string(watch.Modified):
		et = watch.Modified
	case string(watch.Deleted):
		et = watch.Deleted
	case string(watch.Bookmark):
		et = watch.Bookmark
	case string(watch.Error):
		et = watch.Error
	default:
		return Event[T]{}, 0, errPBEventType
	}
	// raw is a window of frame: its offset in it, for error messages.
	objPos := cap(frame) - cap(raw)
	if raw == nil {
		objPos = 0
	}
	if !bytes.HasPrefix(raw, protobufMagic) || len(raw) == len(protobufMagic) {
		// apimachinery: "empty data", "does not appear to be a protobuf
		// message", "empty body".
		return Event[T]{}, objPos, errPBNoObject
	}
	var u pbUnknown
	if err := u.unmarshal(raw[len(protobufMagic):]); err != nil {
		return Event[T]{}, objPos, fmt.Errorf("watch event object envelope: %w", err)
	}
	// client-go decodes the object with no default kind, so both must be
	// set; then it makes an object of whatever kind the envelope names.
	if et == watch.Error {
		// Status is an unversioned kind: the scheme makes one for any
		// apiVersion with a version (the API server writes "v1").
		if _, v, ok := pbParseGroupVersion(u.apiVersion); !ok || len(v) == 0 || string(u.kind) != "Status" {
			return Event[T]{}, objPos, fmt.Errorf("ERROR watch event object is %s, not a Status", pbDescribeType(u.pbTypeMeta))
		}
		st := &metav1.Status{}
		if err := st.Unmarshal(u.raw); err != nil {
			return Event[T]{}, objPos, fmt.Errorf("ERROR watch event status: %w", err)
		}
		return Event[T]{Type: et, Status: st}, 0, nil
	}
	if !pbCheckObjectType(u.pbTypeMeta, c.group, c.version, c.kind) {
		key, rv := pbObjectKey(u.raw)
		return Event[T]{}, 0, &DecodeError{Key: key, ResourceVersion: rv, Offset: int64(objPos),
			Err: fmt.Errorf("%s watch event object is %s, not %q %q", et, pbDescribeType(u.pbTypeMeta), c.apiVersion, c.kind)}
	}
	if et == watch.Added || et == watch.Modified {
		if t, ok := c.lookup(l, u.raw); ok {
			return Event[T]{Type: et, Object: t}, 0, nil
		}
	}
	t := c.newT()
	if err := c.unmarshal(t, u.raw); err != nil {
		key, rv := pbObjectKey(u.raw)
		return Event[T]{}, 0, &DecodeError{Key: key, ResourceVersion: rv, Offset: int64(objPos),
			Err: fmt.Errorf("%s watch event object: %w", et, contentFree(err))}
	}
	return Event[T]{Type: et, Object: t}, 0, nil
}
