package cache

import (
	"fmt"
	"iter"
)

// keyArena holds the key of every slot id as bytes packed into fixed-size
// chunks: no string header and no allocation per key, nothing for the GC to
// scan, and the keys of 100k objects fit in a few MB that stay in cache, so
// a Get compares against them without touching the object (whose metadata
// and name bytes are scattered over the heap: reading them was most of a
// Get's time when the object itself was the only copy of the key).
//
// Deleted keys leave garbage behind; once it outweighs the live keys the
// Indexer rewrites the arena (compact), so its size stays within about
// twice the live keys' bytes plus one chunk.
type keyArena struct {
	chunks  [][]byte // each of cap keyChunk, or exactly one key's size if larger
	refs    []uint64 // by id: chunk<<44 | off<<24 | len (see ref)
	live    int      // bytes of live keys
	garbage int      // bytes of deleted keys still in chunks
}

const (
	keyChunk  = 64 << 10
	keyMaxLen = 1<<24 - 1
)

func ref(chunk, off, n int) uint64 { return uint64(chunk)<<44 | uint64(off)<<24 | uint64(n) }

// bytes returns the key of id (which must be live). The slice aliases the
// arena: valid until the next write.
func (a *keyArena) bytes(id uint32) []byte {
	r := a.refs[id]
	c, off, n := r>>44, (r>>24)&(1<<20-1), r&keyMaxLen
	return a.chunks[c][off : off+n]
}

// equal reports whether the key of id (live) is key, without allocating.
func (a *keyArena) equal(id uint32, key string) bool { return string(a.bytes(id)) == key }

// set records key as the key of id.
func (a *keyArena) set(id uint32, key string) {
	n := len(key)
	if n > keyMaxLen {
		panic(fmt.Sprintf("store: key of %d bytes exceeds the limit of %d", n, keyMaxLen))
	}
	last := len(a.chunks) - 1
	if last < 0 || cap(a.chunks[last])-len(a.chunks[last]) < n {
		a.chunks = append(a.chunks, make([]byte, 0, max(keyChunk, n)))
		last++
	}
	c := a.chunks[last]
	off := len(c)
	a.chunks[last] = append(c, key...)
	for int(id) >= len(a.refs) {
		a.refs = append(a.refs, 0)
	}
	a.refs[id] = ref(last, off, n)
	a.live += n
}

// remove marks the key of id (live) as garbage.
func (a *keyArena) remove(id uint32) {
	n := int(a.refs[id] & keyMaxLen)
	a.live -= n
	a.garbage += n
	a.refs[id] = 0
}

// needsCompact reports whether garbage outweighs the live keys (and is
// worth a rewrite).
func (a *keyArena) needsCompact() bool {
	return a.garbage > keyChunk && a.garbage > a.live
}

// compact rewrites the arena with only the keys of ids.
func (a *keyArena) compact(ids iter.Seq[uint32]) {
	old := *a
	*a = keyArena{refs: old.refs}
	for id := range ids {
		a.set(id, string(old.bytes(id)))
	}
}
