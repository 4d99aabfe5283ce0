package shard

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// Shard is one replica's membership in a group of replicas that split a
// controller's keys: it holds this replica's Lease, watches the others',
// assigns keys by rendezvous hashing over the live members, and hands keys
// over without two replicas ever owning one key at once (docs/sharding.md
// has the protocol and its assumptions).
//
// All methods are safe for concurrent use. Owns never blocks. Run runs it
// once.
type Shard struct {
	opts      Options
	leaseName string
	running   atomic.Bool
	asg       atomic.Pointer[assignment] // what Owns reads
	synced    chan struct{}              // closed at the first handover completed
	lastErr   atomic.Pointer[error]
	// ByUID: the selector Tweak sets (union of grown's and target's
	// buckets), the key of the views it was made from, and the trigger
	// fired when it changes.
	selector atomic.Pointer[string]
	selKey   string
	relist   *relist.Trigger
	// selGen is the trigger's generation at the last selector change (under
	// mu), selChanged when it was; relistWaitLogged: relistedLocked gave up
	// waiting for it and said so.
	selGen           uint64
	selChanged       time.Time
	relistWaitLogged bool
	// selRecent holds the buckets of the current selector and of those
	// replaced within LeaseDuration: an object outside all of them means the
	// server ignores shardSelector. ignored is set then: Selector is "" for
	// good.
	selRecent atomic.Pointer[[]selection]
	ignored   atomic.Bool
	// filtersSnap is filters, for Owns to read without s.mu.
	filtersSnap atomic.Pointer[[]replayer]

	mu sync.Mutex
	// members are the other replicas' Leases as last seen, by identity.
	members map[string]*member
	// target is the membership as this replica sees it now: itself and the
	// live others.
	target view
	// published is the view id this replica's Lease carries (or may carry:
	// it is set before the write that carries it is sent), pubRVs the
	// resourceVersions of the writes known to carry it.
	published string
	pubRVs    []string
	// marked is published once the Lease watch has delivered one of the
	// pubRVs: every event delivered after that is later than the
	// publication. Acks count only then.
	marked string
	// selfSeenRV is the resourceVersion of the last event of our own Lease.
	selfSeenRV string
	lease      *coordinationv1.Lease // last written (nil: not yet)
	lastRenew  time.Time             // when the last successful write was sent
	// grown is the view whose keys this replica gained (nil: none); shrinks
	// are the views it moved to since, whose assignment it also obeys.
	grown    *view
	shrinks  []view
	stopping bool
	// leasesSynced: the Lease handler has processed the initial list.
	leasesSynced bool
	ackWrite     bool // a member moved to our view: renew soon, as its ack
	filters      []replayer
	logger       klog.Logger
	// changed is closed and replaced whenever the assignment Owns reads
	// changes (storeLocked): see Changed.
	changed chan struct{}

	wakeLoop   chan struct{}
	wakeWriter chan struct{}
	wakeReplay chan struct{}

	fmu        sync.Mutex
	inflight   map[string]*flight
	nextFlight int
	drained    chan struct{} // closed and replaced on every End
}

// New returns the membership of opts.Identity in opts.Group. It starts
// nothing and owns nothing until Run has completed a first handover.
func New(opts Options) (*Shard, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	s := &Shard{
		opts:       opts,
		leaseName:  opts.Group + "-" + opts.Identity,
		synced:     make(chan struct{}),
		members:    map[string]*member{},
		wakeLoop:   make(chan struct{}, 1),
		wakeWriter: make(chan struct{}, 1),
		wakeReplay: make(chan struct{}, 1),
		inflight:   map[string]*flight{},
		drained:    make(chan struct{}),
		logger:     klog.Background(),
		changed:    make(chan struct{}),
	}
	s.target = newView([]string{opts.Identity})
	s.asg.Store(&assignment{self: opts.Identity, byUID: opts.ByUID})
	none := ""
	s.selector.Store(&none)
	s.filtersSnap.Store(&[]replayer{})
	if opts.ByUID {
		s.relist = relist.NewTrigger()
		all := []selection{{set: fullBuckets()}} // the selector "" of a lone member
		s.selRecent.Store(&all)
		s.refreshSelectorLocked()
	}
	return s, nil
}

// Name names the shard in logs and WaitForCacheSync's errors:
// "shard <group>/<identity>".
func (s *Shard) Name() string { return "shard " + s.opts.Group + "/" + s.opts.Identity }

// Owns reports whether this replica owns key (a cache key, store.Key) now.
// It is false before the first handover, from the instant the renew
// deadline passes without renewal (it compares the clock itself, so a busy
// process cannot stretch it), and once Run is stopping. Lock-free; cheap (a
// clock read, one hash of the key and one mix per member).
//
// With Options.ByUID, key is resolved to the uid of the object the Filters
// last delivered under it (a read lock per Filter): a key they have not
// seen, or whose object was deleted, is not owned.
func (s *Shard) Owns(key string) bool {
	a := s.asg.Load()
	if !a.byUID {
		return a.owns(key)
	}
	found := false
	for _, f := range *s.filtersSnap.Load() {
		uid, ok := f.uid(key)
		if !ok {
			continue
		}
		if !a.ownsBucket(bucketOf(uidHash(uid))) {
			return false
		}
		found = true
	}
	return found
}

// OwnsUID reports whether this replica owns the object of uid now (under
// Options.ByUID; false otherwise), as Owns does for a key. Lock-free.
func (s *Shard) OwnsUID(uid types.UID) bool {
	a := s.asg.Load()
	return a.byUID && a.ownsBucket(bucketOf(uidHash(uid)))
}

// HasSynced reports whether the first handover has completed: this replica
// then owns its share of the keys (and went on owning only keys that no other
// live replica owns). It stays true afterwards, even while the replica owns
// nothing.
func (s *Shard) HasSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

// Synced returns a channel closed when HasSynced becomes true, so a Shard is
// an informer.Syncable: informer.WaitForCacheSync(ctx, inf, shard) works.
func (s *Shard) Synced() <-chan struct{} { return s.synced }

// Changed returns a channel that is closed when what this replica owns may
// have changed: a handover gave it keys, a new membership took keys away,
// the renew deadline passed, Run is stopping. Read the channel first, then
// Owns, then wait on the channel: no change is missed that way. Every change
// closes the channel and makes a new one, so a caller that wants the next
// change calls Changed again. For code that holds something per key for
// long (a cluster engaged under Begin, see runtime/fleet's Sharded) rather
// than through a Filter.
func (s *Shard) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// LastError returns the last error writing this replica's Lease, or nil
// once a later write succeeded.
func (s *Shard) LastError() error {
	if p := s.lastErr.Load(); p != nil {
		return *p
	}
	return nil
}

// Members returns the membership whose keys this replica currently acts on
// (sorted identities), nil when it owns nothing.
func (s *Shard) Members() []string {
	a := s.asg.Load()
	if a.grown == nil {
		return nil
	}
	return slices.Clone(a.grown.members)
}

// Run takes part in the group until ctx ends: it creates and renews this
// replica's Lease, watches the group's Leases (with an informer of its own
// over Options.Source) and moves keys as members come and go. It blocks until
// ctx ends and returns only after every goroutine it started has exited. A
// second call returns an error at once.
//
// When ctx ends, Owns turns false for every key at once, the ctx of every
// reconcile in progress (Begin) is cancelled, and Run waits for those
// reconciles to end (at most RenewDeadline), then deletes its Lease (with a
// fresh timeout of RenewDeadline) so the others take over without waiting for
// it to expire. If reconciles are still running then, the Lease is left to
// expire instead. Run returns nil; errors are logged and kept in LastError.
func (s *Shard) Run(ctx context.Context) error {
	if !s.running.CompareAndSwap(false, true) {
		return fmt.Errorf("%s: Run called twice", s.Name())
	}
	logger := klog.FromContext(ctx).WithValues("shardGroup", s.opts.Group, "identity", s.opts.Identity)
	ctx = klog.NewContext(ctx, logger)
	s.mu.Lock()
	s.logger = logger
	s.mu.Unlock()

	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	inf := informer.New(s.opts.Source, informer.Options[*coordinationv1.Lease]{
		Reflector: reflector.Options{Name: "leases " + s.opts.Group},
	})
	reg, err := inf.AddHandler(leaseHandler{s}, informer.HandlerOptions{ResyncPeriod: -1})
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name(), err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		// No handover before the handler has seen every Lease of the
		// initial list: a view built from half a list would miss members.
		select {
		case <-reg.Synced():
			s.mu.Lock()
			s.leasesSynced = true
			s.mu.Unlock()
			poke(s.wakeLoop)
		case <-inner.Done():
		}
	})
	wg.Go(func() {
		// Its only error is a second Run, which this fresh informer cannot
		// get; should that change, it is logged, not dropped.
		if err := inf.Run(inner); err != nil {
			logger.Error(err, "the Lease informer did not run")
		}
	})
	wg.Go(func() { s.loop(inner) })
	wg.Go(func() { s.writer(inner) })
	wg.Go(func() { s.replayLoop(inner) })
	<-ctx.Done()

	s.mu.Lock()
	s.stopping = true
	s.grown, s.shrinks = nil, nil
	s.storeLocked()
	s.mu.Unlock()
	s.cancelInflight()
	cancel()
	wg.Wait()
	s.release(ctx, logger)
	return nil
}

// release waits for the reconciles in progress, then deletes the Lease.
func (s *Shard) release(ctx context.Context, logger klog.Logger) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.RenewDeadline)
	defer cancel()
	if !s.waitIdle(rctx) {
		logger.Info("reconciles still running at shutdown; leaving the Lease to expire", "lease", s.leaseName)
		return
	}
	s.mu.Lock()
	lease := s.lease
	s.mu.Unlock()
	if lease == nil {
		return
	}
	err := s.opts.Leases.Delete(rctx, lease.Name, lease.ResourceVersion)
	if isConflict(err) {
		// A renewal whose response was lost (its request cut off by ctx's
		// end, or by the network) may have been applied all the same: the
		// stored Lease is then newer than the last one this replica knows
		// it wrote. Only this replica writes its Lease, so one that still
		// names it as holder is still its own to delete.
		var cur *coordinationv1.Lease
		if cur, err = s.opts.Leases.Get(rctx, lease.Name); err == nil {
			if cur.Spec.HolderIdentity == nil || *cur.Spec.HolderIdentity != s.opts.Identity {
				logger.Info("not releasing the Lease: it names another holder", "lease", lease.Name)
				return
			}
			err = s.opts.Leases.Delete(rctx, cur.Name, cur.ResourceVersion)
		}
	}
	if err != nil {
		logger.Error(err, "releasing the Lease failed; it will expire", "lease", lease.Name)
		return
	}
	logger.V(2).Info("released the Lease", "lease", lease.Name)
}

// replayLoop tells the filters about ownership changes, off the membership
// goroutines (a filter calls user handlers).
func (s *Shard) replayLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wakeReplay:
		}
		s.mu.Lock()
		filters := slices.Clone(s.filters)
		s.mu.Unlock()
		for _, f := range filters {
			if ctx.Err() != nil {
				return
			}
			f.replay()
		}
	}
}

// poke sends on a wake channel of capacity 1 without blocking.
func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
