package controllerruntime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/informer-gen/informer-gen/runtime/factory"
)

// Factory is what Runnable runs: *factory.Factory, and so every generated
// SharedInformerFactory, satisfies it.
type Factory interface {
	// Start runs the informers created so far (and later ones) with ctx; it
	// does not block.
	Start(ctx context.Context)
	// WaitForCacheSync blocks until every started informer synced (nil) or
	// ctx ends (an error naming the unsynced ones and wrapping their
	// LastError).
	WaitForCacheSync(ctx context.Context) error
	// Shutdown stops every informer and waits for their goroutines.
	Shutdown()
}

// Options configures NewRunnable.
type Options struct {
	// Logger is handed to the factory's informers through their ctx (the
	// runtime logs through klog.FromContext). Add sets it to the manager's
	// logger named "informers" when it is the zero value; otherwise the zero
	// value keeps whatever logger Start's ctx carries.
	Logger logr.Logger
	// SyncTimeout, when positive, makes Start return the sync error (naming
	// every unsynced informer and its LastError, a 403 say) when the
	// informers have not synced within it, which stops the manager. Zero
	// waits for ever, logging the error every SyncLogPeriod.
	SyncTimeout time.Duration
	// SyncLogPeriod is how often a sync that takes long is logged with the
	// informers' last errors; default 10s.
	SyncLogPeriod time.Duration
	// ReadyzName is the readyz check Add registers; default "informers".
	ReadyzName string
}

// Runnable runs a Factory under a controller-runtime manager, as the
// manager runs its own cache:
//
//   - NeedLeaderElection is false: every replica, leader or standby, keeps
//     its caches warm, so a new leader starts reconciling at once.
//   - GetCache puts it in the manager's caches group, which the manager
//     starts first and waits for: the informers have synced before any
//     controller (or other runnable) starts, so reconcilers read warm
//     Listers. A sync error (a 403 on LIST) is logged with the informer's
//     LastError while the manager waits; see Options.SyncTimeout.
//   - Start blocks until ctx ends, then shuts the factory down and returns
//     after every informer goroutine has exited.
//
// ReadyzCheck reports readiness. Its methods are safe for concurrent use.
type Runnable struct {
	f       Factory
	opts    Options
	started atomic.Bool
	running chan struct{} // closed once Start has called f.Start
	stopped atomic.Bool
}

var (
	_ manager.Runnable               = (*Runnable)(nil)
	_ manager.LeaderElectionRunnable = (*Runnable)(nil)
)

// NewRunnable returns a Runnable for f. It starts nothing.
func NewRunnable(f Factory, opts Options) *Runnable {
	if opts.SyncLogPeriod <= 0 {
		opts.SyncLogPeriod = 10 * time.Second
	}
	if opts.ReadyzName == "" {
		opts.ReadyzName = "informers"
	}
	return &Runnable{f: f, opts: opts, running: make(chan struct{})}
}

// Add adds a Runnable for f to mgr, with the manager's logger (named
// "informers") unless opts.Logger is set, and registers its ReadyzCheck as
// mgr's readyz check opts.ReadyzName. Call it before mgr.Start.
func Add(mgr manager.Manager, f Factory, opts Options) (*Runnable, error) {
	if opts.Logger.GetSink() == nil {
		opts.Logger = mgr.GetLogger().WithName("informers")
	}
	r := NewRunnable(f, opts)
	if err := mgr.Add(r); err != nil {
		return nil, fmt.Errorf("adding the informer factory to the manager: %w", err)
	}
	if err := mgr.AddReadyzCheck(r.opts.ReadyzName, r.ReadyzCheck); err != nil {
		return nil, fmt.Errorf("adding readyz check %q: %w", r.opts.ReadyzName, err)
	}
	return r, nil
}

// NeedLeaderElection returns false: the informers run on every replica.
func (r *Runnable) NeedLeaderElection() bool { return false }

// Start starts the factory with ctx (and Options.Logger in it), blocks until
// ctx ends, then shuts the factory down and waits for it. It returns an
// error if called twice, or, with Options.SyncTimeout, if the informers did
// not sync in time (after shutting the factory down).
func (r *Runnable) Start(ctx context.Context) error {
	if !r.started.CompareAndSwap(false, true) {
		return errors.New("informer factory runnable: Start called twice")
	}
	if r.opts.Logger.GetSink() != nil {
		ctx = klog.NewContext(ctx, r.opts.Logger)
	}
	r.f.Start(ctx)
	close(r.running)
	defer func() {
		r.f.Shutdown()
		r.stopped.Store(true)
	}()
	if r.opts.SyncTimeout > 0 {
		sctx, cancel := context.WithTimeout(ctx, r.opts.SyncTimeout)
		err := r.waitForSync(sctx)
		cancel()
		if errors.Is(err, factory.ErrSetup) {
			return err
		}
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("informers did not sync within %s: %w", r.opts.SyncTimeout, err)
		}
	}
	<-ctx.Done()
	return nil
}

// waitForSync waits for the factory's sync, logging its error (with the
// informers' last errors) every SyncLogPeriod while it waits. A set-up
// mistake (factory.ErrSetup) is returned at once, not waited on.
func (r *Runnable) waitForSync(ctx context.Context) error {
	select {
	case <-r.running:
	case <-ctx.Done():
		return ctx.Err()
	}
	logger := klog.FromContext(ctx)
	if r.opts.Logger.GetSink() != nil {
		logger = r.opts.Logger
	}
	for {
		pctx, cancel := context.WithTimeout(ctx, r.opts.SyncLogPeriod)
		err := r.f.WaitForCacheSync(pctx)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		if errors.Is(err, factory.ErrSetup) {
			// A mistake in the program (no source, a type its scheme does
			// not know): waiting longer cannot help.
			return err
		}
		logger.Error(err, "informers not synced yet")
	}
}

// ReadyzCheck is a healthz.Checker: nil once the factory has started and
// every informer started so far has synced; otherwise an error naming the
// unsynced informers and wrapping their LastError. It never blocks.
func (r *Runnable) ReadyzCheck(_ *http.Request) error {
	select {
	case <-r.running:
	default:
		return errors.New("informers not started")
	}
	if r.stopped.Load() {
		return errors.New("informers stopped")
	}
	done, cancel := context.WithCancel(context.Background())
	cancel() // WaitForCacheSync then only reports
	return r.f.WaitForCacheSync(done)
}

// GetCache returns a cache whose only working method is WaitForCacheSync
// (it waits for the factory's informers). It exists so that the manager
// treats the Runnable as a cache: it starts it with its caches, before
// anything else, and waits for that sync. Its other methods return errors;
// read through the generated Listers.
func (r *Runnable) GetCache() cache.Cache { return syncOnlyCache{r} }

type syncOnlyCache struct{ r *Runnable }

var errSyncOnly = errors.New("the informer factory runnable's cache only waits for sync: read through the generated Listers")

func (c syncOnlyCache) WaitForCacheSync(ctx context.Context) bool {
	return c.r.waitForSync(ctx) == nil
}
func (syncOnlyCache) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return errSyncOnly
}
func (syncOnlyCache) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errSyncOnly
}
func (syncOnlyCache) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return nil, errSyncOnly
}
func (syncOnlyCache) GetInformerForKind(context.Context, schema.GroupVersionKind, ...cache.InformerGetOption) (cache.Informer, error) {
	return nil, errSyncOnly
}

// RemoveInformer stops and removes the factory's informer for obj's Go type
// (factory.RemoveInformerOf: its reflector and handlers stop, the factory
// drops it, a later use creates a fresh one), returning once its goroutines
// have exited. As controller-runtime's cache, it returns nil when there is
// no such informer. It returns an error when the Runnable's Factory cannot
// remove informers (it lacks RemoveInformerOf) or when several informers
// have obj's type.
func (c syncOnlyCache) RemoveInformer(_ context.Context, obj client.Object) error {
	rm, ok := c.r.f.(interface {
		RemoveInformerOf(obj any) (bool, error)
	})
	if !ok {
		return fmt.Errorf("remove informer of %T: the factory (%T) cannot remove informers", obj, c.r.f)
	}
	_, err := rm.RemoveInformerOf(obj)
	return err
}

func (syncOnlyCache) Start(context.Context) error { return errSyncOnly }
func (syncOnlyCache) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return errSyncOnly
}
