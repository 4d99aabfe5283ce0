package reflector

import (
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrMalformedEvent is wrapped by the error reported for a watch event the
// Reflector cannot use (undecodable, an object that is not T, a BOOKMARK
// without metadata, an unknown event type). The event is not applied and
// ends the watch (see the package doc, "Hostile servers").
var ErrMalformedEvent = errors.New("malformed watch event")

// ErrInvalidObject is wrapped by the error reported for a listed or watched
// object that cannot be stored under a key of its own: it has no
// metadata.name (or one with a "/"), or a namespace that contradicts
// the resource's scope (which the factory's informers know from the type). It is not stored: the watch event ends the watch, the LIST
// (or WatchList) fails and is retried (see the package doc, "Hostile
// servers").
var ErrInvalidObject = errors.New("object without a valid key")

// ErrStaleResourceVersion is wrapped by the error reported for a watch event
// whose resourceVersion is not newer than the one the watch resumed from (or
// than an event it delivered before), and for a bookmark older than that: an
// API server never sends one, so the stream is not to be trusted. The event
// is not applied and ends the watch (see the package doc, "Hostile servers").
var ErrStaleResourceVersion = errors.New("resourceVersion older than the watch's")

// ErrInitialEventsTimeout is wrapped by the error reported when a WatchList's
// initial stream stalls before its initial-events-end bookmark: no event or
// bookmark for Options.WatchListTimeout (the Reflector then LISTs for this
// sync, and tries WatchList again at the next), and by the one reported
// while it waits, after 10s without progress.
var ErrInitialEventsTimeout = errors.New("no initial-events-end bookmark")

// ErrInvalidResourceVersion is wrapped by the error reported for a
// resourceVersion that is not a decimal uint64, as every API server's is. An
// event or bookmark carrying one is not applied and ends the watch; a LIST
// at one, or with an item carrying one, fails and is retried (see the
// package doc, "Hostile servers").
var ErrInvalidResourceVersion = errors.New("invalid resourceVersion")

// MalformedObject is the object of a watch event that a ListerWatcher read
// but could not decode into T (see wire.DecodeError). The Reflector reports
// Err, wrapped in ErrMalformedEvent, stops that watch and, after a backoff
// step, watches again from the last resourceVersion it applied, so the event
// is read again (garbage on the wire is usually gone the second time)
// instead of missed; after three such watches in a row without progress it
// relists (see the package doc, "Hostile servers"). A ListerWatcher whose
// stream lost its framing sends one such event and then closes the watch.
// It is public for ListerWatchers written outside the runtime, which report
// an undecodable event the same way.
type MalformedObject struct {
	Err error
}

// GetObjectKind implements runtime.Object; a MalformedObject has no kind.
func (m *MalformedObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object.
func (m *MalformedObject) DeepCopyObject() runtime.Object { c := *m; return &c }

// errShortWatch is the wait reason for a watch the server closed within
// shortWatch of its start, whatever it delivered: the server is likely
// unhealthy, so the Reflector backs off before watching again.
var errShortWatch = errors.New("watch closed within a second of its start")
