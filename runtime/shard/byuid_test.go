package shard_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/shard"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// shardingSource serves src as an API server with ShardedListAndWatch
// does: tweak sets each request's shardSelector, and only objects whose uid
// hash falls in its ranges are listed or watched.
type shardingSource struct {
	src   *runtimetest.Source[*obj]
	tweak func(*metav1.ListOptions)
	// ignore serves everything whatever the selector, as a server
	// without the ShardedListAndWatch gate does.
	ignore bool
}

// matcher parses sel ("" selects everything) with apimachinery's matcher.
func matcher(t *testing.T, sel string) func(*obj) bool {
	if sel == "" {
		return func(*obj) bool { return true }
	}
	var reqs []sharding.ShardRangeRequirement
	for _, part := range strings.Split(sel, " || ") {
		f := strings.Split(part, "'")
		if len(f) != 5 {
			t.Errorf("unparsable selector %q", sel)
			return func(*obj) bool { return false }
		}
		reqs = append(reqs, sharding.ShardRangeRequirement{Key: "object.metadata.uid", Start: f[1], End: f[3]})
	}
	m := sharding.NewSelector(reqs...)
	return func(o *obj) bool {
		ok, err := m.Matches(o)
		return ok && err == nil
	}
}

func (l *shardingSource) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[*obj], error) {
	l.tweak(&opts)
	match := matcher(nil, opts.ShardSelector)
	if l.ignore {
		match = matcher(nil, "")
	}
	res, err := l.src.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	var items []*obj
	for _, o := range res.Items {
		if match(o) {
			items = append(items, o)
		}
	}
	res.Items = items
	return res, nil
}

func (l *shardingSource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	l.tweak(&opts)
	match := matcher(nil, opts.ShardSelector)
	if l.ignore {
		match = matcher(nil, "")
	}
	w, err := l.src.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if o, ok := ev.Object.(*obj); ok && ev.Type != watch.Bookmark && ev.Type != watch.Error {
			return ev, match(o)
		}
		return ev, true
	}), nil
}

// uidReplica is a replica with a server-side sharded informer.
type uidReplica struct {
	s      *shard.Shard
	inf    *informer.Informer[*obj]
	told   *told
	raw    *told // the informer's events, unfiltered
	cancel context.CancelFunc
	wg     sync.WaitGroup
	run    func() // starts s.Run
}

// TestByUIDServerSideSharding runs three replicas whose informers watch
// only their shard through a sharding source: each cache holds exactly the
// objects its replica owns (disjoint, adding up to all), a join and a leave
// re-shard without any key reconciled by two replicas at once, and the
// relists that narrow a selector never reach the handlers as deletions.
func TestByUIDServerSideSharding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 0)
		objs := runtimetest.NewSource[*obj](runtimetest.SourceOptions{})
		var keys []string
		for i := range 300 {
			o := &obj{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("o-%d", i),
				UID: types.UID(fmt.Sprintf("6b1d%04x-5c3e-4e4f-9a7b-%012x", i, i*7919))}}
			if _, err := objs.Add(o); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, store.Key(o))
		}
		c.keys = keys
		reps := map[string]*uidReplica{}
		startLocked := func(id string) *uidReplica {
			opts := c.options(id)
			opts.ByUID = true
			s, err := shard.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			r := &uidReplica{s: s, told: newTold(), raw: newTold()}
			r.inf = informer.New[*obj](&shardingSource{src: objs, tweak: s.Tweak},
				informer.Options[*obj]{Reflector: reflector.Options{Relist: s.RelistTrigger()}})
			if _, err := r.inf.AddHandler(shard.Filter(s, r.told.handler()), informer.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := r.inf.AddHandler(r.raw.handler(), informer.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			r.cancel = cancel
			r.run = func() { r.wg.Go(func() { _ = s.Run(ctx) }) }
			r.wg.Go(func() { _ = r.inf.Run(ctx) })
			reconcile := s.Reconciler(func(ctx context.Context, key string) error {
				c.enter(key, id)
				defer c.exit(key, id)
				select {
				case <-time.After(200 * time.Millisecond):
				case <-ctx.Done():
				}
				return nil
			})
			r.wg.Go(func() {
				for ctx.Err() == nil {
					for _, k := range keys {
						_ = reconcile(ctx, k)
					}
					select {
					case <-ctx.Done():
					case <-time.After(100 * time.Millisecond):
					}
				}
			})
			reps[id] = r
			return r
		}
		// converged: every replica acts on the same membership, every key
		// is owned by exactly one, and each cache holds exactly its owned
		// objects.
		converged := func() error {
			total := 0
			for id, r := range reps {
				if r.s.ServerIgnoresSelector() {
					t.Fatalf("%s believes the server ignores its selector; it does not", id)
				}
				if len(r.s.Members()) != len(reps) {
					return fmt.Errorf("%s acts on %v", id, r.s.Members())
				}
				cached := r.inf.Indexer().List()
				for _, o := range cached {
					if !r.s.OwnsUID(o.UID) {
						return fmt.Errorf("%s caches %s, which it does not own", id, store.Key(o))
					}
				}
				total += len(cached)
			}
			if total != len(keys) {
				return fmt.Errorf("caches hold %d objects in all, want %d", total, len(keys))
			}
			for _, k := range keys {
				var owners []string
				for id, r := range reps {
					if r.s.Owns(k) {
						owners = append(owners, id)
					}
				}
				if len(owners) != 1 {
					return fmt.Errorf("key %s owned by %v", k, owners)
				}
			}
			return nil
		}
		wait := func(what string) {
			t.Helper()
			deadline := time.Now().Add(2 * time.Minute)
			for {
				synctest.Wait()
				err := converged()
				if err == nil {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: %v", what, err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}

		// The selector always covers what the replica owns: checked every
		// 10ms of fake time through every handover.
		var repMu sync.Mutex
		checkCtx, stopCheck := context.WithCancel(t.Context())
		var checker sync.WaitGroup
		checker.Go(func() {
			all := objs.Snapshot()
			for checkCtx.Err() == nil {
				repMu.Lock()
				for id, r := range reps {
					match := matcher(t, r.s.Selector())
					for _, o := range all {
						if r.s.OwnsUID(o.UID) && !match(o) {
							t.Errorf("%s owns %s but its selector does not select it", id, store.Key(o))
						}
					}
				}
				repMu.Unlock()
				select {
				case <-checkCtx.Done():
				case <-time.After(10 * time.Millisecond):
				}
			}
		})
		defer checker.Wait()
		defer stopCheck()
		start := func(id string) {
			repMu.Lock()
			defer repMu.Unlock()
			startLocked(id).run()
		}
		// join starts a replica's informer, and its shard once the
		// informer has listed: the first list has the selector of a lone
		// member (everything), so the membership the shard then learns
		// narrows it and the relist removes objects from the cache, which
		// the checks below need of every replica. (Started together, the
		// shard may have seen every Lease before the informer lists: its
		// first list is then already narrow, and a replica that only
		// joins, as d does, never sees a narrowing relist.)
		join := func(id string) {
			repMu.Lock()
			r := startLocked(id)
			repMu.Unlock()
			select {
			case <-r.inf.Synced():
			case <-time.After(time.Minute):
				t.Fatalf("%s: informer not synced within a minute of fake time: %v", id, r.inf.LastError())
			}
			r.run()
		}
		stop := func(id string) {
			repMu.Lock()
			r := reps[id]
			delete(reps, id)
			repMu.Unlock()
			r.cancel()
			r.wg.Wait()
		}
		defer func() {
			for id := range reps {
				stop(id)
			}
		}()

		start("a")
		start("b")
		start("c")
		wait("three replicas")
		sizes := map[string]int{}
		for id, r := range reps {
			sizes[id] = len(r.inf.Indexer().List())
			if sizes[id] < 60 || sizes[id] > 140 {
				t.Errorf("%s caches %d of 300 objects, want about a third", id, sizes[id])
			}
		}
		t.Logf("cache sizes with three replicas: %v", sizes)
		time.Sleep(time.Second) // a round of reconciles
		c.mu.Lock()
		for id := range reps {
			if c.reconciled[id] == 0 {
				t.Errorf("%s reconciled nothing", id)
			}
		}
		c.mu.Unlock()

		join("d")
		wait("join of d")
		stop("b")
		wait("leave of b")

		// An update reaches exactly the owner (relists tell of updates too:
		// count from here).
		updates := func(k string) int {
			n := 0
			for _, r := range reps {
				n += r.told.count(func(r *told) map[string]int { return r.updates }, k)
			}
			return n
		}
		before := map[string]int{}
		for _, k := range keys {
			before[k] = updates(k)
		}
		for _, k := range keys {
			o, _ := objs.Get(k)
			o.Labels = map[string]string{"touched": "1"}
			if _, err := objs.Update(o); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		for _, k := range keys {
			if n := updates(k) - before[k]; n != 1 {
				t.Errorf("update of %s told to %d replicas, want 1", k, n)
			}
		}
		// Every replica's selector narrowed at least once (a join), and
		// those relists removed objects from caches (the unfiltered
		// handlers heard of them): none of it reached a filtered handler
		// as a deletion.
		sels := map[string]bool{}
		for _, req := range objs.Requests() {
			sels[req.Options.ShardSelector] = true
		}
		if len(sels) < 5 {
			t.Errorf("%d distinct shard selectors requested, want the selectors of several memberships", len(sels))
		}
		for id, r := range reps {
			raw := 0
			for _, k := range keys {
				raw += r.raw.count(func(r *told) map[string]int { return r.deletes }, k)
			}
			if raw == 0 {
				t.Errorf("%s: no relist removed an object from its cache; the test proves nothing", id)
			}
			t.Logf("%s: %d objects left its cache by relists", id, raw)
			for _, k := range keys {
				if n := r.told.count(func(r *told) map[string]int { return r.deletes }, k); n != 0 {
					t.Errorf("%s told of %d deletes of %s, which was never deleted", id, n, k)
				}
			}
		}
		// A real delete reaches the owner.
		o, _ := objs.Get(keys[0])
		if _, err := objs.Delete(o); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		n := 0
		for _, r := range reps {
			n += r.told.count(func(r *told) map[string]int { return r.deletes }, keys[0])
		}
		if n != 1 {
			t.Errorf("delete of %s told %d times, want 1", keys[0], n)
		}
	})
}

// Against a server that ignores shardSelector, each replica notices objects
// outside its selector, falls back to watching everything (Selector ""),
// and ownership stays exclusive: every update reaches exactly one handler.
func TestByUIDServerIgnoringSelectorFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 0)
		objs := runtimetest.NewSource[*obj](runtimetest.SourceOptions{})
		var keys []string
		for i := range 200 {
			o := &obj{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("o-%d", i),
				UID: types.UID(fmt.Sprintf("uid-%d", i))}}
			if _, err := objs.Add(o); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, store.Key(o))
		}
		type rep struct {
			s    *shard.Shard
			inf  *informer.Informer[*obj]
			told *told
		}
		var reps []*rep
		var wg sync.WaitGroup
		ctx, cancel := context.WithCancel(t.Context())
		defer wg.Wait()
		defer cancel()
		for _, id := range []string{"a", "b"} {
			opts := c.options(id)
			opts.ByUID = true
			s, err := shard.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			r := &rep{s: s, told: newTold()}
			r.inf = informer.New[*obj](&shardingSource{src: objs, tweak: s.Tweak, ignore: true},
				informer.Options[*obj]{Reflector: reflector.Options{Relist: s.RelistTrigger()}})
			if _, err := r.inf.AddHandler(shard.Filter(s, r.told.handler()), informer.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			wg.Go(func() { _ = s.Run(ctx) })
			wg.Go(func() { _ = r.inf.Run(ctx) })
			reps = append(reps, r)
		}
		touch := func(v string) {
			for _, k := range keys {
				o, _ := objs.Get(k)
				o.Labels = map[string]string{"touched": v}
				if _, err := objs.Update(o); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Objects delivered within LeaseDuration (15s) of the selector
		// that admitted them are not evidence; events after that are.
		time.Sleep(20 * time.Second)
		touch("0")
		deadline := time.Now().Add(time.Minute)
		for {
			synctest.Wait()
			ok := true
			for _, r := range reps {
				ok = ok && len(r.s.Members()) == 2 && r.s.ServerIgnoresSelector() && r.s.Selector() == "" &&
					len(r.inf.Indexer().List()) == len(keys)
			}
			if ok {
				break
			}
			if time.Now().After(deadline) {
				for i, r := range reps {
					t.Logf("replica %d: members %v, ignores %v, selector %d bytes, cached %d",
						i, r.s.Members(), r.s.ServerIgnoresSelector(), len(r.s.Selector()), len(r.inf.Indexer().List()))
				}
				t.Fatal("replicas did not fall back to watching everything")
			}
			time.Sleep(100 * time.Millisecond)
		}
		updates := func(k string) int {
			n := 0
			for _, r := range reps {
				n += r.told.count(func(r *told) map[string]int { return r.updates }, k)
			}
			return n
		}
		before := map[string]int{}
		for _, k := range keys {
			before[k] = updates(k)
			owners := 0
			for _, r := range reps {
				if r.s.Owns(k) {
					owners++
				}
			}
			if owners != 1 {
				t.Errorf("key %s has %d owners, want 1", k, owners)
			}
		}
		touch("1")
		synctest.Wait()
		for _, k := range keys {
			if n := updates(k) - before[k]; n != 1 {
				t.Errorf("update of %s told to %d replicas, want 1", k, n)
			}
		}
	})
}
