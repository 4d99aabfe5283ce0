package reflector

import (
	"context"
	"reflect"
	"time"

	"github.com/informer-gen/informer-gen/runtime/internal/scope"
	"github.com/informer-gen/informer-gen/runtime/internal/settings"
)

// Options configures New; informers and the factory take it as
// informer.Options.Reflector and factory.Options.Reflector. The zero value
// is usable.
type Options struct {
	// Name appears in logs and errors, e.g. "foos.samplecontroller.example.com".
	Name string
	// PageSize, when positive, pages every LIST (limit=PageSize, each page
	// at the first page's resourceVersion); 0 lists in one request. Both
	// are consistent reads (resourceVersion ""), which API servers with
	// ConsistentListFromCache (Kubernetes 1.31+) answer from the watch
	// cache; set a PageSize for an older server, which reads etcd for them.
	PageSize int64
	// WatchList selects streaming initial lists: nil tries it and falls back to
	// list+watch when the server refuses; false never tries it, and neither
	// does a ListerWatcher whose IsWatchListSemanticsUnSupported method
	// returns true (client-go's fake clientsets; see listwatch.Funcs).
	WatchList *bool
	// WatchListTimeout bounds how long a WatchList's initial stream may go
	// without progress (an event or a bookmark) before its
	// initial-events-end bookmark: the wait counts from the last event or
	// bookmark (from the stream's opening before the first), not from the
	// start, so a stream of a million objects that takes ten minutes but
	// keeps moving is never given up. 0 means one minute; negative means no
	// bound but the watch's own timeout (client-go's behaviour; the
	// Reflector asks for [30m, 60m) on a WatchList, since a server ends a
	// watch at its timeout, initial events or not). A stream
	// idle for the bound has stalled: it is stopped, reported
	// (ErrInitialEventsTimeout: LastError, WatchErrorHandler, the log, and
	// Metrics.WatchDone with that error) and this sync LISTs instead; the
	// next sync (a relist) tries WatchList again. The bound used to count
	// from the stream's start, and a stream that reached it gave WatchList
	// up for the Reflector's lifetime; a value chosen for that now allows
	// a longer stream, never a shorter one. A stream idle for 10s is
	// reported in LastError before the bound, so a stuck WaitForCacheSync
	// names it; its next event or bookmark clears that report.
	WatchListTimeout time.Duration
	// WatchErrorHandler is called with every list/watch error (after logging),
	// from the Run goroutine: it must not block for long.
	WatchErrorHandler func(ctx context.Context, err error)
	// InitialBackoff and MaxBackoff bound the wait after a failed list or
	// watch (or a watch that ended within a second of its start); 0 means
	// 500ms and 2s. The n-th failure in a row waits a random duration in
	// [b/2, b] with b = min(InitialBackoff·2ⁿ⁻¹, MaxBackoff); a watch that
	// stayed open a second and did not end in a refused event starts again
	// from InitialBackoff. An event or a LIST the Reflector refuses counts
	// as a failure (see the package doc, "Hostile servers"). The request
	// after the wait also waits for its turn of the request budget (see the
	// package doc: one per informer, shared by its Reflectors); with a
	// budget of interval I shared by n Reflectors, each one's step is
	// capped at max(I, MaxBackoff − (n−1)·I), so that no wait exceeds
	// max(MaxBackoff, n·I).
	InitialBackoff, MaxBackoff time.Duration
	// Metrics, when not nil, observes lists, watches, relists, events and
	// what the Reflector refuses (see Metrics).
	Metrics Metrics

	// Relist, when not nil, makes the Reflector relist whenever it fires:
	// for a ListerWatcher whose ListOptions change while it runs (a
	// shard's selector: Shard.RelistTrigger). ArmedAt returns a channel
	// that is closed at the next firing and how many times it has fired (a
	// nil channel never fires); a sync that begins sees that generation and
	// relists once the channel closes. After each sync it applies, the
	// Reflector hands a Sink that takes one (the informer's queue) a mark
	// of the generation that sync began at, for the handlers. Its dynamic
	// type must be comparable (a pointer, as Shard.RelistTrigger's). Nil
	// costs nothing.
	Relist interface {
		ArmedAt() (fired <-chan struct{}, gen uint64)
	}
	// ObjectType, when not nil, is the Go type every listed or watched
	// object must have; a watch event carrying another is malformed
	// (ErrMalformedEvent). It is for a Reflector whose T is an interface
	// (cache.Obj, as the informer's untyped core uses); with a concrete T,
	// T itself is the check.
	ObjectType reflect.Type

	// runtime are the settings only the runtime sets (the type's scope, the
	// informer's request budget): settings.WithReflector.
	runtime settings.Reflector
}

func init() {
	settings.WithReflector = func(opts any, r settings.Reflector) any {
		o := opts.(Options)
		if r.Scope != scope.Unknown {
			o.runtime.Scope = r.Scope
		}
		if r.Budget != nil {
			o.runtime.Budget = r.Budget
		}
		return o
	}
}
