package core

import (
	"context"
	"errors"
	"slices"
	"time"

	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
)

// The pop loop: the one goroutine that takes batches of changes from the
// FIFO, applies them to the cache and hands the resulting notes to the
// handlers, under mu so that handlers added meanwhile see a consistent view.

// popLoop pops until ctx ends or the FIFO is closed and empty.
func (i *Shared) popLoop(ctx context.Context) {
	process := i.process
	for {
		err := i.fifo.Pop(ctx, process)
		if errors.Is(err, fifo.ErrClosed) || ctx.Err() != nil {
			return
		}
		if err != nil {
			klog.FromContext(ctx).Error(err, "processing a batch of changes")
		}
	}
}

// process applies b to the cache and queues the notifications for every
// handler, all under i.mu (see Shared.mu), then records the resourceVersion
// the cache has reached (after i.mu is released: it may call the cache's
// waiters, which must not find the informer locked), and tells i.processed,
// if set, how long that took.
func (i *Shared) process(b fifo.Batch[cache.Obj]) error {
	var start time.Time
	if i.processed != nil {
		start = time.Now()
	}
	if len(b.Deltas) > 0 {
		i.processLocked(b)
	}
	if b.Listed != nil {
		i.listed(*b.Listed)
	}
	i.applied(b)
	if i.processed != nil {
		i.processed(time.Since(start), i.queued(), i.indexer.ResourceVersion())
	}
	return nil
}

// listed queues relist.Mark m for every handler, after the notes of the
// sync it marks, and keeps it for handlers added later.
func (i *Shared) listed(m relist.Mark) {
	i.mu.Lock()
	defer i.mu.Unlock()
	k := slices.IndexFunc(i.marks, func(o relist.Mark) bool { return o.Trigger == m.Trigger && o.Source == m.Source })
	if k < 0 {
		i.marks = append(i.marks, m)
	} else {
		i.marks[k] = m
	}
	for _, l := range i.handlers {
		l.pushMark(m)
	}
}

// applied records the resourceVersion the cache reached by applying b: the
// relist's or the bookmark's when b carries one, else that of its last
// delta's object (per namespace for a multi-namespace informer). Only the
// pop loop calls it, after the writes are visible, so the cache's
// resourceVersion is never ahead of what a read returns.
func (i *Shared) applied(b fifo.Batch[cache.Obj]) {
	if !b.Atomic {
		if i.namespaces == nil {
			if n := len(b.Deltas); n > 0 {
				i.recordRV("", b.Deltas[n-1].Object.GetResourceVersion())
			}
		} else {
			// Per namespace; within a run of one namespace's deltas only
			// the last one's resourceVersion matters (they only grow).
			for j, d := range b.Deltas {
				ns := d.Object.GetNamespace()
				if j+1 < len(b.Deltas) && b.Deltas[j+1].Object.GetNamespace() == ns {
					continue
				}
				i.recordRV(ns, d.Object.GetResourceVersion())
			}
		}
	}
	if b.ResourceVersion != "" {
		i.recordRV(b.Namespace, b.ResourceVersion)
	}
}

func (i *Shared) processLocked(b fifo.Batch[cache.Obj]) {
	i.mu.Lock()
	defer i.mu.Unlock()
	nb := &i.notes
	if n := len(b.Deltas); n > cap(nb.notes) {
		// At most one note per delta: sized once, not grown by append
		// (which, past a few hundred, grows by a quarter at a time and so
		// allocates about five times a relist's notes).
		nb.notes = make([]note, 0, n)
	}
	if n := len(b.Deltas); n > cap(nb.olds) {
		// Only a key the cache holds can be updated: an initial list
		// needs no olds, a relist about one per delta.
		if n = min(n, i.writer.Cache().Len()); n > cap(nb.olds) {
			nb.olds = make([]cache.Obj, 0, n)
		}
	}
	if b.Atomic && len(b.Deltas) > 1 {
		// A relist, or the initial list: the cache is sized for it at once
		// (a no-op when it holds about as many objects already).
		i.writer.Reserve(len(b.Deltas))
	}
	if len(b.Deltas) == 1 && !b.Atomic {
		apply(writerOps{i.writer}, b.Deltas[0], b.InitialList, nb)
	} else {
		i.writer.Batch(func(tx cache.Tx) {
			for _, d := range b.Deltas {
				apply(tx, d, b.InitialList, nb)
			}
		})
	}
	if len(nb.notes) > 0 {
		for _, l := range i.handlers {
			l.push(*nb)
		}
	}
	if b.Atomic {
		i.logger.V(4).Info("relist applied", "deltas", len(b.Deltas), "notifications", len(nb.notes), "resourceVersion", b.ResourceVersion)
	}
	nb.reset()
}

// ops is what apply needs of the cache: store.Tx, or the Writer outside a
// transaction.
type ops interface {
	Get(key string) (cache.Obj, bool)
	Set(key string, obj cache.Obj) (cache.Obj, bool)
	Delete(key string) (cache.Obj, bool)
}

type writerOps struct{ w *cache.Writer }

func (o writerOps) Get(key string) (cache.Obj, bool)                { return o.w.Cache().Get(key) }
func (o writerOps) Set(key string, obj cache.Obj) (cache.Obj, bool) { return o.w.Set(key, obj) }
func (o writerOps) Delete(key string) (cache.Obj, bool)             { return o.w.Delete(key) }

// apply applies d to the cache and appends the notification it makes to nb.
func apply[O ops](c O, d fifo.Delta[cache.Obj], initial bool, nb *noteBuf) {
	switch d.Type {
	case fifo.Added, fifo.Updated, fifo.Replaced:
		old, existed := c.Set(d.Key, d.Object)
		if existed {
			nb.update(old, d.Object)
			return
		}
		nb.add(note{op: opAdd, obj: d.Object, initialOrTombstone: initial})
	case fifo.Deleted:
		// A delete of something the cache (hence every handler) never held
		// is not news to anyone.
		if _, existed := c.Delete(d.Key); existed {
			nb.add(note{op: opDelete, obj: d.Object, initialOrTombstone: d.FinalStateUnknown})
		}
	}
}

// markSynced sends every handler its "initial list delivered" marker, once.
func (i *Shared) markSynced(ctx context.Context) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.syncedSent {
		return
	}
	i.syncedSent = true
	klog.FromContext(ctx).V(4).Info("informer synced", "objects", i.indexer.Len(), "resourceVersion", i.LastSyncResourceVersion())
	for _, l := range i.handlers {
		l.pushOne(note{op: opSynced})
	}
}

// recordRV records rv as the cache's resourceVersion for ns. The one error
// SetResourceVersion returns is for a namespace a multi-namespace informer
// does not hold: an object the server sent outside the namespaces asked
// for. Its resourceVersion then covers nothing this cache promises (a read
// waiting for it waits for the namespaces' own streams), which the first
// time is logged, naming the namespace and not the object.
func (i *Shared) recordRV(ns, rv string) {
	if err := i.writer.SetResourceVersion(ns, rv); err != nil && !i.foreignNSLogged {
		i.foreignNSLogged = true
		i.logger.Error(err, "the server sent an object outside the informer's namespaces; its resourceVersion is not recorded (logged once)")
	}
}
