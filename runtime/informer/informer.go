package informer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/fifo"
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
	// relist that found it again, and a resync (then oldObj == newObj).
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

// Options configures New.
type Options[T store.Object[T]] struct {
	// Indexers are the cache's indexes from the start, beside the built-in
	// namespace index (more can be added later with AddIndexers).
	Indexers store.Indexers[T]
	// Transform runs on every object before it is stored (before it is
	// queued, in fact), then the default memory transform: managedFields
	// are dropped unless KeepManagedFields, and strings interned if
	// InternStrings. It may modify the object in place: it gets freshly
	// decoded objects nobody else holds.
	Transform func(T) (T, error)
	// KeepManagedFields keeps metadata.managedFields in cached objects; by
	// default they are dropped (server-side apply bookkeeping that
	// controllers almost never read: about 9% of a cached pod).
	KeepManagedFields bool
	// InternStrings turns on store.InternStrings in the default transform:
	// objects with equal labels share one labels map, and namespaces, owner
	// kinds, finalizers and annotation keys share their strings. It saves
	// about 12% of a cached pod whose labels repeat across pods (as those of
	// a ReplicaSet's pods do) and costs about 1 µs of CPU per watch event on
	// the Reflector's goroutine, about as much again as the rest of the
	// informer's work per event (docs/performance.md). Cached objects then
	// share label maps, so a write to a cached object's labels (forbidden
	// anyway: cached objects are read-only) would change every object with
	// the same labels.
	InternStrings bool
	// ResyncPeriod is the default resync of handlers added without their own.
	ResyncPeriod time.Duration
	// Reflector configures the Reflector. Its ResyncPeriod is ignored:
	// resync is per handler (HandlerOptions.ResyncPeriod) and done by the
	// informer from its cache, not through the FIFO. Its Name names the
	// informer in logs and errors.
	Reflector reflector.Options
	// HandlerPanic, when set, is called (after logging) with the value of
	// every panic a handler raises, from that handler's goroutine. The event
	// is dropped for that handler and delivery goes on with the next one.
	HandlerPanic func(ctx context.Context, p HandlerPanicInfo)
	// Metrics, when not nil, observes every handler's deliveries and turns
	// on Registration.Backlog. Its Reflector counterpart is
	// Reflector.Metrics.
	Metrics Metrics
}

// Metrics observes an informer's handlers (Options.Metrics).
type Metrics interface {
	// Handler is called by AddHandler with the new registration; the
	// HandlerMetrics it returns (nil for none) observes that handler.
	Handler(reg *Registration) HandlerMetrics
}

// HandlerMetrics observes one handler. Delivered is called from the
// handler's goroutine after each call of it, with the event ("add",
// "update" — resyncs included — or "delete"): it must be cheap and must not
// block.
type HandlerMetrics interface {
	Delivered(event string)
}

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
	// Options.ResyncPeriod; negative means never. Periods below MinResyncPeriod
	// are raised to it.
	ResyncPeriod time.Duration
}

// MinResyncPeriod is the smallest resync period a handler gets (as in
// client-go): a resync lists the whole cache.
const MinResyncPeriod = time.Second

// Informer is a shared index informer: it runs a Reflector into a DeltaFIFO,
// applies what it pops to the Indexer, and fans each change out to every
// registered Handler.
//
// All methods are safe for concurrent use. Run runs it once.
type Informer[T store.Object[T]] struct {
	name    string
	writer  *store.Writer[T]
	indexer *store.Indexer[T]
	fifo    *fifo.FIFO[T]
	// refls are the Reflectors feeding fifo: one, or one per namespace
	// (NewMultiNamespace), in the order of namespaces.
	refls         []*reflector.Reflector[T]
	namespaces    []string // nil unless NewMultiNamespace
	defaultResync time.Duration
	onPanic       func(context.Context, HandlerPanicInfo)
	metrics       Metrics
	running       atomic.Bool

	// mu serializes the pop loop's apply-and-dispatch of each batch with
	// AddHandler, RemoveHandler and handler resyncs, so a handler's view is
	// always the cache's view at some point of the event stream.
	mu         sync.Mutex
	state      runState
	runCtx     context.Context
	handlers   []*listener[T]
	nextID     int
	syncedSent bool // the informer synced and handlers got their marker
	hwg        sync.WaitGroup
	notes      []note[T]   // pop loop scratch, reused
	logger     klog.Logger // Run's logger, for the pop loop

	// indexLog is Run's logger for index funcs that fail (they run in
	// store writes from the pop loop and in AddIndexers calls), nil before
	// Run.
	indexLog atomic.Pointer[klog.Logger]
}

type runState uint8

const (
	stateNew runState = iota
	stateRunning
	stateStopped
)

// New returns an informer over lw. It starts nothing: handlers and indexers
// may be added before Run, and Indexer() is usable (empty) at once.
func New[T store.Object[T]](lw reflector.ListerWatcher[T], opts Options[T]) *Informer[T] {
	i := newInformer(opts, nil)
	i.refls = []*reflector.Reflector[T]{reflector.New(lw, reflector.Sink[T](i.fifo), i.reflectorOptions(opts, ""))}
	return i
}

// newInformer builds everything but the Reflectors; namespaces partition the
// FIFO (nil: one unpartitioned source).
func newInformer[T store.Object[T]](opts Options[T], namespaces []string) *Informer[T] {
	name := opts.Reflector.Name
	if name == "" {
		var zero T
		name = fmt.Sprintf("%T", zero)
	}
	i := &Informer[T]{
		name:          name,
		namespaces:    namespaces,
		defaultResync: opts.ResyncPeriod,
		onPanic:       opts.HandlerPanic,
		metrics:       opts.Metrics,
	}
	w := store.New(store.Options[T]{Indexers: opts.Indexers, OnIndexError: i.indexError})
	i.writer, i.indexer = w, w.Indexer()
	i.fifo = fifo.New(fifo.Options[T]{
		Known:      i.indexer,
		Transform:  transform(&opts),
		Name:       name,
		Namespaces: namespaces,
	})
	return i
}

// reflectorOptions are opts.Reflector for the Reflector of namespace ns ("" =
// the only one).
func (i *Informer[T]) reflectorOptions(opts Options[T], ns string) reflector.Options {
	ropts := opts.Reflector
	ropts.Name = i.reflectorName(ns)
	ropts.ResyncPeriod = 0 // resync is per handler, from the cache
	return ropts
}

// reflectorName is the name of the Reflector of namespace ns ("" = the only
// one).
func (i *Informer[T]) reflectorName(ns string) string {
	if ns == "" {
		return i.name
	}
	return i.name + " namespace=" + ns
}

// transform composes the user's transform with the memory transform opts
// ask for: drop managedFields, intern strings (store.Compact does both).
func transform[T store.Object[T]](opts *Options[T]) func(T) (T, error) {
	var compact func(T) T
	switch {
	case !opts.KeepManagedFields && opts.InternStrings:
		compact = store.Compact[T]
	case !opts.KeepManagedFields:
		compact = dropManagedFields[T]
	case opts.InternStrings:
		compact = store.InternStrings[T]
	}
	user := opts.Transform
	switch {
	case compact == nil:
		return user
	case user == nil:
		return func(obj T) (T, error) { return compact(obj), nil }
	}
	return func(obj T) (T, error) {
		obj, err := user(obj)
		if err != nil {
			return obj, err
		}
		return compact(obj), nil
	}
}

// indexError logs an index func's failure through Run's logger (from its
// ctx), or klog's default logger before Run. The key is the object's; its
// contents are never logged.
func (i *Informer[T]) indexError(index, key string, err error) {
	logger := klog.Background()
	if l := i.indexLog.Load(); l != nil {
		logger = *l
	}
	logger.Error(err, "index func failed; object not indexed", "index", index, "key", key)
}

func dropManagedFields[T store.Object[T]](obj T) T {
	obj.SetManagedFields(nil)
	return obj
}

// Name returns the informer's name (Options.Reflector.Name, or the Go type
// of T), used in logs and in WaitForCacheSync's errors.
func (i *Informer[T]) Name() string { return i.name }

// Run runs the informer until ctx ends and returns only after every
// goroutine it started has exited. A second call returns an error at once.
//
// Once ctx ends, delivery stops at once, whatever the handlers' backlog:
// after cancel has returned, no handler call starts; a call already in
// progress runs to its end; what was buffered for a handler and not yet
// delivered is dropped (so a handler may not have seen every change the cache
// applied, and a Registration that had not synced never will). Meanwhile the
// Reflector stops (its open watch is stopped) and the pop loop stops after
// the batch it is applying; changes still queued in the FIFO are dropped.
// Run then returns nil, as soon as the slowest handler call in progress
// returns: a handler that blocks forever keeps Run from returning.
func (i *Informer[T]) Run(ctx context.Context) error {
	if !i.running.CompareAndSwap(false, true) {
		return fmt.Errorf("informer %s: Run called twice", i.name)
	}
	ctx = reflector.LogContext(ctx, i.name)
	logger := klog.FromContext(ctx)
	i.indexLog.Store(&logger)
	logger.V(4).Info("informer starting")

	i.mu.Lock()
	i.state = stateRunning
	i.runCtx = ctx
	i.logger = logger
	for _, l := range i.handlers {
		i.startLocked(l)
	}
	i.mu.Unlock()

	popDone := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var rwg sync.WaitGroup
		for n, r := range i.refls {
			rctx := ctx
			if i.namespaces != nil {
				// The resource is named already; the namespace names this
				// Reflector.
				rctx = klog.NewContext(ctx, logger.WithValues("namespace", i.namespaces[n]))
				rctx = reflector.MarkLogged(rctx, i.reflectorName(i.namespaces[n]))
			}
			rwg.Go(func() {
				if err := r.Run(rctx); err != nil {
					logger.Error(err, "reflector stopped")
				}
			})
		}
		rwg.Wait()
		logger.V(4).Info("reflector stopped; closing the queue")
		i.fifo.Close()
	})
	wg.Go(func() {
		select {
		case <-i.fifo.Synced():
			i.markSynced(ctx)
		case <-popDone:
		}
	})

	i.popLoop(ctx)
	close(popDone)
	wg.Wait()

	logger.V(4).Info("queue stopped; stopping handlers")
	i.mu.Lock()
	i.state = stateStopped
	for _, l := range i.handlers {
		l.stop()
	}
	i.mu.Unlock()
	i.hwg.Wait()
	logger.V(4).Info("informer stopped")
	return nil
}

// popLoop pops until ctx ends or the FIFO is closed and empty.
func (i *Informer[T]) popLoop(ctx context.Context) {
	process := i.process
	for {
		err := i.fifo.Pop(ctx, process)
		if errors.Is(err, fifo.ErrClosed) || ctx.Err() != nil {
			return
		}
		if err != nil {
			klog.FromContext(ctx).Error(err, "processing a batch of changes")
		}
	}
}

// process applies b to the cache and queues the notifications for every
// handler, all under i.mu (see Informer.mu).
func (i *Informer[T]) process(b fifo.Batch[T]) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	notes := i.notes[:0]
	if len(b.Deltas) == 1 && !b.Atomic {
		notes = apply(writerOps[T]{i.writer}, b.Deltas[0], b.InitialList, notes)
	} else {
		i.writer.Batch(func(tx store.Tx[T]) {
			for _, d := range b.Deltas {
				notes = apply(tx, d, b.InitialList, notes)
			}
		})
	}
	if len(notes) > 0 {
		for _, l := range i.handlers {
			l.push(notes)
		}
	}
	if b.Atomic {
		i.logger.V(4).Info("relist applied", "deltas", len(b.Deltas), "notifications", len(notes), "resourceVersion", b.ResourceVersion)
	}
	clear(notes)
	if cap(notes) > shrinkAbove {
		notes = nil // give a relist's worth of memory back
	}
	i.notes = notes[:0]
	return nil
}

// ops is what apply needs of the cache: store.Tx, or the Writer outside a
// transaction.
type ops[T any] interface {
	Get(key string) (T, bool)
	Set(key string, obj T) (T, bool)
	Delete(key string) (T, bool)
}

type writerOps[T store.Object[T]] struct{ w *store.Writer[T] }

func (o writerOps[T]) Get(key string) (T, bool)        { return o.w.Indexer().Get(key) }
func (o writerOps[T]) Set(key string, obj T) (T, bool) { return o.w.Set(key, obj) }
func (o writerOps[T]) Delete(key string) (T, bool)     { return o.w.Delete(key) }

// apply applies d to the cache and appends the notification it makes.
func apply[T store.Object[T], O ops[T]](c O, d fifo.Delta[T], initial bool, notes []note[T]) []note[T] {
	switch d.Type {
	case fifo.Added, fifo.Updated, fifo.Replaced:
		old, existed := c.Set(d.Key, d.Object)
		if existed {
			return append(notes, note[T]{op: opUpdate, old: old, obj: d.Object})
		}
		return append(notes, note[T]{op: opAdd, obj: d.Object, flag: initial})
	case fifo.Deleted:
		// A delete of something the cache (hence every handler) never held
		// is not news to anyone.
		if _, existed := c.Delete(d.Key); existed {
			return append(notes, note[T]{op: opDelete, obj: d.Object, flag: d.FinalStateUnknown})
		}
	case fifo.Sync:
		// Only Reflector-driven resyncs produce these, and the informer turns
		// those off; deliver them as resyncs all the same.
		if cur, ok := c.Get(d.Key); ok {
			return append(notes, note[T]{op: opResync, old: cur, obj: cur})
		}
	}
	return notes
}

// markSynced sends every handler its "initial list delivered" marker, once.
func (i *Informer[T]) markSynced(ctx context.Context) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.syncedSent {
		return
	}
	i.syncedSent = true
	klog.FromContext(ctx).V(4).Info("informer synced", "objects", i.indexer.Len(), "resourceVersion", i.LastSyncResourceVersion())
	for _, l := range i.handlers {
		l.push1(note[T]{op: opSynced})
	}
}

func (i *Informer[T]) startLocked(l *listener[T]) {
	l.started = true
	ctx := i.runCtx
	i.hwg.Go(func() { l.run(ctx) })
}

// AddHandler registers h, before or while the informer runs:
// before Run, h gets everything from the start; after, h first gets a
// synthetic OnAdd(obj, true) for every cached object, then every later change
// (no gap, no duplicate: the cache snapshot and the event stream are cut at
// the same point). h runs on a goroutine of its own with an unbounded buffer,
// so a slow h never delays the informer or other handlers. It returns an
// error once Run is stopping (after ctx ended and the pop loop stopped,
// while the handlers stop) and after Run returned.
func (i *Informer[T]) AddHandler(h Handler[T], opts HandlerOptions) (*Registration, error) {
	if h == nil {
		return nil, fmt.Errorf("informer %s: AddHandler with a nil handler", i.name)
	}
	resync := opts.ResyncPeriod
	if resync == 0 {
		resync = i.defaultResync
	}
	if resync < 0 {
		resync = 0
	}
	if resync > 0 && resync < MinResyncPeriod {
		resync = MinResyncPeriod
	}

	i.mu.Lock()
	defer i.mu.Unlock()
	if i.state == stateStopped {
		return nil, fmt.Errorf("informer %s: handler not added: the informer has stopped", i.name)
	}
	i.nextID++
	reg := &Registration{
		owner:  i,
		name:   fmt.Sprintf("%s handler %d", i.name, i.nextID),
		synced: make(chan struct{}),
	}
	l := newListener(i, h, reg, resync)
	reg.backlog = l.backlog
	if i.metrics != nil {
		// Without a HandlerMetrics, a no-op one still turns tracking on.
		reg.tracked = true
		l.hm = i.metrics.Handler(reg)
		if l.hm == nil {
			l.hm = noHandlerMetrics{}
		}
	}
	i.handlers = append(slices.Clip(i.handlers), l)
	// Nobody else can reach l yet: fill its buffer directly.
	objs := i.indexer.List()
	l.buf = make([]note[T], 0, len(objs)+1)
	for _, o := range objs {
		l.buf = append(l.buf, note[T]{op: opAdd, obj: o, flag: true})
	}
	if i.syncedSent {
		l.buf = append(l.buf, note[T]{op: opSynced})
	}
	if i.state == stateRunning {
		i.startLocked(l)
	}
	return reg, nil
}

// RemoveHandler unregisters r: its handler gets nothing more, what was
// buffered for it is dropped, and its goroutine exits. A call whose delivery
// had already begun when RemoveHandler took effect still completes (at most
// one); to know that no call is running or coming, wait for r.Stopped() (not
// from within the handler, which is safe to call RemoveHandler itself). It
// returns an error if r is not registered with this informer (or was removed
// already).
func (i *Informer[T]) RemoveHandler(r *Registration) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	for n, l := range i.handlers {
		if l.reg == r {
			i.handlers = slices.Delete(slices.Clip(i.handlers), n, n+1)
			l.remove()
			if !l.started {
				close(r.stopped) // no goroutine will
			}
			return nil
		}
	}
	name := "<nil>"
	if r != nil {
		name = r.name
	}
	return fmt.Errorf("informer %s: RemoveHandler: %s is not registered", i.name, name)
}

// Handlers returns the registrations of the handlers registered now, in the
// order they were added.
func (i *Informer[T]) Handlers() []*Registration {
	i.mu.Lock()
	defer i.mu.Unlock()
	regs := make([]*Registration, len(i.handlers))
	for n, l := range i.handlers {
		regs[n] = l.reg
	}
	return regs
}

// Indexer returns the informer's cache (read side). Objects are shared:
// read-only.
func (i *Informer[T]) Indexer() *store.Indexer[T] { return i.indexer }

// AddIndexers adds indexes to the cache, before or after Run (existing
// objects are indexed at once). See store.Indexer.AddIndexers.
func (i *Informer[T]) AddIndexers(indexers store.Indexers[T]) error {
	return i.indexer.AddIndexers(indexers)
}

// HasSynced reports whether the cache holds the initial list (the FIFO's
// initial population has been applied). Handlers may still be delivering
// it: use Registration.HasSynced for a handler's view.
func (i *Informer[T]) HasSynced() bool { return i.fifo.HasSynced() }

// Synced returns a channel closed when HasSynced becomes true.
func (i *Informer[T]) Synced() <-chan struct{} { return i.fifo.Synced() }

// LastError returns the Reflector's last list/watch error (a 403 on LIST,
// say), or nil once a later list or watch has succeeded. With several
// namespaces (NewMultiNamespace) it joins the last error of each namespace
// that has one, each wrapped as `namespace "a": ...` (errors.As and
// apierrors.IsForbidden see through both).
func (i *Informer[T]) LastError() error {
	if i.namespaces == nil {
		return i.refls[0].LastError()
	}
	var errs []error
	for n, r := range i.refls {
		if err := r.LastError(); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", i.namespaces[n], err))
		}
	}
	return errors.Join(errs...)
}

// LastSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark the Reflector saw ("" before the first list). With
// several namespaces each has its own, and it returns them as
// "a=RV,b=RV" in the order of the sources: for logs, not for a LIST.
func (i *Informer[T]) LastSyncResourceVersion() string {
	if i.namespaces == nil {
		return i.refls[0].LastSyncResourceVersion()
	}
	var b strings.Builder
	for n, r := range i.refls {
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(i.namespaces[n])
		b.WriteByte('=')
		b.WriteString(r.LastSyncResourceVersion())
	}
	return b.String()
}

// Registration is the handle AddHandler returns. Its methods are safe for
// concurrent use.
type Registration struct {
	owner interface {
		LastError() error
	}
	name    string
	synced  chan struct{}
	stopped chan struct{} // set by the listener
	backlog func() (int, time.Time)
	tracked bool // the informer has Options.Metrics
}

// BacklogTracked reports whether Backlog is tracked (Options.Metrics set).
func (r *Registration) BacklogTracked() bool { return r.tracked }

type noHandlerMetrics struct{}

func (noHandlerMetrics) Delivered(string) {}

// Backlog returns how many notifications are queued for the handler and not
// yet delivered, and when the oldest of them was queued (more precisely: the
// first of the batch being delivered; zero when none). It is only tracked
// when the informer has Options.Metrics: otherwise it returns 0 and the zero
// time. Safe for concurrent use.
func (r *Registration) Backlog() (n int, oldest time.Time) {
	if r.backlog == nil {
		return 0, time.Time{}
	}
	return r.backlog()
}

// HasSynced reports whether the handler has processed the initial list:
// every OnAdd of the informer's initial list, or for a handler added later,
// of the synthetic adds for what was cached.
func (r *Registration) HasSynced() bool {
	select {
	case <-r.synced:
		return true
	default:
		return false
	}
}

// Synced returns a channel closed when HasSynced becomes true.
func (r *Registration) Synced() <-chan struct{} { return r.synced }

// LastError returns the informer's LastError.
func (r *Registration) LastError() error { return r.owner.LastError() }

// Name names the registration in errors: "<informer> handler <n>".
func (r *Registration) Name() string { return r.name }

// Stopped returns a channel closed when the handler's goroutine has exited
// (after RemoveHandler, or once Run stops it), after which the handler is
// never called again.
func (r *Registration) Stopped() <-chan struct{} { return r.stopped }

// Syncable is anything WaitForCacheSync can wait for: informers and registrations.
type Syncable interface {
	Synced() <-chan struct{}
	LastError() error
}

// WaitForCacheSync blocks until every s has synced (nil) or ctx ends; then it
// returns a *NotSyncedError naming the unsynced ones (by their Name method if
// they have one) and wrapping their LastError (for example a 403 on LIST, so
// apierrors.IsForbidden(err) holds) as well as ctx's error, rather than a
// bare timeout. It does not poll: it waits on the Synced channels.
func WaitForCacheSync(ctx context.Context, s ...Syncable) error {
	for _, x := range s {
		select {
		case <-x.Synced():
			continue
		case <-ctx.Done():
		}
		break
	}
	var e NotSyncedError
	for n, x := range s {
		select {
		case <-x.Synced():
			continue
		default:
		}
		name := fmt.Sprintf("%T #%d", x, n)
		if nx, ok := x.(interface{ Name() string }); ok {
			name = nx.Name()
		}
		e.Names = append(e.Names, name)
		if err := x.LastError(); err != nil && !slices.ContainsFunc(e.LastErrors, func(o error) bool { return o == err }) {
			e.LastErrors = append(e.LastErrors, err)
		}
	}
	if len(e.Names) == 0 {
		return nil
	}
	e.Cause = ctx.Err()
	return &e
}

// NotSyncedError is WaitForCacheSync's error. It unwraps to every LastError
// and to Cause, so errors.Is(err, context.DeadlineExceeded) and
// apierrors.IsForbidden(err) work on it.
type NotSyncedError struct {
	// Names of what had not synced, in the order given.
	Names []string
	// LastErrors are the distinct LastError values of those, if any.
	LastErrors []error
	// Cause is the error of the context that ended the wait.
	Cause error
}

// Error reads "caches not synced for a, b: last error: <errors> (<cause>)".
func (e *NotSyncedError) Error() string {
	var b strings.Builder
	b.WriteString("caches not synced for ")
	b.WriteString(strings.Join(e.Names, ", "))
	if len(e.LastErrors) > 0 {
		b.WriteString(": last error: ")
		for n, err := range e.LastErrors {
			if n > 0 {
				b.WriteString("; ")
			}
			b.WriteString(err.Error())
		}
		b.WriteString(" (")
		b.WriteString(fmt.Sprint(e.Cause))
		b.WriteString(")")
	} else {
		b.WriteString(": ")
		b.WriteString(fmt.Sprint(e.Cause))
	}
	return b.String()
}

// Unwrap returns the LastErrors and Cause.
func (e *NotSyncedError) Unwrap() []error {
	out := slices.Clone(e.LastErrors)
	if e.Cause != nil {
		out = append(out, e.Cause)
	}
	return out
}
