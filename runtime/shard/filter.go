package shard

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// replayer is a Filter, as the shard sees it.
type replayer interface {
	replay()
	// uid returns the uid of the object last delivered under key
	// (Options.ByUID only).
	uid(key string) (types.UID, bool)
	// relistedSince reports whether every Reflector feeding the filter's
	// informer that has delivered a sync marked with the shard's trigger
	// has since delivered one of at least generation gen (true when none
	// has: the filter then takes no part).
	relistedSince(gen uint64) bool
}

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
func Filter[T cache.Obj](s *Shard, h informer.Handler[T]) informer.Handler[T] {
	f := &filter[T]{s: s, h: h, seen: map[string]*entry[T]{}}
	if s.opts.ByUID {
		f.uids = map[string]types.UID{}
	}
	s.mu.Lock()
	s.filters = append(s.filters, f)
	snap := slices.Clone(s.filters)
	s.filtersSnap.Store(&snap)
	s.mu.Unlock()
	return f
}

type filter[T cache.Obj] struct {
	s *Shard
	h informer.Handler[T]

	mu   sync.Mutex
	seen map[string]*entry[T]

	// uids maps each key in seen to its object's uid, for Owns under
	// Options.ByUID (nil otherwise); its own lock, so Owns never waits for
	// a handler h is running.
	umu  sync.RWMutex
	uids map[string]types.UID

	// listed is the generation of the last sync each Reflector (by
	// relist.Mark.Source) delivered with the shard's trigger (see Listed).
	lmu    sync.Mutex
	listed map[string]uint64
}

// Listed records that the informer's handlers have been told everything a
// sync made with the shard's selector of generation m.Gen changed: until
// every Reflector has, the shard does not gain keys (see Shard.Selector), so
// that a relist with an older, narrower selector, applied or delivered late,
// cannot tell h that objects it now owns were deleted.
func (f *filter[T]) Listed(m relist.Mark) {
	if m.Trigger == nil || m.Trigger != f.s.relist {
		return
	}
	f.lmu.Lock()
	if f.listed == nil {
		f.listed = map[string]uint64{}
	}
	f.listed[m.Source] = m.Gen // a Reflector's syncs come in order
	f.lmu.Unlock()
	poke(f.s.wakeLoop)
}

func (f *filter[T]) relistedSince(gen uint64) bool {
	f.lmu.Lock()
	defer f.lmu.Unlock()
	for _, g := range f.listed {
		if g < gen {
			return false
		}
	}
	return true
}

func (f *filter[T]) uid(key string) (types.UID, bool) {
	f.umu.RLock()
	defer f.umu.RUnlock()
	uid, ok := f.uids[key]
	return uid, ok
}

// setUID records (or, with del, forgets) key's uid; an object delivered
// is checked against the shard's recent selectors.
func (f *filter[T]) setUID(key string, obj T, del bool) {
	if f.uids == nil {
		return
	}
	if !del {
		f.s.checkSelected(obj.GetUID())
	}
	f.umu.Lock()
	defer f.umu.Unlock()
	if del {
		delete(f.uids, key)
	} else {
		f.uids[key] = obj.GetUID()
	}
}

// owns reports whether the shard owns obj (of key) now.
func (f *filter[T]) owns(key string, obj T) bool {
	return f.s.asg.Load().ownsObj(key, obj.GetUID())
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
	f.setUID(key, obj, false)
	if f.owns(key, obj) {
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
	f.setUID(key, newObj, false)
	switch {
	case !f.owns(key, newObj):
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
	f.setUID(key, obj, true)
	// Under Options.ByUID with a selector, a relist that narrowed it
	// deletes from the cache objects that moved to another replica: they
	// are not owned any more (ownership drops before the selector narrows),
	// so they are not forwarded as deletions.
	if f.owns(key, obj) {
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
		switch owned := a.ownsObj(key, e.obj.GetUID()); {
		case owned && !e.told:
			e.told = true
			f.h.OnAdd(e.obj, false)
		case !owned:
			e.told = false
		}
	}
}
