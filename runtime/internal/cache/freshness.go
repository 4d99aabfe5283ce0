package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// Freshness: the resourceVersion the cache has applied, and callbacks
// waiting for it to reach a given one.
//
// The writer (the informer) calls Writer.SetResourceVersion after the
// writes of a list, a watch event or a bookmark have been made visible to
// readers, so the resourceVersion a reader sees is never ahead of what its
// Get and List return: a read made after ResourceVersion returned r sees
// every change the server made up to r (for a partitioned cache, in that
// namespace; see Options.Namespaces).
//
// resourceVersions are compared only as KEP-5504 defines it
// (k8s.io/apimachinery/pkg/util/resourceversion.CompareResourceVersion): both
// must be well-formed decimal integers without leading zeros; anything else is
// not comparable, which every method reports as an error wrapping
// ErrNotComparable rather than guessing an order.

// ErrNotComparable is wrapped by the errors of freshness methods when a
// resourceVersion (the one asked about, or the cache's) is not a well-formed
// KEP-5504 resourceVersion, so no order between the two can be known.
var ErrNotComparable = errors.New("resourceVersions not comparable")

// ErrUnknownNamespace is wrapped by the errors of freshness methods of a
// partitioned cache (Options.Namespaces) asked about a namespace it does not
// hold.
var ErrUnknownNamespace = errors.New("namespace not held by the cache")

// CompareResourceVersions compares two resourceVersions of the same resource
// as KEP-5504 defines it: -1 when a is older than b, 0 when equal, +1 when
// newer. It returns an error wrapping ErrNotComparable when either is not a
// well-formed resourceVersion (empty, not decimal, leading zeros, "0").
func CompareResourceVersions(a, b string) (int, error) {
	c, err := resourceversion.CompareResourceVersion(a, b)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNotComparable, err)
	}
	return c, nil
}

// freshness is the applied resourceVersion per partition and the waiters.
type freshness struct {
	mu    sync.Mutex
	parts map[string]int // namespace -> index in rvs; nil when unpartitioned
	names []string       // partition names, by index (nil when unpartitioned)
	rvs   []string       // applied resourceVersion per partition ("" = none yet)
	// waiters by partition index; whole holds waiters of the whole cache
	// (namespace "" of a partitioned cache). A waiter is removed when it
	// fires or is stopped.
	waiters [][]*rvWaiter
	whole   []*rvWaiter
	nwait   int
}

type rvWaiter struct {
	rv   string
	fn   func()
	part int // -1: whole cache
	done bool
}

func (f *freshness) init(namespaces []string) {
	if len(namespaces) == 0 {
		f.rvs = make([]string, 1)
		f.waiters = make([][]*rvWaiter, 1)
		return
	}
	f.parts = make(map[string]int, len(namespaces))
	f.names = append([]string(nil), namespaces...)
	for n, ns := range namespaces {
		f.parts[ns] = n
	}
	f.rvs = make([]string, len(namespaces))
	f.waiters = make([][]*rvWaiter, len(namespaces))
}

// partLocked returns the partition of namespace ns: 0 when unpartitioned,
// -1 for the whole of a partitioned cache (ns "").
func (f *freshness) partLocked(ns string) (int, error) {
	if f.parts == nil {
		return 0, nil
	}
	if ns == "" {
		return -1, nil
	}
	p, ok := f.parts[ns]
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrUnknownNamespace, ns)
	}
	return p, nil
}

// rvLocked returns the applied resourceVersion of partition p (-1: the
// oldest of all partitions, "" until each has one). It returns an error
// wrapping ErrNotComparable when two partitions' are not comparable.
func (f *freshness) rvLocked(p int) (string, error) {
	if p >= 0 {
		return f.rvs[p], nil
	}
	oldest := ""
	for n, rv := range f.rvs {
		if rv == "" {
			return "", nil
		}
		if n == 0 {
			oldest = rv
			continue
		}
		c, err := CompareResourceVersions(rv, oldest)
		if err != nil {
			return "", fmt.Errorf("namespaces %q and %q: %w", f.names[0], f.names[n], err)
		}
		if c < 0 {
			oldest = rv
		}
	}
	return oldest, nil
}

// reachedLocked reports whether partition p has applied rv.
func (f *freshness) reachedLocked(p int, rv string) (bool, error) {
	have, err := f.rvLocked(p)
	if err != nil {
		return false, err
	}
	if have == "" {
		return false, nil // nothing applied yet: not reached, and not an error
	}
	c, err := CompareResourceVersions(have, rv)
	if err != nil {
		return false, err
	}
	return c >= 0, nil
}

// ResourceVersion returns the resourceVersion of the last list, event or
// bookmark applied to the cache, "" before the first. It is never ahead of
// what reads return: once it returned r, Get, List and every index read see
// every change the server made up to r. For a cache partitioned by namespace
// (Options.Namespaces) it is the oldest of the namespaces' (each namespace
// is listed and watched on its own, so only the oldest bounds them all), ""
// until every namespace has one or when two are not comparable (see
// NamespaceResourceVersion). Safe for concurrent use; never blocks on
// readers.
func (i *Cache) ResourceVersion() string {
	f := &i.fresh
	f.mu.Lock()
	defer f.mu.Unlock()
	p, _ := f.partLocked("")
	rv, _ := f.rvLocked(p)
	return rv
}

// NamespaceResourceVersion returns the resourceVersion the cache has applied
// for namespace ns: for a cache partitioned by namespace, that namespace's
// (ns "" is ResourceVersion; a namespace the cache does not hold returns
// ""); otherwise the cache's, whatever ns. Same guarantee as
// ResourceVersion, for the objects of ns. Safe for concurrent use.
func (i *Cache) NamespaceResourceVersion(ns string) string {
	f := &i.fresh
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.partLocked(ns)
	if err != nil {
		return ""
	}
	rv, _ := f.rvLocked(p)
	return rv
}

// HasReached reports whether the cache has applied resourceVersion rv for
// namespace ns (see NamespaceResourceVersion; "" is the whole cache): a read
// made after it returned true sees every change up to rv. It is false
// without error before the cache has applied anything. It returns an error
// wrapping ErrNotComparable when rv or the cache's resourceVersion is not a
// well-formed one, and one wrapping ErrUnknownNamespace for a namespace a
// partitioned cache does not hold. Safe for concurrent use.
func (i *Cache) HasReached(ns, rv string) (bool, error) {
	f := &i.fresh
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.partLocked(ns)
	if err != nil {
		return false, err
	}
	return f.reachedLocked(p, rv)
}

// AfterResourceVersion arranges for fn to be called once the cache has
// applied rv for namespace ns (as HasReached). When it has already, it
// returns waiting false and fn is never called. Otherwise it returns waiting
// true and fn will be called exactly once, on the writer's goroutine right
// after the write that reaches rv is visible to readers, unless stop (which
// reports whether it prevented the call, as context.AfterFunc's stop does) is
// called first. fn must be quick and must not block (queue a key, close a
// channel): the cache's writer waits for it. Nothing runs meanwhile: no
// goroutine, no timer. An rv that is not comparable (ErrNotComparable) or a
// namespace the cache does not hold (ErrUnknownNamespace) is an error and
// registers nothing. Safe for concurrent use.
func (i *Cache) AfterResourceVersion(ns, rv string, fn func()) (waiting bool, stop func() bool, err error) {
	if _, err := CompareResourceVersions(rv, rv); err != nil {
		return false, nil, err
	}
	f := &i.fresh
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.partLocked(ns)
	if err != nil {
		return false, nil, err
	}
	reached, err := f.reachedLocked(p, rv)
	if err != nil || reached {
		return false, nil, err
	}
	w := &rvWaiter{rv: rv, fn: fn, part: p}
	if p < 0 {
		f.whole = append(f.whole, w)
	} else {
		f.waiters[p] = append(f.waiters[p], w)
	}
	f.nwait++
	return true, func() bool { return f.stop(w) }, nil
}

func (f *freshness) stop(w *rvWaiter) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.done {
		return false
	}
	w.done = true
	list := &f.whole
	if w.part >= 0 {
		list = &f.waiters[w.part]
	}
	for n, x := range *list {
		if x == w {
			last := len(*list) - 1
			(*list)[n] = (*list)[last]
			(*list)[last] = nil
			*list = (*list)[:last]
			break
		}
	}
	f.nwait--
	return true
}

// WaitForResourceVersion blocks until the cache has applied rv for namespace
// ns (as HasReached), and returns nil then, or ctx's error once ctx ends
// first. It starts no goroutine and does not poll: the write that reaches
// rv wakes it. It returns an error at once when rv is not comparable
// (ErrNotComparable) or ns is a namespace a partitioned cache does not hold
// (ErrUnknownNamespace). Safe for concurrent use.
func (i *Cache) WaitForResourceVersion(ctx context.Context, ns, rv string) error {
	ch := make(chan struct{})
	waiting, stop, err := i.AfterResourceVersion(ns, rv, func() { close(ch) })
	if err != nil || !waiting {
		return err
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		if stop() {
			return fmt.Errorf("waiting for the cache to reach resourceVersion %s: %w", rv, context.Cause(ctx))
		}
		return nil // reached meanwhile
	}
}

// SetResourceVersion records that the cache now holds every change up to
// resourceVersion rv for namespace ns (a partition of Options.Namespaces;
// ignored when the cache is not partitioned), and calls the waiters it
// satisfies, on the calling goroutine. Call it after the writes it covers
// (a list, an event, a bookmark), never before. An rv older than the one
// recorded is ignored; an rv not comparable with it (or "") replaces it when
// not empty, so that later comparisons report ErrNotComparable rather than
// a stale answer. It returns an error wrapping ErrUnknownNamespace for a
// namespace a partitioned cache does not hold. When nobody waits, it takes
// one uncontended lock and allocates nothing.
func (w *Writer) SetResourceVersion(ns, rv string) error {
	if rv == "" {
		return nil
	}
	f := &w.ix.fresh
	f.mu.Lock()
	p := 0
	if f.parts != nil {
		var ok bool
		if p, ok = f.parts[ns]; !ok {
			f.mu.Unlock()
			return fmt.Errorf("%w: %q", ErrUnknownNamespace, ns)
		}
	}
	if cur := f.rvs[p]; cur != "" {
		if c, err := CompareResourceVersions(rv, cur); err == nil && c <= 0 {
			f.mu.Unlock()
			return nil
		}
	}
	f.rvs[p] = rv
	if f.nwait == 0 {
		f.mu.Unlock()
		return nil
	}
	fire := f.takeReachedLocked(p)
	f.mu.Unlock()
	for _, fn := range fire {
		fn()
	}
	return nil
}

// takeReachedLocked removes the waiters of partition p and of the whole
// cache that are now satisfied and returns their funcs. A waiter whose
// comparison fails stays (the rv recorded may move to a comparable one).
func (f *freshness) takeReachedLocked(p int) []func() {
	var fire []func()
	take := func(list []*rvWaiter) []*rvWaiter {
		kept := list[:0]
		for _, w := range list {
			if ok, _ := f.reachedLocked(w.part, w.rv); ok {
				w.done = true
				f.nwait--
				fire = append(fire, w.fn)
				continue
			}
			kept = append(kept, w)
		}
		clear(list[len(kept):])
		return kept
	}
	f.waiters[p] = take(f.waiters[p])
	if len(f.whole) > 0 {
		f.whole = take(f.whole)
	}
	return fire
}
