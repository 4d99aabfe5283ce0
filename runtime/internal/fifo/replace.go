package fifo

import (
	"fmt"
	"slices"
	"strings"
)

// Replace queues one atomic batch for a relist of objs at resourceVersion:
// first a Deleted{FinalStateUnknown: true} tombstone for every key that is
// pending or in Known but absent from objs (carrying the newest pending
// object, else Known's; keys whose newest pending delta is a Deleted get
// none), then a Replaced delta for every object of objs (after Transform,
// except for an object Lookup handed out: see known.go), in order.
// Tombstones are ordered by key. An empty result queues nothing.
//
// The first Replace fixes the initial population: everything queued up to
// and including its batch (see HasSynced). It returns ErrClosed after Close, or the
// first Transform error, in which case nothing is queued.
//
// On a FIFO partitioned by Options.Namespaces it returns ErrPartitioned.
func (f *FIFO[T]) Replace(objs []T, resourceVersion string) error {
	return f.replace(objs, resourceVersion, "")
}

// replace is Replace, confined to namespace ns unless ns is "".
func (f *FIFO[T]) replace(objs []T, resourceVersion, ns string) error {
	if ns == "" && f.partitioned != nil {
		return ErrPartitioned
	}
	deltas := make([]Delta[T], 0, len(objs))
	reusing := f.reused.Load() > 0
	for _, o := range objs {
		key, ok := "", false
		if reusing {
			// Lookup's object, transformed already, is queued as it is.
			key, ok = f.knownAs(o)
		}
		if !ok {
			var err error
			if o, key, err = f.prepare(Replaced, o); err != nil {
				return err
			}
		}
		if ns != "" && !inNamespace(key, ns) {
			return fmt.Errorf("fifo %s: relist of namespace %q holds %s", f.name, ns, key)
		}
		deltas = append(deltas, Delta[T]{Type: Replaced, Key: key, Object: o})
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	knownKeys := f.knownKeys(ns)
	var tombs []Delta[T]
	if len(f.pending) > 0 || len(f.batches) > 0 || len(knownKeys) > 0 {
		// Only a relist over a non-empty state can have vanished keys; the
		// initial list skips building these sets.
		newKeys := make(map[string]struct{}, len(deltas))
		for _, d := range deltas {
			newKeys[d.Key] = struct{}{}
		}
		seen := map[string]struct{}{}
		tombstone := func(key string) {
			if _, ok := newKeys[key]; ok {
				return
			}
			if ns != "" && !inNamespace(key, ns) {
				return // another partition's key
			}
			if _, ok := seen[key]; ok {
				return
			}
			seen[key] = struct{}{}
			t, obj, ok := f.newestLocked(key)
			if !ok {
				// Not pending, so the consumer is not writing it: Get
				// agrees with ListKeys.
				if obj, ok = f.known.Get(key); !ok {
					return
				}
			} else if t == Deleted {
				return
			}
			tombs = append(tombs, Delta[T]{Type: Deleted, Key: key, Object: obj, FinalStateUnknown: true})
		}
		for key := range f.pending {
			tombstone(key)
		}
		for _, b := range f.batches {
			for i := range b.deltas {
				tombstone(b.deltas[i].Key)
			}
		}
		for _, key := range knownKeys {
			tombstone(key)
		}
	}
	all := deltas
	if len(tombs) > 0 {
		slices.SortFunc(tombs, func(a, b Delta[T]) int { return strings.Compare(a.Key, b.Key) })
		all = append(tombs, deltas...)
	}
	if len(all) > 0 {
		rb := &replaceBatch[T]{deltas: all, rv: resourceVersion, ns: ns}
		f.pushLocked(entry[T]{batch: rb})
		rb.seq = f.seq
		f.batches = append(f.batches, rb)
		f.signal()
	}
	if ns != "" {
		delete(f.unreplaced, ns)
	}
	if len(f.unreplaced) == 0 {
		f.markPopulatedLocked()
	}
	return nil
}
