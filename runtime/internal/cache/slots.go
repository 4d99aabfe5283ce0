package cache

import (
	"slices"
	"unsafe"
)

// objSlots holds the object of every id in one word: the data word of its
// Obj interface value. The other word, the type word (itab), is the same for
// every object of a Go type, and an informer's objects are all of one type:
// it is kept once (tab). Should objects of a second type be stored, every
// slot gets its own type word as well (tabs), so any mix of types works and
// the one-type case pays 8 bytes per object instead of 16.
//
// Methods are called with the cache's lock held (reads under the read lock).
type objSlots struct {
	data []unsafe.Pointer // by id; nil when the id is free
	tab  unsafe.Pointer   // the type word of every stored object, while there is one (tabs nil)
	tabs []unsafe.Pointer // by id, once objects of two types have been stored; nil before
}

// iface is the layout of a non-empty interface value such as Obj: a type
// word (the itab) and a data word. TestObjSlotsRoundTrip checks that values
// come back whole, for pointer and non-pointer types alike.
type iface struct {
	tab, data unsafe.Pointer
}

func words(o *Obj) *iface { return (*iface)(unsafe.Pointer(o)) }

func (s *objSlots) len() int { return len(s.data) }

// get returns the object of id (nil if the id is free).
func (s *objSlots) get(id uint32) Obj {
	d := s.data[id]
	if d == nil {
		return nil
	}
	tab := s.tab
	if s.tabs != nil {
		tab = s.tabs[id]
	}
	var o Obj
	*words(&o) = iface{tab: tab, data: d}
	return o
}

// set stores obj (not nil) in id, which must exist.
func (s *objSlots) set(id uint32, obj Obj) {
	w := *words(&obj)
	s.data[id] = w.data
	s.setTab(id, w.tab)
}

func (s *objSlots) setTab(id uint32, tab unsafe.Pointer) {
	switch {
	case s.tabs != nil:
		s.tabs[id] = tab
	case s.tab == nil:
		s.tab = tab
	case s.tab != tab:
		// A second type: from now on every slot has its own type word.
		s.tabs = make([]unsafe.Pointer, len(s.data), cap(s.data))
		for n, d := range s.data {
			if d != nil {
				s.tabs[n] = s.tab
			}
		}
		s.tabs[id] = tab
	}
}

// add stores obj (not nil) in a new id and returns it.
func (s *objSlots) add(obj Obj) uint32 {
	id := uint32(len(s.data))
	s.data = append(s.data, nil)
	if s.tabs != nil {
		s.tabs = append(s.tabs, nil)
	}
	s.set(id, obj)
	return id
}

// free empties id.
func (s *objSlots) free(id uint32) {
	s.data[id] = nil
	if s.tabs != nil {
		s.tabs[id] = nil
	}
}

// grow makes room for n more ids.
func (s *objSlots) grow(n int) {
	s.data = slices.Grow(s.data, n)
	if s.tabs != nil {
		s.tabs = slices.Grow(s.tabs, n)
	}
}
