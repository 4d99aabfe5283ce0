package shard

import (
	"sync"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// replayer is a Filter, as the shard sees it.
type replayer interface{ replay() }

// Filter returns a Handler that forwards to h only the events of keys s
// owns, for informer.AddHandler. When s gains keys (a replica left, or the
// first handover), h gets a synthetic OnAdd(obj, false) for each newly owned
// object, as the filter last received it from the informer; so a controller
// whose handlers enqueue keys reconciles every key it gains without a
// resync. An update of an owned object h has not been told about arrives as
// OnAdd(new, false) (as client-go's FilteringResourceEventHandler does); a
// delete of an owned object is always forwarded. Losing a key is not an
// event: h hears nothing more of it.
//
// h is called from the informer's handler goroutine and, for the synthetic
// adds, from the shard's; never from both at once (a mutex serializes them),
// so h needs no locking of its own, but must not block for long. The filter
// keeps a map from every key the informer delivered to its latest object
// (shared with the cache, not copied): one map entry per cached object.
func Filter[T store.Obj](s *Shard, h informer.Handler[T]) informer.Handler[T] {
	f := &filter[T]{s: s, h: h, seen: map[string]*entry[T]{}}
	s.mu.Lock()
	s.filters = append(s.filters, f)
	s.mu.Unlock()
	return f
}

type filter[T store.Obj] struct {
	s *Shard
	h informer.Handler[T]

	mu   sync.Mutex
	seen map[string]*entry[T]
}

type entry[T any] struct {
	obj  T
	told bool // h has been given this key (and not lost it since)
}

func (f *filter[T]) OnAdd(obj T, initial bool) {
	key := store.Key(obj)
	f.mu.Lock()
	defer f.mu.Unlock()
	e := &entry[T]{obj: obj}
	f.seen[key] = e
	if f.s.Owns(key) {
		e.told = true
		f.h.OnAdd(obj, initial)
	}
}

func (f *filter[T]) OnUpdate(oldObj, newObj T) {
	key := store.Key(newObj)
	f.mu.Lock()
	defer f.mu.Unlock()
	e := f.seen[key]
	if e == nil {
		e = &entry[T]{}
		f.seen[key] = e
	}
	e.obj = newObj
	switch {
	case !f.s.Owns(key):
		e.told = false
	case e.told:
		f.h.OnUpdate(oldObj, newObj)
	default:
		e.told = true
		f.h.OnAdd(newObj, false)
	}
}

func (f *filter[T]) OnDelete(obj T, finalStateUnknown bool) {
	key := store.Key(obj)
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.seen, key)
	if f.s.Owns(key) {
		f.h.OnDelete(obj, finalStateUnknown)
	}
}

// replay delivers synthetic adds for the keys gained since the last call
// and forgets that h was told about the keys lost.
func (f *filter[T]) replay() {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.s.asg.Load()
	for key, e := range f.seen {
		switch owned := a.owns(key); {
		case owned && !e.told:
			e.told = true
			f.h.OnAdd(e.obj, false)
		case !owned:
			e.told = false
		}
	}
}
