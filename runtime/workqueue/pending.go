package workqueue

import (
	"sync/atomic"
)

// The queued keys live in a FIFO of fixed-size chunks that Add appends to
// under the producer lock and Get takes from under the consumer lock, so a
// producer and the workers never wait for each other (only workers wait for
// workers). Each key gets a sequence number: tail is the next one Add
// gives, head the next one Get hands out; a key is queued while
// head <= its seq < tail.
//
// Deduplication is the producer's business: pendIndex maps a key's tag to
// the seq it was queued with. Get never touches it, so an entry goes stale
// (seq < head) when its key is handed out instead of being removed, and
// Add treats stale entries as absent. Stale entries are overwritten by
// inserts and dropped when the index is rebuilt from the live keys.
//
// Safety of the lock-free parts: Add writes a slot's key, then publishes it
// by storing its tag (never 0); Get reads a key only after seeing its tag.
// So a key crosses from the producer's core to a worker's in the cache line
// the worker reads anyway, with no shared tail counter. Add reads the key of a
// seq only while it is still queued by a head it loaded (seq >= head), in a
// chunk it still holds. Get holds on to the chunk that contains head or
// ends at it, so a chunk that ends before head is no one's: Add clears it
// and reuses it for new keys (at most chunkFree of them are kept), which
// keeps a busy queue from allocating.

const chunkSize = 128

type chunk[K comparable] struct {
	base uint64 // seq of keys[0]
	keys [chunkSize]K
	tags [chunkSize]atomic.Uint32 // 0 until the key is published
	next atomic.Pointer[chunk[K]]
}

// pending is the producer's view: the chunks that may still hold queued
// keys, oldest first, and the dedup index. Guarded by the producer lock.
type pending[K comparable] struct {
	chunks []*chunk[K] // chunks[0] holds head or is older; the last is the tail chunk
	free   []*chunk[K] // cleared chunks for reuse
	index  pendIndex
}

const chunkFree = 4

// pendSlot is an index entry: 8 bytes, so that the table of a long queue
// (four to eight slots per queued key) touches half the memory, pages and
// cache lines a 64-bit seq would. seq holds the low 32 bits of the key's
// seq; live recovers the whole seq.
type pendSlot struct {
	tag uint32 // 0: free
	seq uint32
}

type pendIndex struct {
	slots []pendSlot
	mask  uint64
	used  int // slots with a tag, live or stale
	// floor is the head of the last rebuild: every entry's seq is at or
	// above it (rebuild keeps only queued keys, later entries are newer),
	// and append rebuilds before tail-floor reaches maxSeqSpan, so every
	// entry's seq is within 2^32 of tail and its low 32 bits tell it
	// apart from every other seq the entry may be compared with.
	floor uint64
}

// maxSeqSpan bounds tail-floor (see pendIndex.floor). A lane whose queued
// keys alone span more seqs than that (2^31 keys, tens of GB of queue)
// rebuilds on every append: slow, never wrong, as long as the lane holds
// fewer than 2^32 keys.
const maxSeqSpan = 1 << 31

// live reports whether an entry with seq's low 32 bits is queued, given
// that every seq below head has been handed out and tail is the next seq,
// and returns its whole seq.
func live(seq32 uint32, head, tail uint64) (uint64, bool) {
	d := uint64(seq32 - uint32(head)) // seq - head, if seq >= head
	return head + d, d < tail-head
}

const pendIndexMin = 64

func (p *pending[K]) init() *chunk[K] {
	c := new(chunk[K])
	p.chunks = []*chunk[K]{c}
	p.index.slots = make([]pendSlot, pendIndexMin)
	p.index.mask = pendIndexMin - 1
	return c
}

// keyAt returns the key queued with seq, which is >= the base of chunks[0].
func (p *pending[K]) keyAt(seq uint64) K {
	c := p.chunks[(seq-p.chunks[0].base)/chunkSize]
	return c.keys[seq-c.base]
}

// dropConsumed forgets the chunks that end before head, keeping some for
// reuse.
func (p *pending[K]) dropConsumed(head uint64) {
	n := 0
	for n < len(p.chunks)-1 && p.chunks[n].base+chunkSize < head {
		if len(p.free) < chunkFree {
			c := p.chunks[n]
			clear(c.keys[:]) // let the GC have them
			for i := range c.tags {
				c.tags[i].Store(0)
			}
			c.next.Store(nil)
			p.free = append(p.free, c)
		}
		p.chunks[n] = nil
		n++
	}
	if n > 0 {
		p.chunks = append(p.chunks[:0], p.chunks[n:]...)
	}
}

// queued reports whether key (tag) is queued, given that every seq below
// head has been handed out and tail is the next seq.
func (p *pending[K]) queued(key K, tag uint32, head, tail uint64) bool {
	_, ok := p.find(key, tag, head, tail)
	return ok
}

// find returns the index slot of key (tag) when it is queued, given that
// every seq below head has been handed out and tail is the next seq.
func (p *pending[K]) find(key K, tag uint32, head, tail uint64) (slot uint64, ok bool) {
	ix := &p.index
	for i := uint64(tag) & ix.mask; ; i = (i + 1) & ix.mask {
		s := ix.slots[i]
		if s.tag == 0 {
			return 0, false
		}
		if s.tag != tag {
			continue
		}
		if seq, ok := live(s.seq, head, tail); ok && p.keyAt(seq) == key {
			return i, true
		}
	}
}

// tombstone takes the key at slot (found by find, queued as seq) out of
// the queue when no Get has taken it yet: it swaps the key's published tag
// for tagMoved, which Get skips, and retires the index entry. It reports
// false when a Get took the key first (Get swaps the tag for tagTaken in
// priority mode). The caller holds the producer lock.
func (p *pending[K]) tombstone(slot uint64, tag uint32, head, tail uint64) bool {
	seq, _ := live(p.index.slots[slot].seq, head, tail)
	c := p.chunks[(seq-p.chunks[0].base)/chunkSize]
	if !c.tags[seq-c.base].CompareAndSwap(tag, tagMoved) {
		return false
	}
	// A retired entry keeps the probe chain (tag != 0) and matches no key
	// (real tags are odd); it keeps its seq, so an append may take its
	// slot once head has passed it, and rebuild drops it.
	p.index.slots[slot].tag = tagMoved
	return true
}

// Published tags are odd (Queue.tag sets bit 0); these even values mark a
// slot whose key left the queue in priority mode.
const (
	tagMoved = 2 // moved to a higher priority by Add: Get skips the slot
	tagTaken = 4 // handed out by Get
)

// needsHead reports whether append(.., tail, head) will drop chunks or
// rebuild the index, for which head should be fresh.
func (p *pending[K]) needsHead(tail uint64) bool {
	return p.tailFull(tail) || p.index.full(tail)
}

// tailFull reports whether seq tail starts a new chunk.
func (p *pending[K]) tailFull(tail uint64) bool {
	return tail-p.chunks[len(p.chunks)-1].base == chunkSize
}

// full reports whether the index must be rebuilt before inserting seq
// tail.
func (ix *pendIndex) full(tail uint64) bool {
	return ix.used >= len(ix.slots)/2 || tail-ix.floor >= maxSeqSpan
}

// append queues key (tag) as seq tail, publishes it and indexes it. key
// must not be queued.
func (p *pending[K]) append(key K, tag uint32, tail, head uint64) {
	c := p.chunks[len(p.chunks)-1]
	if p.tailFull(tail) {
		p.dropConsumed(head)
		var nc *chunk[K]
		if n := len(p.free); n > 0 {
			nc, p.free = p.free[n-1], p.free[:n-1]
		} else {
			nc = new(chunk[K])
		}
		nc.base = tail
		c.next.Store(nc) // before tail is published: Get follows it at tail
		p.chunks = append(p.chunks, nc)
		c = nc
	}
	c.keys[tail-c.base] = key
	c.tags[tail-c.base].Store(tag) // publishes the key to Get

	ix := &p.index
	if ix.full(tail) {
		p.rebuild(head, tail)
	}
	i := uint64(tag) & ix.mask
	for s := ix.slots[i]; s.tag != 0; s = ix.slots[i] {
		if _, ok := live(s.seq, head, tail); !ok {
			break // stale: taken; live entries stay
		}
		i = (i + 1) & ix.mask
	}
	if ix.slots[i].tag == 0 {
		ix.used++
	}
	ix.slots[i] = pendSlot{tag: tag, seq: uint32(tail)}
}

// rebuild drops stale entries: it reindexes the keys queued in
// [head, tail), in a table at least four times their number, so that at
// least a quarter of the table is inserted before the next rebuild.
//
// A table that grows is refilled from the old one in slot order: a queue
// that grows is one whose entries are nearly all live, and walking the old
// table reads it front to back and writes the new one nearly so (an entry
// at home h lands at h or h plus the old size), where walking the queue
// writes at random. A table that keeps its size is refilled from the
// queue, whose keys may be a small part of the table's entries.
func (p *pending[K]) rebuild(head, tail uint64) {
	p.dropConsumed(head)
	n := uint64(pendIndexMin)
	for n < 4*(tail-head+1) {
		n *= 2
	}
	ix := &p.index
	old := ix.slots
	grow := uint64(len(old)) < n
	if uint64(len(old)) == n {
		clear(ix.slots)
	} else {
		ix.slots = make([]pendSlot, n)
		ix.mask = n - 1
	}
	ix.used = 0
	ix.floor = head
	if grow {
		for _, s := range old {
			if s.tag&1 == 0 {
				continue // free, or retired (moved to a higher priority)
			}
			if _, ok := live(s.seq, head, tail); ok {
				ix.insertNew(s)
			}
		}
		return
	}
	for seq := head; seq < tail; seq++ {
		c := p.chunks[(seq-p.chunks[0].base)/chunkSize]
		tag := c.tags[seq-c.base].Load()
		if tag&1 == 0 {
			continue // moved or being taken: not queued here
		}
		ix.insertNew(pendSlot{tag: tag, seq: uint32(seq)})
	}
}

// insertNew puts s in the first free slot from its home, in a table being
// rebuilt (it holds no stale entries).
func (ix *pendIndex) insertNew(s pendSlot) {
	i := uint64(s.tag) & ix.mask
	for ix.slots[i].tag != 0 {
		i = (i + 1) & ix.mask
	}
	ix.slots[i] = s
	ix.used++
}
