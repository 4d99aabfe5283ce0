package fifo

import "github.com/informer-gen/informer-gen/runtime/internal/relist"

// Bookmark queues resourceVersion rv, from a watch BOOKMARK event, in the
// stream: the consumer gets it as Batch.ResourceVersion right after the
// deltas queued before it, so its store records rv only once it has applied
// them (a bookmark must never make the store claim changes it has not
// applied yet). A bookmark right behind another, not yet popped, replaces
// it. It queues no delta (Len does not count it) and returns ErrClosed after
// Close. On a partitioned FIFO it returns ErrPartitioned: a bookmark
// belongs to one namespace and goes through Namespace(ns).Bookmark.
func (f *FIFO[T]) Bookmark(rv string) error {
	if f.partitioned != nil {
		return ErrPartitioned
	}
	return f.bookmark(rv, "")
}

// Bookmark is FIFO.Bookmark for the namespace of the partition.
func (p *Partition[T]) Bookmark(rv string) error { return p.f.bookmark(rv, p.ns) }

// Listed queues m, the Mark of a sync the Reflector feeding this FIFO has
// just applied with Replace, in the stream: the consumer gets it as
// Batch.Listed right after the deltas queued before it (m.Source is set to
// the partition's namespace). Like a Bookmark it queues no delta, merges
// with a Bookmark or Mark right behind it, and returns ErrClosed after Close
// and ErrPartitioned on a partitioned FIFO.
func (f *FIFO[T]) Listed(m relist.Mark) error {
	if f.partitioned != nil {
		return ErrPartitioned
	}
	return f.listed(m, "")
}

// Listed is FIFO.Listed for the namespace of the partition.
func (p *Partition[T]) Listed(m relist.Mark) error { return p.f.listed(m, p.ns) }

func (f *FIFO[T]) listed(m relist.Mark, ns string) error {
	m.Source = ns
	return f.marker(ns, func(b *replaceBatch[T]) { b.mark = &m })
}

func (f *FIFO[T]) bookmark(rv, ns string) error {
	return f.marker(ns, func(b *replaceBatch[T]) { b.rv = rv })
}

// marker sets a Bookmark's or Mark's field (set) on the marker entry of
// partition ns at the tail of the queue, or on a new one queued there.
func (f *FIFO[T]) marker(ns string, set func(*replaceBatch[T])) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if f.count > 0 {
		if last := f.ring[(f.head+f.count-1)%len(f.ring)].batch; last != nil && last.bookmark && last.ns == ns {
			set(last)
			return nil
		}
	}
	b := &replaceBatch[T]{ns: ns, bookmark: true}
	set(b)
	f.pushLocked(entry[T]{batch: b})
	f.signal()
	return nil
}
