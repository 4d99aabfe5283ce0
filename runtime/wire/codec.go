package wire

import (
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Codec decodes the LIST and WATCH response bodies of one resource straight
// into T. A Codec is safe for concurrent use; a WatchDecoder it returns is used
// by one goroutine.
type Codec[T any] interface {
	// MediaType is the media type to request in the Accept header of LIST
	// and WATCH requests, e.g. "application/json".
	MediaType() string
	// DecodeList reads one LIST response body to its end and calls each with
	// every item, in order, as soon as the item is decoded, so that a caller
	// never holds a decoded list next to its items, and returns what the
	// list says besides its items (resourceVersion, continue,
	// remainingItemCount). An error from each stops decoding and is
	// returned as is; a malformed body gives a *DecodeError.
	DecodeList(body io.Reader, each func(T) error) (metav1.ListMeta, error)
	// NewWatchDecoder returns a decoder for the events of one WATCH response
	// body.
	NewWatchDecoder(body io.Reader) WatchDecoder[T]
}

// Event is one decoded watch event.
type Event[T any] struct {
	Type watch.EventType
	// Object is set for ADDED, MODIFIED, DELETED and BOOKMARK events.
	Object T
	// Status is set for ERROR events.
	Status *metav1.Status
}

// WatchDecoder reads the events of one WATCH response body.
type WatchDecoder[T any] interface {
	// Next decodes the next event. It returns io.EOF when the stream ended
	// cleanly between two events, and a *DecodeError for anything the
	// decoder could not turn into an Event; after a DecodeError with
	// Recoverable set the next call reads the following event, after any
	// other error the stream is unusable.
	Next() (Event[T], error)
}

// DecodeError describes bytes a Codec could not decode. Its message names the
// object's key and resourceVersion when they could be read, never the
// object's contents (it could be a Secret): the rule is in redact.go and
// docs/guide.md ("What reaches a log or an error").
type DecodeError struct {
	// Recoverable is true when the malformed event's frame was read whole,
	// so the stream can go on with the next event; false when the stream lost
	// its framing (truncated or garbage bytes).
	Recoverable bool
	// Key ("namespace/name" or "name") and ResourceVersion of the object, as
	// far as they could be read; empty otherwise.
	Key, ResourceVersion string
	// Offset is the byte offset in the body where decoding failed.
	Offset int64
	Err    error
}

func (e *DecodeError) Error() string {
	msg := "decode"
	if e.Key != "" {
		msg += " " + e.Key
	}
	if e.ResourceVersion != "" {
		msg += " (resourceVersion " + e.ResourceVersion + ")"
	}
	// contentFree once more: the codecs apply it where they read a value,
	// this covers an error that reaches Err some other way (redact.go).
	return fmt.Sprintf("%s at byte %d: %v", msg, e.Offset, contentFree(e.Err))
}

func (e *DecodeError) Unwrap() error { return e.Err }
