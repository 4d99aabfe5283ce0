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
	relist   *reflector.RelistTrigger
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

	wakeLoop   chan struct{}
	wakeWriter chan struct{}
	wakeReplay chan struct{}

	fmu        sync.Mutex
	inflight   map[string]*flight
	nextFlight int
	drained    chan struct{} // closed and replaced on every End
}

// member is another replica's Lease as this replica saw it.
type member struct {
	rv     string
	seenAt time.Time     // when this replica saw rv first (its own clock)
	dur    time.Duration // the holder's spec.leaseDurationSeconds
	view   string        // its ViewAnnotation
	acked  bool          // a write after our mark carries our published view
	// markRV is rv when we marked: a relist delivers unchanged Leases
	// again, and a write from before the mark must not count as an ack.
	markRV string
}

func (m *member) live(now time.Time) bool { return now.Before(m.seenAt.Add(m.dur)) }

// assignment is an immutable snapshot of what this replica owns: the keys
// grown assigns to it that every view in shrinks also assigns to it.
type assignment struct {
	self    string
	byUID   bool
	grown   *view
	shrinks []view
	// until is the renew deadline: past it the assignment owns nothing,
	// whenever the goroutine that would notice gets to run.
	until time.Time
}

// live reports whether a owns anything now.
func (a *assignment) live() bool {
	return a != nil && a.grown != nil && time.Now().Before(a.until)
}

// ownsObj reports whether a owns obj, whose key is key: by its uid's bucket
// (Options.ByUID) or by its key.
func (a *assignment) ownsObj(key string, uid types.UID) bool {
	if a != nil && a.byUID {
		return a.ownsBucket(bucketOf(UIDHash(uid)))
	}
	return a.owns(key)
}

// ownsBucket reports whether grown and every view in shrinks give bucket b
// to self.
func (a *assignment) ownsBucket(b int) bool {
	if !a.live() {
		return false
	}
	if a.grown.members[a.grown.buckets[b]] != a.self {
		return false
	}
	for i := range a.shrinks {
		if v := &a.shrinks[i]; v.members[v.buckets[b]] != a.self {
			return false
		}
	}
	return true
}

func (a *assignment) owns(key string) bool {
	if !a.live() {
		return false
	}
	hk := fnv64a(key)
	if !a.grown.ownedBy(hk, a.self) {
		return false
	}
	for i := range a.shrinks {
		if !a.shrinks[i].ownedBy(hk, a.self) {
			return false
		}
	}
	return true
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
	}
	s.target = newView([]string{opts.Identity})
	s.asg.Store(&assignment{self: opts.Identity, byUID: opts.ByUID})
	none := ""
	s.selector.Store(&none)
	s.filtersSnap.Store(&[]replayer{})
	if opts.ByUID {
		s.relist = reflector.NewRelistTrigger()
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
		if !a.ownsBucket(bucketOf(UIDHash(uid))) {
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
	return a.byUID && a.ownsBucket(bucketOf(UIDHash(uid)))
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
	wg.Go(func() { _ = inf.Run(inner) })
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
	if err := s.opts.Leases.Delete(rctx, lease.Name, lease.ResourceVersion); err != nil {
		logger.Error(err, "releasing the Lease failed; it will expire", "lease", lease.Name)
		return
	}
	logger.V(2).Info("released the Lease", "lease", lease.Name)
}

// leaseHandler feeds the Lease informer's events, in order, to the shard.
type leaseHandler struct{ s *Shard }

func (h leaseHandler) OnAdd(l *coordinationv1.Lease, _ bool) { h.s.observe(l, false) }
func (h leaseHandler) OnUpdate(_, l *coordinationv1.Lease)   { h.s.observe(l, false) }
func (h leaseHandler) OnDelete(l *coordinationv1.Lease, _ bool) {
	h.s.observe(l, true)
}

// observe records a Lease event: the events of one watch stream arrive in
// resourceVersion order, which is what makes "after our mark" meaningful.
func (s *Shard) observe(l *coordinationv1.Lease, deleted bool) {
	if l.Labels[GroupLabel] != s.opts.Group {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.Name == s.leaseName {
		if !deleted {
			s.selfSeenRV = l.ResourceVersion
			if s.marked != s.published && slices.Contains(s.pubRVs, l.ResourceVersion) {
				s.markLocked()
			}
		}
		s.recomputeLocked()
		return
	}
	id := ""
	if l.Spec.HolderIdentity != nil {
		id = *l.Spec.HolderIdentity
	}
	if id == "" || id == s.opts.Identity || l.Name != s.opts.Group+"-"+id {
		// Released, ours under another name, or not a member's Lease.
		return
	}
	if deleted {
		delete(s.members, id)
		s.recomputeLocked()
		return
	}
	m := s.members[id]
	if m == nil {
		m = &member{}
		s.members[id] = m
	}
	if m.rv != l.ResourceVersion {
		// Expiry is judged by when this replica saw the Lease change, not
		// by the holder's renewTime: clocks of different machines need not
		// agree (client-go leaderelection's observedTime).
		m.rv, m.seenAt = l.ResourceVersion, time.Now()
	}
	m.dur = time.Second
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d > 1 {
		m.dur = time.Duration(*d) * time.Second
	}
	prev := m.view
	m.view = l.Annotations[ViewAnnotation]
	if s.marked != "" && s.marked == s.published {
		m.acked = m.view == s.published && m.rv != m.markRV
	}
	if m.view != prev && m.view == s.target.id {
		// It moved to our view after we did, or before our write lands:
		// our next write is its ack; make it soon.
		s.ackWrite = true
		poke(s.wakeWriter)
	}
	s.recomputeLocked()
}

// markLocked records that the watch has passed our publication of
// published: acks count from here.
func (s *Shard) markLocked() {
	s.marked = s.published
	for _, m := range s.members {
		m.acked, m.markRV = false, m.rv
	}
}

// loop re-evaluates the membership when a Lease may have expired or the
// renew deadline may have passed.
func (s *Shard) loop(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.mu.Lock()
		next := s.recomputeLocked()
		s.mu.Unlock()
		t.Reset(time.Until(next))
		select {
		case <-ctx.Done():
			return
		case <-s.wakeLoop:
		case <-t.C:
		}
	}
}

// recomputeLocked brings target, shrinks and grown up to date with what has
// been observed, and returns when it must run again (the next expiry).
func (s *Shard) recomputeLocked() time.Time {
	now := time.Now()
	next := now.Add(time.Hour)
	selfDeadline := s.lastRenew.Add(s.opts.RenewDeadline)
	selfLive := !s.lastRenew.IsZero() && now.Before(selfDeadline) && !s.stopping
	if selfLive && selfDeadline.Before(next) {
		next = selfDeadline
	}
	if !selfLive && (s.grown != nil || s.marked != "") {
		if s.grown != nil && !s.stopping {
			s.logger.Info("renew deadline passed: owning nothing until the Lease is renewed and a handover completes",
				"renewDeadline", s.opts.RenewDeadline)
		}
		// Our Lease may have expired for the others: nothing we published
		// before counts any more.
		s.grown, s.shrinks = nil, nil
		s.marked, s.published, s.pubRVs = "", "", nil
		s.storeLocked()
		s.cancelInflight()
	}
	ids := []string{s.opts.Identity}
	for id, m := range s.members {
		if exp := m.seenAt.Add(m.dur); m.live(now) {
			ids = append(ids, id)
			if exp.Before(next) {
				next = exp
			}
		}
	}
	if v := newView(ids); v.id != s.target.id {
		s.logger.V(2).Info("membership changed", "members", len(v.members), "view", v.id)
		s.target = v
		if s.grown != nil {
			// Drop at once what the new view gives to others.
			s.shrinks = append(s.shrinks, v)
			s.storeLocked()
		}
		s.refreshSelectorLocked() // before the gain below: widen first
		poke(s.wakeWriter)
	}
	if selfLive && s.leasesSynced && s.published == s.target.id && s.marked == s.published && s.ackedLocked(now) &&
		(s.grown == nil || s.grown.id != s.target.id || len(s.shrinks) > 0) {
		v := s.target
		s.grown, s.shrinks = &v, nil
		s.storeLocked()
		s.logger.V(2).Info("handover complete: acting on the new membership", "members", len(v.members), "view", v.id)
		select {
		case <-s.synced:
		default:
			close(s.synced)
		}
	}
	return next
}

// ackedLocked reports whether every other member of target has published
// target after our mark (members that expired have left target already).
func (s *Shard) ackedLocked(now time.Time) bool {
	for _, id := range s.target.members {
		if id == s.opts.Identity {
			continue
		}
		m := s.members[id]
		if m == nil || !m.live(now) || !m.acked || m.view != s.target.id {
			return false
		}
	}
	return true
}

// storeLocked publishes the assignment for Owns and tells the filters.
func (s *Shard) storeLocked() {
	s.refreshLocked()
	poke(s.wakeReplay)
	poke(s.wakeWriter) // a drain may now be complete, or a write due
}

// refreshLocked publishes the assignment for Owns, valid until the renew
// deadline of the last successful write.
func (s *Shard) refreshLocked() {
	s.asg.Store(&assignment{self: s.opts.Identity, byUID: s.opts.ByUID, grown: s.grown, shrinks: slices.Clone(s.shrinks),
		until: s.lastRenew.Add(s.opts.RenewDeadline)})
	s.refreshSelectorLocked()
}

// writer creates and renews the Lease, and publishes a new view once no
// reconcile of a key the view gives away is still running.
func (s *Shard) writer(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	renewDue := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			renewDue = true
		case <-s.wakeWriter:
		}
		s.mu.Lock()
		want, pub, ack := s.target.id, s.published, s.ackWrite
		s.mu.Unlock()
		publish := want != pub && s.idleExceptOwned()
		if !renewDue && !publish && !ack {
			continue
		}
		if !publish {
			want = pub
		}
		if err := s.write(ctx, want); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.lastErr.Store(&err)
			s.logger.Error(err, "renewing the Lease failed", "lease", s.leaseName)
		} else {
			s.lastErr.Store(nil)
			renewDue = false
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(s.opts.RetryPeriod)
		poke(s.wakeLoop)
	}
}

// write writes the Lease carrying view id want. A write that fails may still
// have reached the server, so published is set before it is sent.
func (s *Shard) write(ctx context.Context, want string) error {
	start := time.Now()
	s.mu.Lock()
	if want != s.published {
		s.published, s.pubRVs, s.marked = want, nil, ""
	}
	base := s.lease
	deadline := s.lastRenew.Add(s.opts.RenewDeadline)
	s.ackWrite = false
	s.mu.Unlock()
	if base == nil || !deadline.After(start) {
		deadline = start.Add(s.opts.RenewDeadline)
	}
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	got, err := s.put(wctx, base, want, start)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lease, s.lastRenew = got, start
	s.refreshLocked() // Owns is valid until the new deadline
	if s.published == want {
		s.pubRVs = append(s.pubRVs, got.ResourceVersion)
		if s.marked != s.published && s.selfSeenRV == got.ResourceVersion {
			s.markLocked()
		}
	}
	s.recomputeLocked()
	return nil
}

// put creates or updates the Lease from base (nil: unknown).
func (s *Shard) put(ctx context.Context, base *coordinationv1.Lease, view string, now time.Time) (*coordinationv1.Lease, error) {
	c := s.opts.Leases
	for attempt := 0; ; attempt++ {
		if base == nil {
			cur, err := c.Get(ctx, s.leaseName)
			switch {
			case isNotFound(err):
				created, err := c.Create(ctx, s.desired(nil, view, now))
				if isAlreadyExists(err) && attempt == 0 {
					continue
				}
				return created, err
			case err != nil:
				return nil, err
			}
			base = cur
		}
		updated, err := c.Update(ctx, s.desired(base, view, now))
		if (isConflict(err) || isNotFound(err)) && attempt == 0 {
			base = nil // read it again (or create it) once
			continue
		}
		return updated, err
	}
}

// desired is the Lease this replica writes, from base (nil: a new one).
func (s *Shard) desired(base *coordinationv1.Lease, view string, now time.Time) *coordinationv1.Lease {
	l := new(coordinationv1.Lease)
	if base != nil {
		l = base.DeepCopy()
	}
	l.Name = s.leaseName
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[GroupLabel] = s.opts.Group
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[ViewAnnotation] = view
	id := s.opts.Identity
	dur := int32(s.opts.LeaseDuration / time.Second)
	mt := metaMicroTime(now)
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != id || base == nil {
		l.Spec.AcquireTime = &mt
	}
	l.Spec.HolderIdentity = &id
	l.Spec.LeaseDurationSeconds = &dur
	l.Spec.RenewTime = &mt
	return l
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
