package reflector

import (
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// Metrics observes a Reflector (Options.Metrics). The Reflector calls its
// methods from its Run goroutine, synchronously: they must be cheap and must
// not block (count, set an atomic; never do I/O). A nil Metrics costs one
// branch per call site.
type Metrics interface {
	// ListDone is called after each LIST of the whole collection (all its
	// pages) with how long it took and its error (nil on success, when the
	// Sink has been replaced).
	ListDone(d time.Duration, err error)
	// WatchStarted is called when a WATCH request (a WatchList's included)
	// is answered: err is nil if the watch opened.
	WatchStarted(err error)
	// WatchDone is called when an open watch ends (the server closed it,
	// it failed with err, or Run's ctx ended), with how long it was open.
	WatchDone(d time.Duration, err error)
	// Relist is called when the Reflector decides to (re)build the Sink's
	// content, with why: "initial" (the first sync of Run), "expired" (a
	// 410 on the watch: its resourceVersion was compacted), "rejected" (a
	// 400 or 422 on the watch: the server rejects its resourceVersion),
	// "undecodable" (watches kept ending in events the Reflector refused,
	// see the package doc, "Hostile servers") or "requested" (Options.Relist
	// fired: the ListOptions changed). Failed attempts are retried without
	// another call (ListDone reports them).
	Relist(cause string)
	// Event is called for every event a watch delivers, with its type
	// (ERROR and BOOKMARK included); during a WatchList's initial stream,
	// for its ADDED, MODIFIED and DELETED events only.
	Event(t watch.EventType)
	// Synced is called whenever LastSyncResourceVersion advances (a list,
	// an event, a bookmark), with the new resourceVersion.
	Synced(resourceVersion string)
	// Rejected is called for every watch event not applied and every LIST
	// or WatchList initial stream not used because of its content (not for
	// failed requests), with the error reported for it (wrapping
	// ErrMalformedEvent, ErrInvalidObject, ErrInvalidResourceVersion or
	// ErrStaleResourceVersion; see the package doc, "Hostile servers").
	Rejected(err error)
}

// relistCause is why a Reflector relists (Metrics.Relist).
type relistCause uint8

const (
	relistInitial relistCause = iota + 1
	relistExpired
	relistRejected
	relistUndecodable
	relistRequested
)

// String is the cause's label, as Metrics.Relist documents it.
func (c relistCause) String() string {
	switch c {
	case relistInitial:
		return "initial"
	case relistExpired:
		return "expired"
	case relistRejected:
		return "rejected"
	case relistUndecodable:
		return "undecodable"
	case relistRequested:
		return "requested"
	}
	return "unknown"
}
