package reflector

import (
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// Metrics observes a Reflector (Options.Metrics). The Reflector calls its
// methods from its Run goroutine, synchronously: they must be cheap and must
// not block (count, set an atomic; never do I/O). A nil Metrics costs one
// branch per call site. Embed NoMetrics to implement only some methods. A
// Metrics that also implements RejectMetrics counts refused events and lists.
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
	// content, with why; failed attempts are retried without another call
	// (ListDone reports them).
	Relist(cause RelistCause)
	// Event is called for every event a watch delivers, with its type
	// (ERROR and BOOKMARK included); during a WatchList's initial stream,
	// for its ADDED, MODIFIED and DELETED events only.
	Event(t watch.EventType)
	// Synced is called whenever LastSyncResourceVersion advances (a list,
	// an event, a bookmark), with the new resourceVersion.
	Synced(resourceVersion string)
}

// RelistCause is why a Reflector relists.
type RelistCause uint8

// The causes of a relist.
const (
	// RelistInitial is the first sync of Run.
	RelistInitial RelistCause = iota + 1
	// RelistExpired follows a 410 (Expired, Gone) on the watch: the
	// resourceVersion was compacted.
	RelistExpired
	// RelistRejected follows a 400 or 422 on the watch: the server rejects
	// the resourceVersion.
	RelistRejected
	// RelistUndecodable follows watches that kept ending in an event the
	// Reflector refused (undecodable, or any other of the package doc's
	// "Hostile servers") without progress.
	RelistUndecodable
	// RelistRequested follows a RelistTrigger's Fire (Options.Relist): the
	// ListOptions changed.
	RelistRequested
)

// String is the cause's label: "initial", "expired", "rejected",
// "undecodable" or "requested".
func (c RelistCause) String() string {
	switch c {
	case RelistInitial:
		return "initial"
	case RelistExpired:
		return "expired"
	case RelistRejected:
		return "rejected"
	case RelistUndecodable:
		return "undecodable"
	case RelistRequested:
		return "requested"
	}
	return "unknown"
}

// NoMetrics implements Metrics with methods that do nothing, to embed.
type NoMetrics struct{}

func (NoMetrics) ListDone(time.Duration, error)  {}
func (NoMetrics) WatchStarted(error)             {}
func (NoMetrics) WatchDone(time.Duration, error) {}
func (NoMetrics) Relist(RelistCause)             {}
func (NoMetrics) Event(watch.EventType)          {}
func (NoMetrics) Synced(string)                  {}
func (NoMetrics) Rejected(error)                 {}

// RejectMetrics is implemented by a Metrics (Options.Metrics) that counts
// what the Reflector refused to apply (see the package doc, "Hostile
// servers"). NoMetrics implements it.
type RejectMetrics interface {
	// Rejected is called, from the Run goroutine, for every watch event
	// not applied and every LIST or WatchList initial stream not used
	// because of its content (not for failed requests), with the error
	// reported for it (wrapping ErrMalformedEvent, ErrInvalidObject,
	// ErrInvalidResourceVersion or ErrStaleResourceVersion).
	Rejected(err error)
}
