package shard_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/shard"
	"github.com/informer-gen/informer-gen/runtime/store"
)

type obj = metav1.PartialObjectMetadata

// told records what a filtered handler received.
type told struct {
	mu      sync.Mutex
	adds    map[string]int
	updates map[string]int
	deletes map[string]int
}

func newTold() *told {
	return &told{adds: map[string]int{}, updates: map[string]int{}, deletes: map[string]int{}}
}

func (r *told) handler() informer.Handler[*obj] {
	return informer.HandlerFuncs[*obj]{
		AddFunc: func(o *obj, _ bool) { r.mu.Lock(); r.adds[store.Key(o)]++; r.mu.Unlock() },
		UpdateFunc: func(_, o *obj) {
			r.mu.Lock()
			r.updates[store.Key(o)]++
			r.mu.Unlock()
		},
		DeleteFunc: func(o *obj, _ bool) { r.mu.Lock(); r.deletes[store.Key(o)]++; r.mu.Unlock() },
	}
}

func (r *told) count(m func(*told) map[string]int, key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return m(r)[key]
}

// TestFilterForwardsOwnedAndReplaysGains runs two replicas, each with an
// informer over the same objects and a Filter: each handler hears only of
// its own keys, and the keys a replica gains arrive as synthetic adds.
func TestFilterForwardsOwnedAndReplaysGains(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 0)
		objs := runtimetest.NewSource[*obj](runtimetest.SourceOptions{})
		var keys []string
		for i := range 100 {
			o := &obj{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("o-%d", i)}}
			if _, err := objs.Add(o); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, store.Key(o))
		}
		type rep struct {
			s      *shard.Shard
			told   *told
			cancel context.CancelFunc
			wg     sync.WaitGroup
		}
		start := func(id string) *rep {
			s, err := shard.New(c.options(id))
			if err != nil {
				t.Fatal(err)
			}
			r := &rep{s: s, told: newTold()}
			inf := informer.New[*obj](objs, informer.Options[*obj]{})
			if _, err := inf.AddHandler(shard.Filter(s, r.told.handler()), informer.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			r.cancel = cancel
			r.wg.Go(func() { _ = s.Run(ctx) })
			r.wg.Go(func() { _ = inf.Run(ctx) })
			return r
		}
		stop := func(r *rep) { r.cancel(); r.wg.Wait() }
		waitFor := func(what string, cond func() error) {
			t.Helper()
			deadline := time.Now().Add(time.Minute)
			for {
				err := cond()
				if err == nil {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: %v", what, err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}

		a := start("a")
		defer stop(a)
		// Alone, a owns every key: the initial adds it received before its
		// first handover are replayed then.
		waitFor("a told of every key", func() error {
			for _, k := range keys {
				if n := a.told.count(func(r *told) map[string]int { return r.adds }, k); n != 1 {
					return fmt.Errorf("key %s: %d adds", k, n)
				}
			}
			return nil
		})

		b := start("b")
		waitFor("b owns its share", func() error {
			if len(b.s.Members()) != 2 || len(a.s.Members()) != 2 {
				return fmt.Errorf("members a=%v b=%v", a.s.Members(), b.s.Members())
			}
			return nil
		})
		synctest.Wait()
		bKeys := 0
		for _, k := range keys {
			inB := b.told.count(func(r *told) map[string]int { return r.adds }, k)
			if b.s.Owns(k) {
				bKeys++
				if inB != 1 {
					t.Errorf("b owns %s but was told %d times", k, inB)
				}
			} else if inB != 0 {
				t.Errorf("b was told of %s, which it does not own", k)
			}
		}
		if bKeys == 0 {
			t.Fatal("b owns no key")
		}

		// Updates reach only the owner.
		for _, k := range keys {
			o, _ := objs.Get(k)
			o.Labels = map[string]string{"touched": "1"}
			if _, err := objs.Update(o); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		for _, k := range keys {
			ua := a.told.count(func(r *told) map[string]int { return r.updates }, k)
			ub := b.told.count(func(r *told) map[string]int { return r.updates }, k)
			if ua+ub != 1 || (ub == 1) != b.s.Owns(k) {
				t.Errorf("update of %s: a told %d, b told %d (b owns: %v)", k, ua, ub, b.s.Owns(k))
			}
		}

		// b leaves: a regains b's keys and is told of them again (a second
		// add), with their latest state.
		bOwned := map[string]bool{}
		for _, k := range keys {
			bOwned[k] = b.s.Owns(k)
		}
		stop(b)
		waitFor("a takes b's keys back", func() error {
			for _, k := range keys {
				want := 1
				if bOwned[k] {
					want = 2
				}
				if got := a.told.count(func(r *told) map[string]int { return r.adds }, k); got != want {
					return fmt.Errorf("key %s: %d adds to a, want %d", k, got, want)
				}
			}
			return nil
		})

		// Deletes of owned keys are forwarded.
		o, _ := objs.Get(keys[0])
		if _, err := objs.Delete(o); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := a.told.count(func(r *told) map[string]int { return r.deletes }, keys[0]); n != 1 {
			t.Errorf("delete of owned %s told %d times", keys[0], n)
		}
	})
}
