// Package relist holds Trigger, which tells Reflectors that the ListOptions
// their ListerWatcher sends have changed (reflector.Options.Relist), and
// Mark, which a Reflector with one hands its Sink after each sync.
package relist

import "sync"

// Trigger tells Reflectors that the ListOptions their ListerWatcher
// sends have changed (a selector computed on every request, as a
// ListerWatcher's Tweak can): a watch cannot change its selector, and
// resuming it from the last resourceVersion with a wider one would miss the
// objects that only the new selector admits, so each Reflector using the
// trigger (reflector.Options.Relist) stops its watch and lists again. One trigger can
// serve any number of Reflectors. The zero value is not usable: use
// NewTrigger.
type Trigger struct {
	mu  sync.Mutex
	c   chan struct{}
	gen uint64 // how many times it fired
}

// NewTrigger returns a trigger that has not fired.
func NewTrigger() *Trigger { return &Trigger{c: make(chan struct{})} }

// Fire makes every Reflector using t whose last LIST (or WatchList) started
// before this call relist: it stops its open watch (or, between watches, does
// not open one) and syncs again, so its next requests see whatever changed
// before Fire. A Reflector that is listing when Fire is called lists once
// more after that list. Firing many times before a Reflector gets to it
// causes one relist. It returns the trigger's new generation (how many
// times it has fired): a Reflector's sync that began after this call carries
// a Mark of at least that generation. Safe for concurrent use; never blocks.
func (t *Trigger) Fire() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	close(t.c)
	t.c = make(chan struct{})
	t.gen++
	return t.gen
}

// ArmedAt returns a channel closed at the next Fire (nil, never ready, for
// a nil trigger, so a Reflector without one pays nothing) and the
// generation the trigger is at (how many times it has fired): what a sync
// that begins now has seen.
func (t *Trigger) ArmedAt() (<-chan struct{}, uint64) {
	if t == nil {
		return nil, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c, t.gen
}

// Armer is what reflector.Options.Relist holds: a *Trigger (a shard's), or
// any other value with its ArmedAt. Its dynamic type must be comparable
// (Marks of one trigger are told apart from another's by ==).
type Armer interface {
	ArmedAt() (fired <-chan struct{}, gen uint64)
}

// Mark says, in an informer's event stream, that a Reflector using Trigger
// has applied a sync (a LIST, or a WatchList's initial events) that began
// at generation Gen: every event that sync caused (the objects it found,
// the tombstones of those it did not) comes before the Mark, so a handler
// that gets a Mark of generation g has been told everything a list made
// with the options of generation g changed. Source is the namespace of the
// Reflector in a multi-namespace informer (each has its own syncs), "" for
// the only one.
type Mark struct {
	Trigger Armer
	Gen     uint64
	Source  string
}

// Listener is implemented by informer handlers that want Marks: the
// informer calls Listed in order with the handler's other calls, after the
// events of the sync the Mark describes (and, for a handler registered
// later, after the synthetic adds of what is cached, with the last Mark of
// each Source). Handlers that do not implement it get none.
type Listener interface {
	Listed(Mark)
}

// Fired reports whether c (from ArmedAt) is closed.
func Fired(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
