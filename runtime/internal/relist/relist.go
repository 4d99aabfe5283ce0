// Package relist holds Trigger, which tells Reflectors that the ListOptions
// their ListerWatcher sends have changed (reflector.Options.Relist).
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
	mu sync.Mutex
	c  chan struct{}
}

// NewTrigger returns a trigger that has not fired.
func NewTrigger() *Trigger { return &Trigger{c: make(chan struct{})} }

// Fire makes every Reflector using t whose last LIST (or WatchList) started
// before this call relist: it stops its open watch (or, between watches, does
// not open one) and syncs again, so its next requests see whatever changed
// before Fire. A Reflector that is listing when Fire is called lists once
// more after that list. Firing many times before a Reflector gets to it
// causes one relist. Safe for concurrent use; never blocks.
func (t *Trigger) Fire() {
	t.mu.Lock()
	defer t.mu.Unlock()
	close(t.c)
	t.c = make(chan struct{})
}

// Armed returns a channel closed at the next Fire; nil (never ready) for a
// nil trigger, so a Reflector without one pays nothing.
func (t *Trigger) Armed() <-chan struct{} {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c
}

// Fired reports whether c (from Armed) is closed.
func Fired(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
