package workqueue

import "hash/maphash"

// keyRing is the FIFO of keys waiting to be handed out, with its own index
// for deduplication: a circular buffer of keys and an open-addressing table
// (linear probing) whose slots point into the buffer. It replaces a ring
// beside a map[K]struct{}, whose every Add and Get hashed the key into a
// table that grows with the backlog: with a backlog in the tens of
// thousands, each of those was a cache miss or two. Here an index slot is
// 8 bytes (a 32-bit hash tag and the key's buffer position; a string map
// slot is 16 bytes plus a control byte), a lookup or insert reads one cache
// line of slots, and pop finds its slot from the tag stored beside the key,
// without hashing or reading the key again.
//
// The index has twice as many slots as the buffer, so its load factor
// stays at most 1/2 and probe runs stay short; deletion shifts the rest of
// the run back instead of leaving tombstones. Growing the buffer (doubling,
// which moves positions) rebuilds the index from the stored tags. Neither
// shrinks, like the map and buffer before them.
//
// Keys are hashed with maphash.Comparable; TestQueueHotPathAllocatesNothing
// checks that this allocates nothing for string, int and struct keys.
type keyRing[K comparable] struct {
	keys  []K      // circular buffer, power-of-two length
	tags  []uint32 // tags[p] is the tag of keys[p]
	head  int      // position of the oldest key
	size  int      // number of keys
	index []uint64 // 0 = free; else tag<<32 | position
	imask uint32   // len(index)-1
	seed  maphash.Seed
}

const keyRingMinSize = 16

func (r *keyRing[K]) len() int { return r.size }

// tag is a key's 32-bit hash, never 0 (a free slot is 0). Its low bits pick
// the home slot in the index. It only reads the seed, which init sets once,
// so callers compute it before taking the queue's lock.
func (r *keyRing[K]) tag(key K) uint32 {
	return uint32(maphash.Comparable(r.seed, key)) | 1
}

// pushTagged appends key, whose tag is tag. With dedup it first looks key up
// and appends nothing if it is there; without, the caller knows it is not.
// It reports whether it appended.
func (r *keyRing[K]) pushTagged(key K, tag uint32, dedup bool) bool {
	i := tag & r.imask
	for s := r.index[i]; s != 0; s = r.index[i] {
		if dedup && uint32(s>>32) == tag && r.keys[uint32(s)] == key {
			return false
		}
		i = (i + 1) & r.imask
	}
	r.append(key, tag, i)
	return true
}

// init prepares an empty ring; it must be called once before any other
// method.
func (r *keyRing[K]) init() {
	r.seed = maphash.MakeSeed()
	r.keys = make([]K, keyRingMinSize)
	r.tags = make([]uint32, keyRingMinSize)
	r.index = make([]uint64, 2*keyRingMinSize)
	r.imask = 2*keyRingMinSize - 1
}

// freeSlot returns the first free index slot of tag's probe run.
func (r *keyRing[K]) freeSlot(tag uint32) uint32 {
	i := tag & r.imask
	for r.index[i] != 0 {
		i = (i + 1) & r.imask
	}
	return i
}

// append stores key with tag at the tail; slot is tag's free index slot.
func (r *keyRing[K]) append(key K, tag, slot uint32) {
	if r.size == len(r.keys) {
		r.grow()
		slot = r.freeSlot(tag)
	}
	pos := (r.head + r.size) & (len(r.keys) - 1)
	r.keys[pos] = key
	r.tags[pos] = tag
	r.size++
	r.index[slot] = uint64(tag)<<32 | uint64(pos)
}

// grow doubles the buffer, unrolling it to start at position 0, and
// rebuilds the index for the new positions.
func (r *keyRing[K]) grow() {
	n := 2 * len(r.keys)
	if n > 1<<31 { // positions and index slots are uint32
		panic("workqueue: more than 2^31 keys queued")
	}
	keys := make([]K, n)
	tags := make([]uint32, n)
	m := copy(keys, r.keys[r.head:])
	copy(keys[m:], r.keys[:r.head])
	m = copy(tags, r.tags[r.head:])
	copy(tags[m:], r.tags[:r.head])
	r.keys, r.tags, r.head = keys, tags, 0
	r.index = make([]uint64, 2*n)
	r.imask = uint32(2*n - 1)
	for pos, tag := range tags[:r.size] {
		r.index[r.freeSlot(tag)] = uint64(tag)<<32 | uint64(pos)
	}
}

// pop removes and returns the oldest key and its tag; the ring must not be
// empty.
func (r *keyRing[K]) pop() (K, uint32) {
	pos := r.head
	key, tag := r.keys[pos], r.tags[pos]
	var zero K
	r.keys[pos] = zero // let the GC have it
	r.size--
	if r.size == 0 {
		r.head = 0 // keep reusing the same, warm, positions
	} else {
		r.head = (pos + 1) & (len(r.keys) - 1)
	}

	// Find pos's slot in tag's probe run; it is there.
	want := uint64(tag)<<32 | uint64(pos)
	i := tag & r.imask
	for r.index[i] != want {
		i = (i + 1) & r.imask
	}
	// Empty it, moving later entries of the run back into the hole when
	// their home slot does not lie cyclically in (hole, j].
	for j := (i + 1) & r.imask; r.index[j] != 0; j = (j + 1) & r.imask {
		home := uint32(r.index[j]>>32) & r.imask
		var stays bool
		if i < j {
			stays = i < home && home <= j
		} else {
			stays = i < home || home <= j
		}
		if !stays {
			r.index[i] = r.index[j]
			i = j
		}
	}
	r.index[i] = 0
	return key, tag
}
