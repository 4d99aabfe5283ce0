package informer

import (
	"context"
	"time"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/core"
	"github.com/informer-gen/informer-gen/runtime/internal/redact"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Handler receives typed notifications. Tombstones are unwrapped: OnDelete gets
// the last known object and whether its final state is unknown.
//
// The informer calls each registered Handler from one goroutine of its own,
// in the order the changes arrived, so a Handler needs no locking of its own
// for its own state. Objects are shared with the cache: read-only.
type Handler[T any] interface {
	// OnAdd is called for an object new to this handler. isInInitialList is
	// true while the informer delivers its initial list (and for the
	// synthetic adds a handler registered late receives for what is cached).
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate is called for a change of an object the handler has seen, a
	// relist that found it again (oldObj == newObj, the same pointer, when
	// it had not changed: see the reflector package doc), and a resync
	// (then oldObj == newObj).
	OnUpdate(oldObj, newObj T)
	// OnDelete is called when an object the handler has seen is deleted.
	// finalStateUnknown is true when the deletion was missed while the watch
	// was down and noticed on relist: obj is then the last state this process
	// knew, not the state at deletion.
	OnDelete(obj T, finalStateUnknown bool)
}

// HandlerFuncs adapts plain funcs to Handler; nil funcs are skipped.
type HandlerFuncs[T any] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj T, finalStateUnknown bool)
}

// OnAdd calls AddFunc if it is set.
func (h HandlerFuncs[T]) OnAdd(obj T, initial bool) {
	if h.AddFunc != nil {
		h.AddFunc(obj, initial)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (h HandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if h.UpdateFunc != nil {
		h.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (h HandlerFuncs[T]) OnDelete(obj T, finalStateUnknown bool) {
	if h.DeleteFunc != nil {
		h.DeleteFunc(obj, finalStateUnknown)
	}
}

// Options configures New and NewMultiNamespace.
type Options[T store.Object[T]] struct {
	// Indexers are the cache's indexes from the start, beside the built-in
	// namespace index (more can be added later with AddIndexers).
	Indexers store.Indexers[T]
	// Transform runs on every object before it is stored (before it is
	// queued, in fact), then the default memory transform: managedFields
	// are dropped unless KeepManagedFields, and strings interned if
	// InternStrings. It may modify the object in place: it gets freshly
	// decoded objects nobody else holds, with one exception: a codec made
	// by runtime/wire's NewProtobuf shares maps and sub-objects (pointed-to
	// structs, slices) between objects whose bytes for them were the same
	// (its doc), so with one replace a map, slice or pointer rather than
	// write into it. (The factory's informers with a Transform get maps and
	// sub-objects of their own.)
	Transform func(T) (T, error)
	// KeepManagedFields keeps metadata.managedFields in cached objects; by
	// default they are dropped (server-side apply bookkeeping that
	// controllers almost never read, and a noticeable share of every cached
	// object: docs/performance.md).
	KeepManagedFields bool
	// InternStrings turns on store.InternStrings in the default transform:
	// objects with equal labels share one labels map, and namespaces, owner
	// kinds, finalizers and annotation keys share their strings. It saves
	// memory where labels repeat across objects (as a ReplicaSet's pods'
	// do) and costs CPU per watch event on the Reflector's goroutine, about
	// as much again as the rest of the informer's work per event
	// (docs/performance.md, "interning is opt-in", has the figures). Cached objects then
	// share label maps, so a write to a cached object's labels (forbidden
	// anyway: cached objects are read-only) would change every object with
	// the same labels.
	InternStrings bool
	// ResyncPeriod is the default resync of handlers added without their own.
	ResyncPeriod time.Duration
	// Reflector configures the Reflector. Its Name names the informer in
	// logs and errors. (Resync is per handler, HandlerOptions.ResyncPeriod,
	// done by the informer from its cache.)
	Reflector reflector.Options
	// HandlerPanic, when set, is called (after logging) with the value of
	// every panic a handler raises, from that handler's goroutine. The event
	// is dropped for that handler and delivery goes on with the next one.
	HandlerPanic func(ctx context.Context, p HandlerPanicInfo)
	// Metrics, when not nil, observes every handler's deliveries and, if
	// its Process returns an observer, the pop loop; it turns on
	// Registration.Backlog. Its Reflector counterpart is Reflector.Metrics.
	Metrics Metrics
}

// core resolves opts into the untyped core's options: the one conversion
// from Options to core.Options, one line per field, done once by New and
// NewMultiNamespace (and so for the factory's informers, which it builds
// through them). Nothing converts back: the factory resolves its settings
// into an Options[T] before its typed edit. TestOptionsConversion sets every
// field of Options in turn and checks that it reaches core.Options.
func (opts Options[T]) core() core.Options {
	out := core.Options{
		Indexers:          cache.IndexersOf(opts.Indexers),
		KeepManagedFields: opts.KeepManagedFields,
		InternStrings:     opts.InternStrings,
		ResyncPeriod:      opts.ResyncPeriod,
		Reflector:         opts.Reflector,
	}
	if fn := opts.Transform; fn != nil {
		out.Transform = func(o cache.Obj) (cache.Obj, error) {
			t, err := cache.As[T](o, "transform")
			if err != nil {
				return o, err
			}
			out, err := fn(t)
			return out, redact.Withhold(err) // its text may quote the object
		}
	}
	if fn := opts.HandlerPanic; fn != nil {
		out.HandlerPanic = func(ctx context.Context, p core.HandlerPanicInfo) {
			fn(ctx, HandlerPanicInfo{Registration: (*Registration)(p.Registration), Event: p.Event, Key: p.Key, Value: p.Value})
		}
	}
	if opts.Metrics != nil {
		out.Metrics = coreMetrics{opts.Metrics}
	}
	return out
}

// Metrics observes an informer (Options.Metrics): each handler's
// deliveries and, if it asks to, the pop loop. Both of its methods return
// an observer or nil for none; an observer is called synchronously, from
// the goroutine it observes, so it must be cheap and must not block
// (count, set an atomic; never do I/O).
type Metrics interface {
	// Handler is called by AddHandler with the new registration. The func
	// it returns observes that handler: it is called from the handler's
	// goroutine after each call of it, with the event ("add", "update" —
	// resyncs included — or "delete").
	Handler(reg *Registration) func(event string)
	// Process is called once, when the informer is built. The func it
	// returns observes the informer's pop loop, the one goroutine that
	// applies what the Reflector received to the cache and queues the
	// handlers' notifications (handlers run on goroutines of their own): it
	// is called after each batch of changes applied (a watch event or a run
	// of them, a whole LIST, a bookmark) with how long applying the batch
	// took, how many changes were still queued behind it (received from the
	// server, not yet in the cache), and the resourceVersion the cache
	// reached (LastStoreSyncResourceVersion). These are what client-go's
	// informer_queued_items, informer_processing_latency_seconds and
	// informer_store_resource_version report; integrations/prometheus
	// exports them under those names. Nil costs the pop loop nothing (it
	// then reads no clock).
	Process() func(d time.Duration, queued int, resourceVersion string)
}

// coreMetrics is a Metrics for the core.
type coreMetrics struct{ m Metrics }

func (c coreMetrics) Handler(reg *core.Registration) func(string) {
	return c.m.Handler((*Registration)(reg))
}

func (c coreMetrics) Process() func(time.Duration, int, string) { return c.m.Process() }

// HandlerPanicInfo describes a recovered handler panic.
type HandlerPanicInfo struct {
	// Registration is the handler that panicked.
	Registration *Registration
	// Event is "add", "update" or "delete".
	Event string
	// Key is the cache key of the object being delivered.
	Key string
	// Value is what the handler passed to panic.
	Value any
}

// HandlerOptions configures one handler registration.
type HandlerOptions struct {
	// ResyncPeriod, when positive, delivers OnUpdate(obj, obj) for every cached
	// object at that period to this handler. 0 means the informer's
	// Options.ResyncPeriod; negative means never. Periods below one second
	// are raised to one second (as in client-go: a resync lists the whole
	// cache).
	ResyncPeriod time.Duration
}
