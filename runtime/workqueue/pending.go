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
// A long queue's index is megabytes, and looking up a key that is not in
// it costs a cache miss on every Add. So each lane also keeps a tag filter
// (a Bloom filter of 2 bits per tag in one 64-bit word, a sixteenth of the
// index's size) that holds the tag of every key appended since the last
// rebuild and, from that rebuild, of every key then queued or being
// processed. A tag no lane's filter holds is neither queued nor processing:
// Add appends it without looking in the index or in the processing set.
// The index itself is filled late: append only notes a key in the filter,
// and the keys appended since are indexed in one pass (those still queued)
// when a lookup needs the index, i.e. when the filter holds a tag, or when
// flushMax of them wait: in a batch, the index's cache misses overlap
// instead of stalling one Add each.
//
// Safety of the lock-free parts: Add writes a slot's key, then publishes it
// by storing its tag (never 0); Get reads a key only after seeing its tag.
// So a key crosses from the producer's core to a worker's in the cache line
// the worker reads anyway, with no shared tail counter. Add reads the key of a
// seq only while it is still queued by a head it loaded (seq >= head), in a
// chunk it still holds. Get holds on to the chunk that contains head or
// ends at it, so a chunk that ends before head is no one's: Add clears it
// and reuses it for new keys (see dropConsumed for how many are kept), which
// keeps a busy queue from allocating.

const chunkSize = 128

type chunk[K comparable] struct {
	base uint64 // seq of keys[0]
	keys [chunkSize]K
	tags [chunkSize]atomic.Uint32 // 0 until the key is published
	next atomic.Pointer[chunk[K]]
}

// pending is the producer's view: the chunks that may still hold queued
// keys, oldest first, the dedup index and the tag filter. Guarded by the
// producer lock.
type pending[K comparable] struct {
	chunks []*chunk[K] // chunks[0] holds head or is older; the last is the tail chunk
	free   []*chunk[K] // cleared chunks for reuse
	// peak is the most chunks held lately, sincePeak the chunk boundaries
	// since it was last reached or halved (see dropConsumed).
	peak, sincePeak int
	index           pendIndex
	// indexed is the first seq not offered to the index yet: keys from
	// indexed to tail are in the filter only, until flush.
	indexed uint64
	filter  tagFilter
}

// chunkFree is the fewest spare chunks a lane keeps.
const chunkFree = 4

// pendSlot is an index entry: 8 bytes, so that the table of a long queue
// (two to four slots per queued key) touches half the memory, pages and
// cache lines a 64-bit seq would. seq holds the low 32 bits of the key's
// seq; live recovers the whole seq.
type pendSlot struct {
	tag uint32 // 0: free
	seq uint32
}

type pendIndex struct {
	slots []pendSlot
	mask  uint64
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
	p.filter.reset(pendIndexMin / filterSlotsPerWord)
	return c
}

// tagFilter is a Bloom filter of tags: each tag sets 2 bits of one 64-bit
// word. It answers "maybe held" or "certainly not held", and forgets only
// by reset. n counts the tags noted since the reset (repeats included).
type tagFilter struct {
	words []uint64
	shift uint // 64 - log2(len(words)): a word's index is the top bits of tag·filterMul
	n     int
}

// filterSlotsPerWord sizes a lane's filter from its index: one 64-bit word
// per 8 index slots, 8 bits per slot. The index is rebuilt before the tags
// noted reach three quarters of its slots, so at most 6 tags share a word
// on average and a tag not noted is taken for a noted one (a false
// positive, which costs a lookup in the index) about 3% of the time at
// worst.
const filterSlotsPerWord = 8

// The index is rebuilt when the tags noted reach indexLoadNum/indexLoadDen
// of its slots (linear probing stays short at that load: homes are odd
// slots, so a probe reads pairs), into a table of at least
// indexSlotsPerKey slots per queued key. Every slot is 8 bytes of a table
// that a long queue's backlog makes megabytes, and on machines where a
// fresh page costs tens of microseconds (a VM that hands freed memory back
// to its host), touching fewer of them is most of what the index costs.
const (
	indexLoadNum, indexLoadDen = 3, 4
	indexSlotsPerKey           = 2
)

const filterMul = 0x9e3779b97f4a7c15 // 2^64 / golden ratio: spreads tags over words

// reset empties the filter and sizes it to words (a power of two).
func (f *tagFilter) reset(words int) {
	if len(f.words) == words {
		clear(f.words)
	} else {
		f.words = make([]uint64, words)
		f.shift = 64 - uint(log2(uint64(words)))
	}
	f.n = 0
}

func log2(n uint64) int {
	b := 0
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// at returns the word of tag and its 2 bits (from bits 1-12 of tag: bit 0
// of a key's tag is always set).
func (f *tagFilter) at(tag uint32) (*uint64, uint64) {
	w := &f.words[(uint64(tag)*filterMul)>>f.shift]
	return w, 1<<(tag>>1&63) | 1<<(tag>>7&63)
}

func (f *tagFilter) note(tag uint32) {
	w, bits := f.at(tag)
	*w |= bits
	f.n++
}

// mayHold reports false when tag was certainly not noted since the reset.
func (f *tagFilter) mayHold(tag uint32) bool {
	w, bits := f.at(tag)
	return *w&bits == bits
}

// keyAt returns the key queued with seq, which is >= the base of chunks[0].
func (p *pending[K]) keyAt(seq uint64) K {
	c := p.chunks[(seq-p.chunks[0].base)/chunkSize]
	return c.keys[seq-c.base]
}

// dropConsumed forgets the chunks that end before head and keeps them for
// reuse: up to the most chunks the lane held lately (and at least
// chunkFree), so that a queue that drains and fills again, as a backlog
// does when workers catch up with the producers, reuses its chunks instead
// of allocating them anew each time. "Lately": the peak is halved each
// time the lane has gone as many chunk boundaries as the peak without
// reaching it, and past the limit one spare chunk per call goes to the GC,
// so a queue that stays short gives its spare chunks back.
func (p *pending[K]) dropConsumed(head uint64) {
	if held := len(p.chunks); held >= p.peak {
		p.peak, p.sincePeak = held, 0
	} else if p.sincePeak++; p.sincePeak >= p.peak {
		p.peak, p.sincePeak = max(held, p.peak/2), 0
	}
	limit := max(chunkFree, p.peak)
	n := 0
	for n < len(p.chunks)-1 && p.chunks[n].base+chunkSize < head {
		if len(p.free) < limit {
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
	if f := len(p.free); f > limit {
		p.free[f-1] = nil
		p.free = p.free[:f-1]
	}
}

// queued reports whether key (tag) is queued, given that every seq below
// head has been handed out and tail is the next seq.
func (p *pending[K]) queued(key K, tag uint32, head, tail uint64) bool {
	_, ok := p.find(key, tag, head, tail)
	return ok
}

// find returns the index slot of key (tag) when it is queued, given that
// every seq below head has been handed out and tail is the next seq. It
// indexes the keys appended since the last lookup first.
func (p *pending[K]) find(key K, tag uint32, head, tail uint64) (slot uint64, ok bool) {
	if p.indexed != tail {
		p.flush(head, tail)
	}
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

// tombstone takes the key at slot (found by find) out of the queue when no
// Get has taken it yet: it swaps the key's published tag for tagMoved,
// which Get skips, and retires the index entry. It reports false when the
// key was handed out already (its seq is below head). The caller holds the
// producer lock and the consumer lock, so that no Get takes the key
// meanwhile, and head is the lane's headSeq.
func (p *pending[K]) tombstone(slot uint64, head, tail uint64) bool {
	seq, ok := live(p.index.slots[slot].seq, head, tail)
	if !ok {
		return false
	}
	c := p.chunks[(seq-p.chunks[0].base)/chunkSize]
	c.tags[seq-c.base].Store(tagMoved)
	// A retired entry keeps the probe chain (tag != 0) and matches no key
	// (real tags are odd); it keeps its seq, so an append may take its
	// slot once head has passed it, and rebuild drops it.
	p.index.slots[slot].tag = tagMoved
	return true
}

// Published tags are odd (Queue.tag sets bit 0); tagMoved, even, marks a
// slot whose key Add moved to a higher priority: Get skips it.
const tagMoved = 2

// needsHead reports whether append(.., tail, head, ..) will drop chunks or
// rebuild the index, for which head should be fresh.
func (p *pending[K]) needsHead(tail uint64) bool {
	return p.tailFull(tail) || p.full(tail)
}

// tailFull reports whether seq tail starts a new chunk.
func (p *pending[K]) tailFull(tail uint64) bool {
	return tail-p.chunks[len(p.chunks)-1].base == chunkSize
}

// full reports whether the index and the filter must be rebuilt before
// seq tail is appended: when the tags noted reach the index's full load
// (every index entry was noted, so the index is at most that full too), or
// when the index's seqs would span too much.
func (p *pending[K]) full(tail uint64) bool {
	return p.filter.n >= len(p.index.slots)*indexLoadNum/indexLoadDen || tail-p.index.floor >= maxSeqSpan
}

// append queues key (tag) as seq tail, publishes it and notes it in the
// filter; the index learns of it at the next flush or rebuild. key must
// not be queued. inflight is the queue's processing set, whose tags a
// rebuild keeps in the filter.
func (p *pending[K]) append(key K, tag uint32, tail, head uint64, inflight *inflightSet[K]) {
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

	if p.full(tail) {
		p.rebuild(head, tail, inflight)
	} else if tail-p.indexed >= flushMax {
		p.flush(head, tail)
	}
	p.filter.note(tag)
}

// flushMax bounds the keys a flush indexes, and so how long it holds the
// producer lock, when no lookup has needed the index for a while. Keys
// handed out before their flush are never indexed.
const flushMax = 1024

// flush indexes the keys appended from indexed to tail that are still
// queued by head. Their probes do not depend on each other, so their
// cache misses overlap.
func (p *pending[K]) flush(head, tail uint64) {
	seq := max(p.indexed, head)
	p.indexed = tail
	for seq < tail {
		c := p.chunks[(seq-p.chunks[0].base)/chunkSize]
		end := min(tail, c.base+chunkSize)
		for ; seq < end; seq++ {
			tag := c.tags[seq-c.base].Load()
			if tag&1 == 0 {
				continue // moved to a higher priority: not queued here
			}
			p.index.insert(pendSlot{tag: tag, seq: uint32(seq)}, head, tail)
		}
	}
}

// insert puts s in the first slot from its home that is free or stale.
// Live entries stay; stale ones are taken over.
func (ix *pendIndex) insert(s pendSlot, head, tail uint64) {
	i := uint64(s.tag) & ix.mask
	for e := ix.slots[i]; e.tag != 0; e = ix.slots[i] {
		if _, ok := live(e.seq, head, tail); !ok {
			break // stale: taken; live entries stay
		}
		i = (i + 1) & ix.mask
	}
	ix.slots[i] = s
}

// rebuild drops stale entries: it reindexes the keys queued in
// [head, tail), in a table at least indexSlotsPerKey times their number, so
// that at least a quarter of the table is inserted before the next
// rebuild, and refills the filter with their tags and those of the keys
// being processed.
//
// The table does not shrink below what the lane's recent peak needs (the
// peak dropConsumed keeps chunks for): a backlog that workers catch up
// with fills again soon, and a table allocated anew on every refill, in
// doublings up to the peak, costs its fresh pages (on some VMs tens of
// microseconds each) and garbage for the GC each time. A lane that stays
// short lets the peak decay, and a later rebuild shrinks the table.
//
// A table that grows is refilled from the old one in slot order (and the
// keys appended since the last flush from the chunks): a queue that grows
// is one whose entries are nearly all live, and walking the old table
// reads it front to back and writes the new one nearly so (an entry at home
// h lands at h or h plus the old size), where walking the queue writes at
// random. A table that keeps its size is refilled from the queue, whose
// keys may be a small part of the table's entries.
//
// The processing keys' tags go into the filter after the queued ones are
// read: a key that a Get takes meanwhile was claimed for processing before
// head moved past it, so one of the two reads sees it.
func (p *pending[K]) rebuild(head, tail uint64, inflight *inflightSet[K]) {
	p.dropConsumed(head)
	ix := &p.index
	old := ix.slots
	n := uint64(pendIndexMin)
	for n < indexSlotsPerKey*(tail-head+1) {
		n *= 2
	}
	if m := uint64(len(old)); m > n {
		// Shrinking: keep what the recent peak needs.
		for n < m && n < indexSlotsPerKey*uint64(p.peak)*chunkSize {
			n *= 2
		}
	}
	grow := uint64(len(old)) < n
	if uint64(len(old)) == n {
		clear(ix.slots)
	} else {
		ix.slots = make([]pendSlot, n)
		ix.mask = n - 1
	}
	p.filter.reset(int(n / filterSlotsPerWord))
	ix.floor = head
	from := head
	if grow {
		for _, s := range old {
			if s.tag&1 == 0 {
				continue // free, or retired (moved to a higher priority)
			}
			if _, ok := live(s.seq, head, tail); ok {
				ix.insertNew(s)
				p.filter.note(s.tag)
			}
		}
		from = max(p.indexed, head)
	}
	for seq := from; seq < tail; seq++ {
		c := p.chunks[(seq-p.chunks[0].base)/chunkSize]
		tag := c.tags[seq-c.base].Load()
		if tag&1 == 0 {
			continue // moved to a higher priority: not queued here
		}
		ix.insertNew(pendSlot{tag: tag, seq: uint32(seq)})
		p.filter.note(tag)
	}
	p.indexed = tail
	inflight.tags(p.filter.note)
}

// insertNew puts s in the first free slot from its home, in a table being
// rebuilt (it holds no stale entries).
func (ix *pendIndex) insertNew(s pendSlot) {
	i := uint64(s.tag) & ix.mask
	for ix.slots[i].tag != 0 {
		i = (i + 1) & ix.mask
	}
	ix.slots[i] = s
}
