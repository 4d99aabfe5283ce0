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
// no lock; claim adds a chunk when all are used. Each slot (state, key,
// priority) has cache lines of its own, and a key's search starts at a
// home slot in the first chunk chosen by its tag: a worker's Get claims a
// slot and its Done finds it there, in a line the other workers' Gets and
// Dones do not write (where with the state words side by side every Get
// and Done of every worker wrote one line). A lookup of a key not in the
// set (Add's, when the filter holds its tag) still reads every slot. A
// chunk has 16 slots, twice a typical controller's workers, so that most
// keys find their home slot free.
type inflightSet[K comparable] struct {
	first inflightChunk[K]
}

const inflightChunkSize = 16

type inflightChunk[K comparable] struct {
	slots [inflightChunkSize]inflightSlot[K]
	next  atomic.Pointer[inflightChunk[K]]
}

type inflightSlot[K comparable] struct {
	state atomic.Uint64
	// prio is the highest priority key was re-added with; it means
	// something only while slotAgain is set, and like key it is read and
	// written only by the slot's pinner.
	prio int
	key  K
	_    [64]byte // the next slot's words start on another cache line
}

const (
	slotUsed   = 1
	slotAgain  = 2
	slotPinned = 4
)

// home is the slot of the first chunk where tag's search starts.
func home(tag uint32) int {
	return int(tag>>1) % inflightChunkSize
}

// each calls f with the slots in tag's search order (its home slot and
// the rest of the first chunk, then the other chunks) until f returns
// true, and returns that slot, or nil.
func (s *inflightSet[K]) each(tag uint32, f func(*inflightSlot[K]) bool) *inflightSlot[K] {
	h := home(tag)
	for i := range inflightChunkSize {
		if sl := &s.first.slots[(h+i)%inflightChunkSize]; f(sl) {
			return sl
		}
	}
	for c := s.first.next.Load(); c != nil; c = c.next.Load() {
		for i := range c.slots {
			if sl := &c.slots[i]; f(sl) {
				return sl
			}
		}
	}
	return nil
}

// len counts the used slots. It is for ShutDownWithDrain, so it scans
// rather than have every Get and Done update a shared counter.
func (s *inflightSet[K]) len() int {
	n := 0
	s.each(0, func(sl *inflightSlot[K]) bool {
		if sl.state.Load() != 0 {
			n++
		}
		return false
	})
	return n
}

// tags calls note with the tag of every key in the set (and perhaps of a
// key that leaves it meanwhile).
func (s *inflightSet[K]) tags(note func(uint32)) {
	s.each(0, func(sl *inflightSlot[K]) bool {
		if st := sl.state.Load(); st&slotUsed != 0 {
			note(uint32(st >> 32))
		}
		return false
	})
}

// claim puts key (tag) in a free slot, the first from its home. The
// caller holds the consumer lock and key is not in the set.
func (s *inflightSet[K]) claim(key K, tag uint32) {
	h := home(tag)
	for i := range inflightChunkSize {
		if sl := &s.first.slots[(h+i)%inflightChunkSize]; sl.state.Load() == 0 {
			sl.key = key
			sl.state.Store(uint64(tag)<<32 | slotUsed)
			return
		}
	}
	c := &s.first
	for {
		next := c.next.Load()
		if next == nil {
			next = new(inflightChunk[K])
			c.next.Store(next)
		}
		c = next
		for i := range c.slots {
			if sl := &c.slots[i]; sl.state.Load() == 0 {
				sl.key = key
				sl.state.Store(uint64(tag)<<32 | slotUsed)
				return
			}
		}
	}
}

// pin finds key's slot and pins it, returning the slot and the state it
// had before pinning; the slot is nil when key is not in the set.
func (s *inflightSet[K]) pin(key K, tag uint32) (*inflightSlot[K], uint64) {
	h := home(tag)
	for i := range inflightChunkSize {
		sl := &s.first.slots[(h+i)%inflightChunkSize]
		if st, ok := sl.pin(key, tag); ok {
			return sl, st
		}
	}
	for c := s.first.next.Load(); c != nil; c = c.next.Load() {
		for i := range c.slots {
			if st, ok := c.slots[i].pin(key, tag); ok {
				return &c.slots[i], st
			}
		}
	}
	return nil, 0
}

// pin pins sl if it holds key (tag), and returns the state it had before.
func (sl *inflightSlot[K]) pin(key K, tag uint32) (st uint64, ok bool) {
	for spins := 1; ; spins++ {
		st = sl.state.Load()
		if st>>32 != uint64(tag) || st&slotUsed == 0 {
			return 0, false // not this key's slot (a free slot's tag is 0, never a key's)
		}
		if st&slotPinned != 0 {
			// Someone compares or clears this slot's key, for tens of
			// nanoseconds; yield now and then in case the pinner was
			// preempted.
			if spins%64 == 0 {
				runtime.Gosched()
			}
			continue
		}
		if !sl.state.CompareAndSwap(st, st|slotPinned) {
			continue
		}
		if sl.key == key {
			return st, true
		}
		sl.state.Store(st) // a tag collision: unpin, go on
		return 0, false
	}
}

// markAgain records that key, if it is being processed, was added again at
// priority prio; it reports whether key is in the set, whether it was
// marked already and, if so, the priority it was marked with (the higher
// of the two is kept).
func (s *inflightSet[K]) markAgain(key K, tag uint32, prio int) (found, wasAgain bool, old int) {
	sl, st := s.pin(key, tag)
	if sl == nil {
		return false, false, 0
	}
	wasAgain = st&slotAgain != 0
	old = sl.prio
	if !wasAgain || prio > old {
		sl.prio = prio
	}
	sl.state.Store(st | slotAgain)
	return true, wasAgain, old
}

// unclaim takes key (tag), claimed a moment ago by the caller, back out of
// the set. The caller holds the consumer lock.
func (s *inflightSet[K]) unclaim(key K, tag uint32) {
	sl, _ := s.pin(key, tag)
	s.release(sl)
}

// release frees sl, which the caller has pinned.
func (s *inflightSet[K]) release(sl *inflightSlot[K]) {
	var zero K
	sl.key = zero // let the GC have it
	sl.state.Store(0)
}
