package fleet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/factory"
)

// Factory is what a fleet needs of one cluster's factory. A generated
// *informers.SharedInformerFactory (which embeds *factory.Factory) and a
// *factory.Factory both satisfy it, so the fleet works with generated code
// as it is: typed accessors stay per kind, on F.
type Factory interface {
	Start(ctx context.Context)
	Shutdown()
	WaitForCacheSync(ctx context.Context) error
	Informers() []factory.Generic
}

// Options configures New.
type Options[F Factory] struct {
	// NewFactory builds one cluster's factory from its rest.Config (nil for
	// an Endpoint without one) and the factory options the fleet resolved
	// for it. Required; pass the generated informers.NewSharedInformerFactory
	// (or factory.New) as is.
	NewFactory func(cfg *rest.Config, opts factory.Options) F
	// Factory holds the factory options every cluster starts from; an
	// Endpoint's Options func edits a copy of them. When Factory.HTTPClient
	// is nil, the fleet builds one HTTP client per cluster from its
	// rest.Config, shared by all of that cluster's group-versions, with a
	// transport of its own (not in client-go's process-wide TLS transport
	// cache), and closes all its connections once the cluster's informers
	// have stopped, so a disengaged cluster leaves no connection, goroutine
	// or transport behind (unless the rest.Config sets its own Transport,
	// which is used as it is).
	Factory factory.Options
	// Providers engage and disengage clusters while Run runs (see Provider).
	Providers []Provider
}

// Endpoint says how to reach one cluster: what a Provider hands to
// Engager.Engage.
type Endpoint struct {
	// Config is the cluster's API server and credentials. It may be nil
	// when every type the cluster's factory reads has a
	// TypeOptions.ListerWatcher (unit tests over runtimetest sources).
	Config *rest.Config
	// Options, when not nil, edits this cluster's copy of
	// Options.Factory (its own namespaces, a runtimetest source per type).
	// It must not keep opts.
	Options func(opts *factory.Options)
}

// Engager is the side of a Fleet that providers drive; *Fleet[F] implements
// it for every F, so a provider is written once for all factories.
type Engager interface {
	// Engage adds the cluster name reached through ep, or replaces the
	// engaged one of that name (a rotated kubeconfig): see Fleet.Engage.
	Engage(name string, ep Endpoint) error
	// Disengage removes the cluster name: see Fleet.Disengage.
	Disengage(name string) bool
}

// Provider tells a fleet which clusters exist. Run engages clusters on e as
// they appear, re-engages those whose Endpoint changed and disengages those
// that went, until ctx ends; it returns nil then. Returning an error ends the
// fleet's Run with it. Cluster names are the fleet's keys: a provider that
// may share a fleet with another should qualify its names.
type Provider interface {
	Run(ctx context.Context, e Engager) error
}

// ErrStopped is returned by Engage after the fleet's Run has returned.
var ErrStopped = errors.New("fleet: stopped")

// Fleet runs one factory per cluster, for clusters that are engaged and
// disengaged at run time. All methods are safe for concurrent use.
//
// Lifecycle: New starts nothing; Engage before Run records a cluster, which
// Run starts; Run starts every engaged cluster, runs the providers, and on
// ctx's end stops every cluster and returns once all their goroutines have
// exited. A cluster's informers run with a context derived from Run's.
type Fleet[F Factory] struct {
	opts Options[F]

	// mu guards the fields below; no user code and no wait runs under it.
	mu sync.Mutex
	// clusters are the engaged clusters that serve reads; pending are
	// replacements (a re-engaged cluster) that serve once they have
	// synced or failed.
	clusters map[string]*Cluster[F]
	pending  map[string]*Cluster[F]
	watches  []func(*Cluster[F])
	runCtx   context.Context // nil before Run
	started  bool
	stopped  bool
	wg       sync.WaitGroup // swaps of pending clusters
}

// New returns a fleet with no cluster. It panics if opts.NewFactory is nil
// (a program mistake, found at start-up).
func New[F Factory](opts Options[F]) *Fleet[F] {
	if opts.NewFactory == nil {
		panic("fleet.New: Options.NewFactory is nil")
	}
	return &Fleet[F]{opts: opts, clusters: map[string]*Cluster[F]{}, pending: map[string]*Cluster[F]{}}
}

// Run starts every engaged cluster, runs the providers (each in its own
// goroutine) and blocks until ctx ends or a provider fails; then it stops
// every cluster (as Disengage) and returns once every goroutine it and the
// clusters started has exited. It returns the first provider error, if
// any, and an error if called twice.
func (f *Fleet[F]) Run(ctx context.Context) error {
	f.mu.Lock()
	if f.started {
		f.mu.Unlock()
		return errors.New("fleet: Run called twice")
	}
	f.started = true
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f.runCtx = ctx
	initial := slices.Collect(maps.Values(f.clusters))
	f.mu.Unlock()
	for _, c := range initial {
		c.start(ctx)
	}
	var providers sync.WaitGroup
	var failOnce sync.Once
	var failed error
	for _, p := range f.opts.Providers {
		providers.Go(func() {
			if err := p.Run(ctx, f); err != nil && ctx.Err() == nil {
				failOnce.Do(func() { failed = fmt.Errorf("fleet: provider %T: %w", p, err) })
				cancel()
			}
		})
	}
	<-ctx.Done()
	providers.Wait()

	f.mu.Lock()
	f.stopped = true
	all := slices.Concat(slices.Collect(maps.Values(f.clusters)), slices.Collect(maps.Values(f.pending)))
	clear(f.clusters)
	clear(f.pending)
	f.mu.Unlock()
	stopAll(all)
	f.wg.Wait()
	return failed
}

// stopAll stops clusters in parallel: each Shutdown waits for its own
// informers only.
func stopAll[F Factory](cs []*Cluster[F]) {
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(c.stop)
	}
	wg.Wait()
}

// Engage adds the cluster name, reached through ep, with a factory of its
// own (Options.NewFactory), every Watch registered on it, and starts it if
// the fleet runs. It does not wait for the cluster's sync: one cluster's
// sync never delays another's.
//
// Engaging a name that is engaged replaces that cluster (a kubeconfig
// rotated, a server moved): the new factory starts beside the old one, which
// keeps serving reads and events until the new one has synced or failed
// (see Cluster.HasSynced and Cluster.LastError); then the fleet swaps them
// and stops the old one. Keys in a caller's queue stay valid throughout:
// they name the cluster, not the factory. The replacement's events reach
// the Watch handlers before the swap, while reads still go to the old
// cache, which may not hold what they announce yet: so after the swap each
// Watch handler gets the replacement's cache once more (adds, as a handler
// added late), and a reconciler reads every object again from the cluster
// that serves. "Synced" means the informers the
// new factory has then: those of every Watch. An informer a reconciler
// creates lazily on the new factory (a first Lister() call) is created
// after the swap, unsynced, so register what reconcilers read with Watch.
// Before Run, the old one is simply replaced.
//
// Engage returns an error for an empty name, and ErrStopped after Run has
// returned.
func (f *Fleet[F]) Engage(name string, ep Endpoint) error {
	if name == "" {
		return errors.New("fleet: engage: empty cluster name")
	}
	c, err := f.newCluster(name, ep) // user code: without f.mu
	if err != nil {
		return fmt.Errorf("fleet: engage cluster %q: %w", name, err)
	}
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		c.stop()
		return ErrStopped
	}
	watches := slices.Clone(f.watches)
	var retired *Cluster[F]
	_, serving := f.clusters[name]
	replacing := serving && f.runCtx != nil
	if replacing {
		retired = f.pending[name]
		f.pending[name] = c
	} else {
		retired = f.clusters[name]
		f.clusters[name] = c
	}
	ctx := f.runCtx
	if replacing {
		// Counted under mu, so that Run, which sets stopped under mu,
		// waits for it; started below, once c has its informers (a
		// factory with none counts as synced).
		f.wg.Add(1)
	}
	f.mu.Unlock()

	for _, w := range watches {
		w(c)
	}
	if retired != nil {
		retired.stop()
	}
	if ctx != nil {
		c.start(ctx)
		klog.FromContext(ctx).V(2).Info("Engaged cluster", "cluster", name, "replacing", replacing)
	}
	if replacing {
		go func() {
			defer f.wg.Done()
			f.swapWhenSettled(ctx, c)
		}()
	}
	return nil
}

// swapWhenSettled makes c serve its name once it has synced or failed,
// unless it was replaced or disengaged meanwhile, and stops the cluster it
// replaces.
func (f *Fleet[F]) swapWhenSettled(ctx context.Context, c *Cluster[F]) {
	if !c.waitSettled(ctx) {
		return // c was disengaged or replaced, or the fleet is stopping (Run stops c)
	}
	f.mu.Lock()
	if f.pending[c.name] != c {
		f.mu.Unlock()
		return
	}
	delete(f.pending, c.name)
	old := f.clusters[c.name]
	f.clusters[c.name] = c
	f.mu.Unlock()
	if old != nil {
		old.stop()
	}
	c.swapped()
	klog.FromContext(ctx).V(2).Info("Re-engaged cluster", "cluster", c.name, "synced", c.HasSynced())
}

// Disengage stops the cluster name (and a replacement of it still
// syncing) and forgets it: its informers' Reflectors stop, their handlers
// stop (no handler call starts after Disengage returns), and Disengage
// returns once all of the cluster's goroutines have exited. The fleet then
// holds no reference to the cluster, so its caches are garbage once the
// caller drops what it got from them (its *Cluster, listers, objects).
// Keys of the cluster still in a caller's queue find no cluster
// (Fleet.Cluster returns false): a reconciler should drop them.
//
// It reports whether the cluster was engaged. Calling it from a handler of
// that cluster deadlocks (it waits for the handler).
func (f *Fleet[F]) Disengage(name string) bool {
	f.mu.Lock()
	c, ok := f.clusters[name]
	p, okp := f.pending[name]
	delete(f.clusters, name)
	delete(f.pending, name)
	ctx := f.runCtx
	f.mu.Unlock()
	if okp {
		p.stop()
	}
	if ok {
		c.stop()
	}
	if (ok || okp) && ctx != nil {
		klog.FromContext(ctx).V(2).Info("Disengaged cluster", "cluster", name)
	}
	return ok || okp
}

// Cluster returns the engaged cluster name that serves reads, and whether
// there is one.
func (f *Fleet[F]) Cluster(name string) (*Cluster[F], bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.clusters[name]
	return c, ok
}

// Clusters returns the engaged clusters that serve reads, sorted by name.
func (f *Fleet[F]) Clusters() []*Cluster[F] {
	f.mu.Lock()
	cs := slices.Collect(maps.Values(f.clusters))
	f.mu.Unlock()
	slices.SortFunc(cs, func(a, b *Cluster[F]) int { return cmp.Compare(a.name, b.name) })
	return cs
}

// newCluster builds the cluster's factory: the fleet's options, the
// endpoint's edit, one HTTP client for the cluster, and the error hook that
// tells waiters a list or watch failed.
func (f *Fleet[F]) newCluster(name string, ep Endpoint) (*Cluster[F], error) {
	c := &Cluster[F]{name: name, errs: make(chan struct{}), done: make(chan struct{}), running: make(chan struct{})}
	opts := f.opts.Factory
	opts.Types = slices.Clone(opts.Types)
	opts.Namespaces = slices.Clone(opts.Namespaces)
	if ep.Options != nil {
		ep.Options(&opts)
	}
	if opts.HTTPClient == nil && ep.Config != nil {
		hc, conns, err := clusterHTTPClient(ep.Config)
		if err != nil {
			return nil, err
		}
		opts.HTTPClient = hc
		c.httpClient, c.conns = hc, conns
	}
	userHook := opts.Reflector.WatchErrorHandler
	opts.Reflector.WatchErrorHandler = func(ctx context.Context, err error) {
		if userHook != nil {
			userHook(ctx, err)
		}
		c.reportError()
	}
	c.factory = f.opts.NewFactory(ep.Config, opts)
	return c, nil
}

// closeIdle releases the cluster's pooled connections; a nil client (a
// shared Options.Factory.HTTPClient, or no Config) is left alone.
func closeIdle(hc *http.Client) {
	if hc != nil {
		hc.CloseIdleConnections()
	}
}
