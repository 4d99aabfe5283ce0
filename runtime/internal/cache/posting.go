package cache

import (
	"math/bits"
	"slices"
)

// posting is the set of slot ids that share one index value (one namespace,
// one index value, one label key=value). It is a small value stored directly
// in its index's map, so the common case of a value held by exactly one object
// costs nothing beyond the map slot. Two or more ids move to a bigSet: a sorted
// []uint32 while sparse, a bitmap over the id space once dense (at least one id
// in 16), which keeps adds and removes O(1) for values shared by many objects.
type posting struct {
	n   uint32
	one uint32  // the only id when n == 1
	big *bigSet // when n >= 2
}

type bigSet struct {
	ids  []uint32 // sorted ascending; used while bits == nil
	bits []uint64 // bitmap; bit id is set when id is a member
}

// Density thresholds, with hysteresis so a set at the boundary does not flip
// representation on every change: a bitmap costs universe/n bits per member
// against 32 for a sorted slice.
const (
	toBitmapDensity = 16 // become a bitmap when n*16 >= universe
	toSliceDensity  = 64 // back to a slice when n*64 < universe
	minBitmapLen    = 64
)

func (p *posting) len() int { return int(p.n) }

func (p *posting) has(id uint32) bool {
	switch {
	case p.n == 0:
		return false
	case p.n == 1:
		return p.one == id
	case p.big.bits != nil:
		w := int(id / 64)
		return w < len(p.big.bits) && p.big.bits[w]&(1<<(id%64)) != 0
	default:
		_, ok := slices.BinarySearch(p.big.ids, id)
		return ok
	}
}

// add inserts id; universe is the current size of the id space, used to pick
// the representation. It reports whether id was not already a member.
func (p *posting) add(id uint32, universe int) bool {
	switch {
	case p.n == 0:
		p.n, p.one = 1, id
		return true
	case p.n == 1:
		if p.one == id {
			return false
		}
		a, b := p.one, id
		if b < a {
			a, b = b, a
		}
		p.big = &bigSet{ids: []uint32{a, b}}
		p.n, p.one = 2, 0
		return true
	case p.big.bits != nil:
		s := p.big
		w := int(id / 64)
		if w >= len(s.bits) {
			s.bits = slices.Grow(s.bits, w+1-len(s.bits))[:w+1]
		}
		m := uint64(1) << (id % 64)
		if s.bits[w]&m != 0 {
			return false
		}
		s.bits[w] |= m
		p.n++
		return true
	default:
		s := p.big
		i, ok := slices.BinarySearch(s.ids, id)
		if ok {
			return false
		}
		s.ids = slices.Insert(s.ids, i, id)
		p.n++
		if int(p.n) >= minBitmapLen && int(p.n)*toBitmapDensity >= universe {
			s.toBitmap()
		}
		return true
	}
}

// remove deletes id and reports whether it was a member.
func (p *posting) remove(id uint32, universe int) bool {
	switch {
	case p.n == 0:
		return false
	case p.n == 1:
		if p.one != id {
			return false
		}
		p.n, p.one = 0, 0
		return true
	case p.big.bits != nil:
		s := p.big
		w := int(id / 64)
		m := uint64(1) << (id % 64)
		if w >= len(s.bits) || s.bits[w]&m == 0 {
			return false
		}
		s.bits[w] &^= m
		p.n--
		if int(p.n)*toSliceDensity < universe || p.n < minBitmapLen/2 {
			s.toSlice(int(p.n))
		}
	default:
		s := p.big
		i, ok := slices.BinarySearch(s.ids, id)
		if !ok {
			return false
		}
		s.ids = slices.Delete(s.ids, i, i+1)
		p.n--
		if cap(s.ids) > 64 && len(s.ids) < cap(s.ids)/4 {
			s.ids = slices.Clip(slices.Clone(s.ids))
		}
	}
	if p.n == 1 {
		p.one = p.big.first()
		p.big = nil
	}
	return true
}

func (s *bigSet) first() uint32 {
	if s.bits == nil {
		return s.ids[0]
	}
	for w, word := range s.bits {
		if word != 0 {
			return uint32(w*64 + bits.TrailingZeros64(word))
		}
	}
	panic("store: empty bitmap posting")
}

func (s *bigSet) toBitmap() {
	last := s.ids[len(s.ids)-1]
	b := make([]uint64, last/64+1)
	for _, id := range s.ids {
		b[id/64] |= 1 << (id % 64)
	}
	s.bits, s.ids = b, nil
}

func (s *bigSet) toSlice(n int) {
	ids := make([]uint32, 0, n)
	for w, word := range s.bits {
		for word != 0 {
			ids = append(ids, uint32(w*64+bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	s.ids, s.bits = ids, nil
}

// each calls fn for every member in ascending order until fn returns false.
func (p *posting) each(fn func(id uint32) bool) {
	switch {
	case p.n == 0:
	case p.n == 1:
		fn(p.one)
	case p.big.bits != nil:
		for w, word := range p.big.bits {
			for word != 0 {
				if !fn(uint32(w*64 + bits.TrailingZeros64(word))) {
					return
				}
				word &= word - 1
			}
		}
	default:
		for _, id := range p.big.ids {
			if !fn(id) {
				return
			}
		}
	}
}
