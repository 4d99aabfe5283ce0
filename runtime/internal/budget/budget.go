// Package budget paces the retries of the Reflectors that share a Budget
// (an informer's, one Reflector per namespace): their requests while backing
// off wait for its turns, so the informer as a whole makes about one a
// second. The runtime sets it in settings.Reflector.Budget; see Budget.
package budget

import (
	"sync"
	"time"
)

// DefaultInterval is a Budget's interval unless New is given another: one
// request a second.
const DefaultInterval = time.Second

// Budget is the request budget of the Reflectors that share it
// (settings.Reflector.Budget): an informer's, whose Reflectors (one per
// namespace of a multi-namespace informer) all use one Budget, so that the informer as a
// whole, not each of its Reflectors, is held to it. A Reflector without one
// makes its own.
//
// A Budget hands out turns, at least its interval apart across all the
// Reflectors sharing it. A Reflector waits for a turn before every request
// it makes while it is backing off, that is from a failure (a failed
// request, a refused event or LIST, a watch that closed within a second:
// see reflector.Options.InitialBackoff) until a watch stays open a second
// and ends without a refused event: the retry after the failure (the turn is then
// the later of the next free turn and the end of the Reflector's own
// backoff step), and the watch that follows a LIST while it is backing off.
// It also waits for a turn before resuming a watch that the server closed
// cleanly after less than a minute (at once unless the turns are taken).
// So whatever the server sends and however many of the Reflectors fail,
// they make at most one such request per interval between them. Requests
// that follow success take no turn and go at once: a Reflector's first sync
// and the watch that follows it (the first watch after the initial LIST
// takes no turn even while backing off: it decides whether the Reflector
// is synced, see package reflector, "Synced"), resuming a watch that
// stayed open a minute (the server's timeout, a restart) and relisting
// after one, so a healthy
// namespace's long-lived watch is never stopped or delayed by the others'
// failures. A LIST counts as one request however many pages it has.
//
// Waits stay bounded: no wait exceeds max(MaxBackoff, n·interval) for n
// Reflectors sharing the Budget (2s with the defaults and one or two
// Reflectors), so after a fault of any length every Reflector has retried
// within that bound. To keep the turns of two or more Reflectors within
// it, each one's own backoff step is capped at max(interval, MaxBackoff −
// (n−1)·interval). A 429's Retry-After is honoured exactly, whatever the
// turns; the turn it takes counts. Reflectors with different MaxBackoffs
// sharing a Budget are each bounded by their own.
//
// Safe for concurrent use. The zero value is not usable: use New.
type Budget struct {
	interval time.Duration

	mu    sync.Mutex
	next  time.Time // the earliest start of the next turn
	users int       // Reflectors sharing it (each joins when made)
}

// New returns a Budget of one request per interval (0 means
// DefaultInterval) for the Reflectors given it in settings.Reflector.Budget.
func New(interval time.Duration) *Budget {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Budget{interval: interval}
}

// Interval returns the Budget's interval: the least time between two turns.
func (b *Budget) Interval() time.Duration { return b.interval }

// Join counts one more Reflector sharing b.
func (b *Budget) Join() {
	b.mu.Lock()
	b.users++
	b.mu.Unlock()
}

// Sharers returns how many Reflectors share b (at least 1).
func (b *Budget) Sharers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(b.users, 1)
}

// Ceiling is the longest a Reflector whose MaxBackoff is maxBackoff waits:
// max(maxBackoff, n·interval).
func (b *Budget) Ceiling(maxBackoff time.Duration) time.Duration {
	return max(maxBackoff, time.Duration(b.Sharers())*b.interval)
}

// StepCap is the cap on a Reflector's own backoff step (for MaxBackoff
// maxBackoff) that keeps the turns of n Reflectors within ceiling:
// max(interval, maxBackoff − (n−1)·interval), or maxBackoff alone.
func (b *Budget) StepCap(maxBackoff time.Duration) time.Duration {
	n := b.Sharers()
	if n == 1 {
		return maxBackoff
	}
	return max(b.interval, maxBackoff-time.Duration(n-1)*b.interval)
}

// Reserve books the turn of a retry whose own backoff ends at earliest,
// asked at now: the later of earliest and the next free turn, but no later
// than now+ceiling. It returns when the retry may start.
func (b *Budget) Reserve(now, earliest time.Time, ceiling time.Duration) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	at := earliest
	if b.next.After(at) {
		at = b.next
	}
	if lim := now.Add(ceiling); at.After(lim) {
		at = lim
	}
	b.next = later(b.next, at).Add(b.interval)
	return at
}

// Exact books the turn of a retry that must start at at (a 429's
// Retry-After): it counts like any other.
func (b *Budget) Exact(at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next = later(b.next, at).Add(b.interval)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
