package workqueue

import (
	"runtime"
	"sync/atomic"
)

// inflightSet holds the keys between Get and Done, each in a slot with an
// atomic state word, so that Done of a key nobody re-added takes no lock
// and Add (under the producer lock) can see that a key is being processed
// without the workers' lock.
//
// A slot's state is 0 when free, else the key's tag in the high 32 bits and
// slotUsed, plus slotAgain when the key was added while being processed,
// plus slotPinned while one goroutine holds the slot to read or clear its
// key. The rules that make the key field safe to read without a lock:
//   - Only claim writes a key, only into a free slot, under the consumer
//     lock (so claims never race each other), and publishes it by storing
//     the state.
//   - A used slot's key is read only by whoever pinned it (a CAS adding
//     slotPinned), and a pinned slot changes only through its pinner.
//   - Only the Done of the slot's own key clears and frees it, while pinned.
//
// Nobody holds a pin while waiting for the producer or consumer lock (only
// for the metrics lock, whose holders wait for nothing), so Add, which may
// spin on a pin while holding the producer lock, cannot deadlock with a
// Done.
//
// Slots come in chunks that are never moved or freed, so walking them needs
// no lock; claim adds a chunk when all are used. Lookups scan the state
// words of every chunk: one or two cache lines for a typical controller.
type inflightSet[K comparable] struct {
	first inflightChunk[K]
}

const inflightChunkSize = 8

type inflightChunk[K comparable] struct {
	states [inflightChunkSize]atomic.Uint64
	keys   [inflightChunkSize]K
	// prios[i] is the highest priority keys[i] was re-added with; it
	// means something only while slotAgain is set, and like keys[i] it is
	// read and written only by the slot's pinner.
	prios [inflightChunkSize]int
	next  atomic.Pointer[inflightChunk[K]]
}

const (
	slotUsed   = 1
	slotAgain  = 2
	slotPinned = 4
)

// len counts the used slots. It is for ShutDownWithDrain, so it scans
// rather than have every Get and Done update a shared counter.
func (s *inflightSet[K]) len() int {
	n := 0
	for c := &s.first; c != nil; c = c.next.Load() {
		for i := range c.states {
			if c.states[i].Load() != 0 {
				n++
			}
		}
	}
	return n
}

// tags calls note with the tag of every key in the set (and perhaps of a
// key that leaves it meanwhile).
func (s *inflightSet[K]) tags(note func(uint32)) {
	for c := &s.first; c != nil; c = c.next.Load() {
		for i := range c.states {
			if st := c.states[i].Load(); st&slotUsed != 0 {
				note(uint32(st >> 32))
			}
		}
	}
}

// claim puts key (tag) in a free slot. The caller holds the consumer lock
// and key is not in the set.
func (s *inflightSet[K]) claim(key K, tag uint32) {
	c := &s.first
	for {
		for i := range c.states {
			if c.states[i].Load() == 0 {
				c.keys[i] = key
				c.states[i].Store(uint64(tag)<<32 | slotUsed)
				return
			}
		}
		next := c.next.Load()
		if next == nil {
			next = new(inflightChunk[K])
			c.next.Store(next)
		}
		c = next
	}
}

// pin finds key's slot and pins it, returning the chunk, the index and the
// state it had before pinning; c is nil when key is not in the set.
func (s *inflightSet[K]) pin(key K, tag uint32) (c *inflightChunk[K], i int, st uint64) {
	for c = &s.first; c != nil; c = c.next.Load() {
		for i = range c.states {
			for spins := 1; ; spins++ {
				st = c.states[i].Load()
				if st>>32 != uint64(tag) || st&slotUsed == 0 {
					break // not this key's slot (a free slot's tag is 0, never a key's)
				}
				if st&slotPinned != 0 {
					// Someone compares or clears this slot's key, for tens
					// of nanoseconds; yield now and then in case the pinner
					// was preempted.
					if spins%64 == 0 {
						runtime.Gosched()
					}
					continue
				}
				if !c.states[i].CompareAndSwap(st, st|slotPinned) {
					continue
				}
				if c.keys[i] == key {
					return c, i, st
				}
				c.states[i].Store(st) // a tag collision: unpin, go on
				break
			}
		}
	}
	return nil, 0, 0
}

// markAgain records that key, if it is being processed, was added again at
// priority prio; it reports whether key is in the set, whether it was
// marked already and, if so, the priority it was marked with (the higher
// of the two is kept).
func (s *inflightSet[K]) markAgain(key K, tag uint32, prio int) (found, wasAgain bool, old int) {
	c, i, st := s.pin(key, tag)
	if c == nil {
		return false, false, 0
	}
	wasAgain = st&slotAgain != 0
	old = c.prios[i]
	if !wasAgain || prio > old {
		c.prios[i] = prio
	}
	c.states[i].Store(st | slotAgain)
	return true, wasAgain, old
}

// release frees the slot at c, i, which the caller has pinned.
func (s *inflightSet[K]) release(c *inflightChunk[K], i int) {
	var zero K
	c.keys[i] = zero // let the GC have it
	c.states[i].Store(0)
}
