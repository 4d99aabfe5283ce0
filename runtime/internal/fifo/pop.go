package fifo

import (
	"context"
)

// Pop waits until a batch is queued, hands it to process and returns
// process's error. process runs without the FIFO's lock held, so producers
// are never blocked by the consumer; the deltas of a batch count as pending
// (for Replace and Delete) until process returns.
//
// A batch is either one atomic relist from Replace, or up to MaxBatch
// consecutive single deltas (never crossing the end of the initial
// population). Pop blocks until there is work, ctx ends (it returns
// ctx.Err() and pops nothing), or the FIFO is closed and empty (ErrClosed):
// after Close, Pop keeps handing out what was queued before, so the consumer
// can drain it.
func (f *FIFO[T]) Pop(ctx context.Context, process func(Batch[T]) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		f.mu.Lock()
		if f.popping {
			f.mu.Unlock()
			return ErrConcurrentPop
		}
		if f.count > 0 {
			break // with f.mu held
		}
		closed := f.closed
		f.mu.Unlock()
		if closed {
			return ErrClosed
		}
		select {
		case <-f.notify:
		case <-f.closedCh:
		case <-ctx.Done():
			return ctx.Err()
		}
	}

	b, taken := f.takeLocked()
	f.popping = true
	f.inflight = taken
	f.mu.Unlock()
	defer f.done(b.Deltas, taken, b.Atomic) // also when process panics
	return process(b)
}

// done ends the processing of a popped batch: its keys stop being pending
// and the initial population shrinks.
func (f *FIFO[T]) done(deltas []Delta[T], taken int, atomic bool) {
	f.mu.Lock()
	f.popping = false
	f.inflight = 0
	if atomic {
		// Batches are popped in order: this is the oldest.
		f.batches[0] = nil
		f.batches = f.batches[1:]
		if len(f.batches) == 0 {
			f.batches = nil
		}
	} else {
		for i := range deltas {
			f.untrackLocked(deltas[i].Key)
		}
	}
	if len(f.pending) == 0 && f.pendingPeak > shrinkAbove {
		// Go maps never shrink; after a large relist start afresh.
		f.pending = make(map[string]keyState[T])
		f.pendingPeak = 0
	}
	if f.initialLeft > 0 {
		f.initialLeft -= taken
		f.checkSyncedLocked()
	}
	f.mu.Unlock()
	clear(deltas) // drop references for the GC
}

// shrinkAbove is the size above which the ring and the pending map are
// reallocated once they are empty again, to give a burst's memory back.
const shrinkAbove = 4096

// takeLocked removes the next batch from the queue; it returns the batch and
// how many entries it consumed.
func (f *FIFO[T]) takeLocked() (Batch[T], int) {
	first := &f.ring[f.head]
	initial := !f.syncedClosed
	if first.batch != nil && first.batch.bookmark {
		rb := first.batch
		*first = entry[T]{}
		f.head = (f.head + 1) % len(f.ring)
		f.count--
		return Batch[T]{ResourceVersion: rb.rv, Namespace: rb.ns, InitialList: initial, Listed: rb.mark}, 1
	}
	if first.batch != nil {
		rb := first.batch
		*first = entry[T]{}
		f.head = (f.head + 1) % len(f.ring)
		f.count--
		f.ndeltas -= len(rb.deltas)
		if f.count == 0 && len(f.ring) > shrinkAbove {
			f.ring, f.head = make([]entry[T], 16), 0
		}
		return Batch[T]{Deltas: rb.deltas, Atomic: true, ResourceVersion: rb.rv, Namespace: rb.ns, InitialList: initial}, 1
	}
	limit := f.maxBatch
	if f.initialLeft > 0 && f.initialLeft < limit {
		limit = f.initialLeft
	}
	out := f.out[:0]
	n := 0
	for n < limit && f.count > 0 {
		e := &f.ring[f.head]
		if e.batch != nil {
			break
		}
		out = append(out, e.d)
		*e = entry[T]{}
		f.head = (f.head + 1) % len(f.ring)
		f.count--
		n++
	}
	b := Batch[T]{InitialList: initial}
	if n < limit && f.count > 0 && f.ring[f.head].batch != nil && f.ring[f.head].batch.bookmark {
		// A bookmark right after these deltas: the consumer learns the
		// resourceVersion they reach with them.
		e := &f.ring[f.head]
		b.ResourceVersion, b.Namespace, b.Listed = e.batch.rv, e.batch.ns, e.batch.mark
		*e = entry[T]{}
		f.head = (f.head + 1) % len(f.ring)
		f.count--
		n++
	}
	f.ndeltas -= len(out)
	f.out = out
	if f.count == 0 && len(f.ring) > shrinkAbove {
		f.ring, f.head = make([]entry[T], 16), 0
	}
	b.Deltas = out
	return b, n
}
