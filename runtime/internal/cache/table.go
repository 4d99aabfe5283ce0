package cache

import (
	"hash/maphash"
	"iter"
	"math/bits"
	"slices"
	"unsafe"
)

// The cache's hash table, with the cache's lock held (the *Locked methods):
// keys hash to slots of an open-addressing table that hold object ids; an
// id addresses the object slot array (objs), the key arena (keys) and the
// live bitmap. doc.go describes the layout.

func (i *Cache) hash(key string) uint32 { return uint32(maphash.String(i.seed, key)) }

// findLocked returns the table slot and id of key, whose hash is h.
func (i *Cache) findLocked(key string, h uint32) (slot int, id uint32, ok bool) {
	if len(i.table) == 0 {
		return 0, 0, false
	}
	mask := uint32(len(i.table) - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		e := i.table[s]
		if e == 0 {
			return 0, 0, false
		}
		if uint32(e>>32) == h {
			if id := uint32(e) - 1; i.keys.equal(id, key) {
				return int(s), id, true
			}
		}
	}
}

// getNamespacedLocked looks up namespace/name without allocating the key.
func (i *Cache) getNamespacedLocked(ns, name string) (Obj, bool) {
	var buf [128]byte
	k := buf[:0]
	if ns != "" {
		k = append(append(k, ns...), '/')
	}
	k = append(k, name...)
	var zero Obj
	if len(k) == 0 {
		return zero, false
	}
	// k does not escape: findLocked only compares it.
	key := unsafe.String(&k[0], len(k))
	if _, id, ok := i.findLocked(key, i.hash(key)); ok {
		return i.objs.get(id), true
	}
	return zero, false
}

func (i *Cache) getLocked(key string) (Obj, bool) {
	_, id, ok := i.findLocked(key, i.hash(key))
	if !ok {
		var zero Obj
		return zero, false
	}
	return i.objs.get(id), true
}

// keyOfLocked returns the key of live id (a new string).
func (i *Cache) keyOfLocked(id uint32) string { return string(i.keys.bytes(id)) }

func (i *Cache) listKeysLocked() []string {
	out := make([]string, 0, i.count)
	for id := range liveIDs(i.live) {
		out = append(out, i.keyOfLocked(id))
	}
	return out
}

// liveIDs yields the ids whose bit is set in live, in increasing order. (The
// hottest loops, List and the full-scan selector, walk the bitmap inline.)
func liveIDs(live []uint64) iter.Seq[uint32] {
	return func(yield func(uint32) bool) {
		for w, word := range live {
			for word != 0 {
				if !yield(uint32(w*64 + bits.TrailingZeros64(word))) {
					return
				}
				word &= word - 1
			}
		}
	}
}

func (i *Cache) insertLocked(h, id uint32) {
	if (i.count+1)*4 > len(i.table)*3 {
		i.growLocked()
	}
	mask := uint32(len(i.table) - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		if i.table[s] == 0 {
			i.table[s] = uint64(h)<<32 | uint64(id+1)
			i.count++
			return
		}
	}
}

func (i *Cache) growLocked() { i.resizeLocked(max(16, 2*len(i.table))) }

// resizeLocked rehashes the table into n slots (a power of two, more than
// count).
func (i *Cache) resizeLocked(n int) {
	t := make([]uint64, n)
	mask := uint32(n - 1)
	for _, e := range i.table {
		if e == 0 {
			continue
		}
		for s := uint32(e>>32) & mask; ; s = (s + 1) & mask {
			if t[s] == 0 {
				t[s] = e
				break
			}
		}
	}
	i.table = t
}

// reserveLocked makes room for n objects in all: ids (objs, their keys'
// refs, the live bitmap) and a table that holds n without growing.
func (i *Cache) reserveLocked(n int) {
	if ids := i.objs.len() + n - i.count - len(i.free); ids > i.objs.len() {
		i.objs.grow(ids - i.objs.len())
		if len(i.keys.refs) < ids {
			i.keys.refs = slices.Grow(i.keys.refs, ids-len(i.keys.refs))
		}
		if words := (ids + 63) / 64; len(i.live) < words {
			i.live = slices.Grow(i.live, words-len(i.live))
		}
	}
	size := max(16, len(i.table))
	for (n+1)*4 > size*3 {
		size *= 2
	}
	if size > len(i.table) {
		i.resizeLocked(size)
	}
}

// removeSlotLocked empties slot s, shifting later entries of its probe run
// back so lookups never need tombstones.
func (i *Cache) removeSlotLocked(s int) {
	mask := len(i.table) - 1
	hole := s
	for j := (s + 1) & mask; ; j = (j + 1) & mask {
		e := i.table[j]
		if e == 0 {
			break
		}
		home := int(uint32(e>>32)) & mask
		// The entry at j may move into the hole unless its home lies
		// cyclically in (hole, j].
		var stays bool
		if hole <= j {
			stays = hole < home && home <= j
		} else {
			stays = hole < home || home <= j
		}
		if !stays {
			i.table[hole] = e
			hole = j
		}
	}
	i.table[hole] = 0
	i.count--
}

func (i *Cache) allocLocked(obj Obj) uint32 {
	var id uint32
	if n := len(i.free); n > 0 {
		id = i.free[n-1]
		i.free = i.free[:n-1]
		i.objs.set(id, obj)
	} else {
		id = i.objs.add(obj)
		if w := int(id / 64); w >= len(i.live) {
			i.live = append(i.live, 0)
		}
	}
	i.live[id/64] |= 1 << (id % 64)
	return id
}

func (i *Cache) setLocked(key string, obj Obj) (Obj, bool) {
	h := i.hash(key)
	if _, id, ok := i.findLocked(key, h); ok {
		old := i.objs.get(id)
		if Same(old, obj) {
			// A relist's unchanged object, handed on as is (see
			// runtime/internal/known): its index entries are right already.
			return old, true
		}
		i.objs.set(id, obj)
		i.reindexLocked(id, key, old, obj, true, true)
		return old, true
	}
	id := i.allocLocked(obj)
	i.keys.set(id, key)
	i.insertLocked(h, id)
	var zero Obj
	i.reindexLocked(id, key, zero, obj, false, true)
	return zero, false
}

func (i *Cache) deleteLocked(key string) (Obj, bool) {
	var zero Obj
	slot, id, ok := i.findLocked(key, i.hash(key))
	if !ok {
		return zero, false
	}
	old := i.objs.get(id)
	i.removeSlotLocked(slot)
	i.reindexLocked(id, key, old, zero, true, false)
	i.objs.free(id)
	i.live[id/64] &^= 1 << (id % 64)
	i.free = append(i.free, id)
	i.keys.remove(id)
	if i.keys.needsCompact() {
		i.keys.compact(liveIDs(i.live))
	}
	return old, true
}
