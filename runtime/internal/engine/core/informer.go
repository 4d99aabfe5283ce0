package core

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"reflect"

	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/budget"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
	"github.com/informer-gen/informer-gen/runtime/internal/logctx"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
	"github.com/informer-gen/informer-gen/runtime/internal/settings"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// Shared is the untyped core of a shared index informer: it runs a Reflector
// into a DeltaFIFO, applies what it pops to the cache, and fans each change
// out to every registered Handler. informer.Informer[T] is its typed view (a
// defined type over Shared: converting costs nothing); Shared is not generic
// so that its machinery (and the FIFO's, the Reflector's and the cache's) is
// compiled once, in the runtime, however many types use it. The contract of
// each method is documented on informer.Informer's.
//
// Every object it stores has the Go type objectType: the Reflector refuses
// events of another type, the transform's result is checked, and so is what
// Seed is given (each mismatch is a *cache.TypeError naming both types), so
// the typed view's conversions cannot fail.
//
// All methods are safe for concurrent use. Run runs it once.
type Shared struct {
	name       string
	objectType reflect.Type
	writer     *cache.Writer
	indexer    *cache.Cache
	fifo       queue
	// reflectors are the Reflectors feeding fifo: one, or one per namespace
	// (NewSharedMultiNamespace), in the order of namespaces.
	reflectors    []source
	namespaces    []string // nil unless NewSharedMultiNamespace
	defaultResync time.Duration
	onPanic       func(context.Context, HandlerPanicInfo)
	metrics       Metrics
	// processed observes the pop loop (nil: nobody does, and the loop reads
	// no clock); queued counts the FIFO's deltas not yet popped.
	processed func(d time.Duration, queued int, resourceVersion string)
	queued    func() int
	running   atomic.Bool
	// synced is closed once the FIFO's initial population has been applied
	// and every Reflector has synced (see HasSynced).
	synced chan struct{}

	// mu serializes the pop loop's apply-and-dispatch of each batch with
	// AddHandler, RemoveHandler and handler resyncs, so a handler's view is
	// always the cache's view at some point of the event stream.
	mu          sync.Mutex
	state       runState
	runCtx      context.Context
	handlers    []*listener
	nextID      int
	syncedSent  bool           // the informer synced and handlers got their marker
	listenersWG sync.WaitGroup // the handlers' goroutines (listener.run), waited for by Run
	notes       noteBuf        // pop loop scratch, reused
	// marks are the last relist.Mark of each Source the pop loop
	// delivered, for handlers added later (see AddHandler).
	marks  []relist.Mark
	logger klog.Logger // Run's logger, for the pop loop
	// foreignNSLogged: recordRV has logged an object outside namespaces
	// (pop loop only).
	foreignNSLogged bool

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

// NewShared returns the untyped core of an informer over lw, whose objects
// must all have the Go type objectType (events carrying another are
// malformed, see reflector.Options.ObjectType). It starts nothing: handlers
// and indexers may be added before Run, and Cache() is usable (empty) at
// once. informer.New is the typed constructor; NewShared is for code that handles
// many types without instantiating the runtime for each (the factory).
func NewShared(lw reflector.ListerWatcher[cache.Obj], objectType reflect.Type, opts Options) *Shared {
	i, q := newShared(opts, objectType, nil)
	i.reflectors = []source{reflector.New(lw, reflector.Sink[cache.Obj](q), i.reflectorOptions(opts, objectType, "", nil))}
	return i
}

// queue is what Shared uses of its *fifo.FIFO, and source of each
// *reflector.Reflector: interfaces, so that no generic type is reachable
// from Shared's fields (a package using a generic type compiles all its
// methods; see docs/generated-code.md).
type queue interface {
	Pop(ctx context.Context, process func(fifo.Batch[cache.Obj]) error) error
	Close()
	HasSynced() bool
	Synced() <-chan struct{}
}

type source interface {
	Run(ctx context.Context) error
	LastError() error
	LastSyncResourceVersion() string
	Synced() <-chan struct{}
}

// newShared builds everything but the Reflectors and returns the FIFO too;
// namespaces partition the FIFO (nil: one unpartitioned source).
func newShared(opts Options, objectType reflect.Type, namespaces []string) (*Shared, *fifo.FIFO[cache.Obj]) {
	name := opts.Reflector.Name
	if name == "" {
		name = objectType.String()
	}
	i := &Shared{
		name:          name,
		objectType:    objectType,
		namespaces:    namespaces,
		defaultResync: opts.ResyncPeriod,
		onPanic:       opts.HandlerPanic,
		metrics:       opts.Metrics,
		synced:        make(chan struct{}),
	}
	if opts.Metrics != nil {
		i.processed = opts.Metrics.Process()
	}
	w := cache.New(cache.Options{Indexers: opts.Indexers, OnIndexError: i.indexError, Namespaces: namespaces})
	i.writer, i.indexer = w, w.Cache()
	q := fifo.New(fifo.Options[cache.Obj]{
		Known:      i.indexer,
		Transform:  transform(&opts, objectType),
		Name:       name,
		Namespaces: namespaces,
	})
	i.fifo, i.queued = q, q.Len
	return i, q
}

// reflectorOptions are opts.Reflector for the Reflector of namespace ns ("" =
// the only one), with b, the request budget it shares with the informer's
// other Reflectors (nil: a budget of its own), beside what opts.Reflector's
// runtime settings hold (the factory's scope).
func (i *Shared) reflectorOptions(opts Options, objectType reflect.Type, ns string, b *budget.Budget) reflector.Options {
	ropts := opts.Reflector
	ropts.Name = i.reflectorName(ns)
	ropts.ObjectType = objectType
	return settings.WithReflector(ropts, settings.Reflector{Budget: b}).(reflector.Options)
}

// reflectorName is the name of the Reflector of namespace ns ("" = the only
// one).
func (i *Shared) reflectorName(ns string) string {
	if ns == "" {
		return i.name
	}
	return i.name + " namespace=" + ns
}

// transform composes the user's transform with the memory transform opts
// ask for: drop managedFields, intern strings (cache.Compact does both). The
// user's transform must return an objectType: anything else is a
// *cache.TypeError, which the FIFO returns to the Reflector as any failed
// transform (the event is not applied).
func transform(opts *Options, objectType reflect.Type) func(cache.Obj) (cache.Obj, error) {
	var compact func(cache.Obj)
	switch {
	case !opts.KeepManagedFields && opts.InternStrings:
		compact = cache.Compact
	case !opts.KeepManagedFields:
		compact = dropManagedFields
	case opts.InternStrings:
		compact = cache.InternStrings
	}
	user := opts.Transform
	if fn := user; fn != nil {
		user = func(obj cache.Obj) (cache.Obj, error) {
			out, err := fn(obj)
			if err != nil {
				return obj, err
			}
			if got := reflect.TypeOf(out); got != objectType {
				return obj, &cache.TypeError{Want: objectType, Got: got, Where: "transform"}
			}
			return out, nil
		}
	}
	switch {
	case compact == nil:
		return user
	case user == nil:
		return func(obj cache.Obj) (cache.Obj, error) { compact(obj); return obj, nil }
	}
	return func(obj cache.Obj) (cache.Obj, error) {
		obj, err := user(obj)
		if err != nil {
			return obj, err
		}
		compact(obj)
		return obj, nil
	}
}

// indexError logs an index func's failure through Run's logger (from its
// ctx), or klog's default logger before Run. The key is the object's; its
// contents are never logged, nor the index func's text (IndexErrorText).
func (i *Shared) indexError(index, key string, err error) {
	logger := klog.Background()
	if l := i.indexLog.Load(); l != nil {
		logger = *l
	}
	logger.Error(cache.IndexErrorText(err), "index func failed; object not indexed", "index", index, "key", key)
}

func dropManagedFields(obj cache.Obj) { obj.SetManagedFields(nil) }

// Name returns the informer's name (Options.Reflector.Name, or the Go type
// of its objects), used in logs and in WaitForCacheSync's errors.
func (i *Shared) Name() string { return i.name }

// ObjectType returns the Go type of every object i stores.
func (i *Shared) ObjectType() reflect.Type { return i.objectType }

// CheckType returns nil if i's objects are of type t, else a
// *cache.TypeError naming both types: the check a typed view of i makes
// before it is handed out.
func (i *Shared) CheckType(t reflect.Type) error {
	if t != i.objectType {
		return &cache.TypeError{Want: t, Got: i.objectType, Where: "informer " + i.name}
	}
	return nil
}

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
func (i *Shared) Run(ctx context.Context) error {
	if !i.running.CompareAndSwap(false, true) {
		return fmt.Errorf("informer %s: Run called twice", i.name)
	}
	ctx = logctx.With(ctx, i.name)
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
		for n, r := range i.reflectors {
			rctx := ctx
			if i.namespaces != nil {
				// The resource is named already; the namespace names this
				// Reflector.
				rctx = klog.NewContext(ctx, logger.WithValues("namespace", i.namespaces[n]))
				rctx = logctx.Mark(rctx, i.reflectorName(i.namespaces[n]))
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
		// Synced once the cache holds the initial list of every source
		// and the server accepted a watch after each (see HasSynced).
		waits := []<-chan struct{}{i.fifo.Synced()}
		for _, r := range i.reflectors {
			waits = append(waits, r.Synced())
		}
		for _, c := range waits {
			select {
			case <-c:
			case <-popDone:
				return
			}
		}
		close(i.synced)
		i.markSynced(ctx)
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
	i.listenersWG.Wait()
	logger.V(4).Info("informer stopped")
	return nil
}

func (i *Shared) startLocked(l *listener) {
	l.started = true
	ctx := i.runCtx
	i.listenersWG.Go(func() { l.run(ctx) })
}

// AddHandler registers h, before or while the informer runs:
// before Run, h gets everything from the start; after, h first gets a
// synthetic OnAdd(obj, true) for every cached object, then every later change
// (no gap, no duplicate: the cache snapshot and the event stream are cut at
// the same point). h runs on a goroutine of its own with an unbounded buffer,
// so a slow h never delays the informer or other handlers. It returns an
// error once Run is stopping (after ctx ended and the pop loop stopped,
// while the handlers stop) and after Run returned.
func (i *Shared) AddHandler(h Handler, opts HandlerOptions) (*Registration, error) {
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
	if resync > 0 && resync < minResyncPeriod {
		resync = minResyncPeriod
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
		id:     i.nextID,
		synced: make(chan struct{}),
	}
	l := newListener(i, h, reg, resync)
	reg.backlog = l.backlog
	if i.metrics != nil {
		// Without a handler observer, a no-op one still turns tracking on.
		reg.tracked = true
		l.hm = i.metrics.Handler(reg)
		if l.hm == nil {
			l.hm = func(string) {}
		}
	}
	i.handlers = append(slices.Clip(i.handlers), l)
	// Nobody else can reach l yet: fill its buffer directly.
	objs := i.indexer.List()
	l.buf.notes = make([]note, 0, len(objs)+1)
	for _, o := range objs {
		l.buf.add(note{op: opAdd, obj: o, initialOrTombstone: true})
	}
	if i.syncedSent {
		l.buf.add(note{op: opSynced})
	}
	if _, ok := h.(relist.Listener); ok {
		for _, m := range i.marks {
			l.buf.listed(m)
		}
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
func (i *Shared) RemoveHandler(r *Registration) error {
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
func (i *Shared) Handlers() []*Registration {
	i.mu.Lock()
	defer i.mu.Unlock()
	regs := make([]*Registration, len(i.handlers))
	for n, l := range i.handlers {
		regs[n] = l.reg
	}
	return regs
}

// Cache returns the informer's cache (read side). Objects are shared:
// read-only.
func (i *Shared) Cache() *cache.Cache { return i.indexer }

// Seed stores objs in the cache of an informer that has not been run, as a
// controller test seeds client-go's with GetIndexer().Add(obj): listers and
// indexes see them at once, no handler is called, and HasSynced stays false
// (a test that needs it true runs the informer over a runtimetest.Source
// instead). Objects are stored as given (not copied; a later Seed of the same
// key replaces it), under store.Key; one without metadata.name is an error
// and nothing is stored. Seed returns an error once Run has been called: the
// cache then belongs to the Reflector. Safe for concurrent use.
func (i *Shared) Seed(objs ...cache.Obj) error {
	for n, o := range objs {
		if got := reflect.TypeOf(o); got != i.objectType {
			return fmt.Errorf("informer %s: seed: object %d: %w", i.name, n, &cache.TypeError{Want: i.objectType, Got: got, Where: "Seed"})
		}
		if o.GetName() == "" {
			return fmt.Errorf("informer %s: seed: object %d (namespace %q) has no metadata.name", i.name, n, o.GetNamespace())
		}
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.running.Load() {
		return fmt.Errorf("informer %s: seed: informer already run", i.name)
	}
	i.writer.Batch(func(tx cache.Tx) {
		for _, o := range objs {
			tx.Set(cache.Key(o), o)
		}
	})
	return nil
}

// AddIndexers adds indexes to the cache, before or after Run (existing
// objects are indexed at once). See store.Indexer.AddIndexers.
func (i *Shared) AddIndexers(indexers cache.Indexers) error {
	return i.indexer.AddIndexers(indexers)
}
