package store

import (
	"math"
	"math/bits"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// ListSelector returns the objects in namespace (every namespace when
// namespace is "") whose labels match sel. A nil sel or labels.Everything()
// is as fast as List; labels.Nothing() returns nothing.
//
// Equality requirements (=, ==, in) are answered from a label index — a
// posting set of objects per label key=value — so the cost is proportional
// to the smallest matching set, not to the cache size: the smallest of the
// candidate sets (per requirement, and the namespace's) is walked and each
// candidate is checked against the full selector. The label index is built on
// the first such call (under the write lock, once) and maintained from then
// on, so users that never select by label pay no memory for it. Other
// selectors (!=, notin, exists, !key) scan the namespace or the cache.
//
// Safe for concurrent use; objects are shared and read-only.
func (i *Indexer[T]) ListSelector(namespace string, sel labels.Selector) []T {
	if sel == nil || sel.Empty() {
		if namespace == "" {
			return i.List()
		}
		i.mu.RLock()
		defer i.mu.RUnlock()
		p := i.nsIndex[namespace]
		return i.appendPostingLocked(make([]T, 0, p.len()), &p, "")
	}
	reqs, selectable := sel.Requirements()
	if !selectable {
		return nil
	}
	if !slices.ContainsFunc(reqs, indexable) {
		return i.scan(namespace, sel)
	}
	i.ensureLabelIndex()

	i.mu.RLock()
	defer i.mu.RUnlock()
	// Pick the smallest candidate set: -1 is the namespace (or everything).
	best, bestN := -1, math.MaxInt
	if namespace != "" {
		bestN = int(i.nsIndex[namespace].n)
	}
	var bestVals []string
	for n := range reqs {
		r := &reqs[n]
		if !indexable(*r) {
			continue
		}
		vals := r.ValuesUnsorted()
		if len(vals) > 1 {
			slices.Sort(vals)
			vals = slices.Compact(vals)
		}
		byValue := i.labels[r.Key()]
		size := 0
		for _, v := range vals {
			size += int(byValue[v].n)
		}
		if size < bestN {
			best, bestN, bestVals = n, size, vals
		}
	}
	if bestN == 0 {
		return nil
	}
	// The driver is the smallest candidate set; every other condition is
	// checked by posting membership, so candidates are rejected without
	// touching the objects. Only requirements the label index cannot answer
	// fall back to sel.Matches on the candidates' labels.
	var driver postingUnion
	var checks []postingUnion
	if best < 0 {
		driver = postingUnion{i.nsIndex[namespace]}
	} else {
		byValue := i.labels[reqs[best].Key()]
		for _, v := range bestVals {
			driver = append(driver, byValue[v])
		}
		if namespace != "" {
			checks = append(checks, postingUnion{i.nsIndex[namespace]})
		}
	}
	matchAll := false
	for n := range reqs {
		if n == best {
			continue
		}
		r := &reqs[n]
		if !indexable(*r) {
			matchAll = true
			continue
		}
		byValue := i.labels[r.Key()]
		var u postingUnion
		for _, v := range r.ValuesUnsorted() {
			if p, ok := byValue[v]; ok {
				u = append(u, p)
			}
		}
		if len(u) == 0 {
			return nil
		}
		checks = append(checks, u)
	}
	out := make([]T, 0, bestN)
	for n := range driver {
		driver[n].each(func(id uint32) bool {
			for _, c := range checks {
				if !c.has(id) {
					return true
				}
			}
			o := i.objs[id]
			if !matchAll || sel.Matches(labels.Set(o.GetLabels())) {
				out = append(out, o)
			}
			return true
		})
	}
	return out
}

// postingUnion is the ids of one requirement: in any of its postings.
type postingUnion []posting

func (u postingUnion) has(id uint32) bool {
	for n := range u {
		if u[n].has(id) {
			return true
		}
	}
	return false
}

func indexable(r labels.Requirement) bool {
	switch r.Operator() {
	case selection.Equals, selection.DoubleEquals, selection.In:
		return true
	}
	return false
}

// filterPostingLocked appends the objects of p that are in ns (any if "")
// and match sel (any if nil).
func (i *Indexer[T]) filterPostingLocked(out []T, p *posting, ns string, sel labels.Selector) []T {
	if sel == nil {
		return i.appendPostingLocked(out, p, ns)
	}
	p.each(func(id uint32) bool {
		o := i.objs[id]
		if (ns == "" || o.GetNamespace() == ns) && sel.Matches(labels.Set(o.GetLabels())) {
			out = append(out, o)
		}
		return true
	})
	return out
}

// scan answers selectors the label index cannot help with.
func (i *Indexer[T]) scan(ns string, sel labels.Selector) []T {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if ns != "" {
		p := i.nsIndex[ns]
		return i.filterPostingLocked(nil, &p, "", sel)
	}
	var out []T
	for w, word := range i.live {
		for word != 0 {
			o := i.objs[w*64+bits.TrailingZeros64(word)]
			word &= word - 1
			if sel.Matches(labels.Set(o.GetLabels())) {
				out = append(out, o)
			}
		}
	}
	return out
}

// ensureLabelIndex builds the label index on first use.
func (i *Indexer[T]) ensureLabelIndex() {
	if i.labelsBuilt.Load() {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.labels != nil {
		return
	}
	i.labels = map[string]map[string]posting{}
	for w, word := range i.live {
		for word != 0 {
			id := uint32(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
			for k, v := range i.objs[id].GetLabels() {
				i.addLabelLocked(k, v, id)
			}
		}
	}
	i.labelsBuilt.Store(true)
}

func (i *Indexer[T]) addLabelLocked(k, v string, id uint32) {
	byValue := i.labels[k]
	if byValue == nil {
		byValue = map[string]posting{}
		i.labels[k] = byValue
	}
	i.addPostingLocked(byValue, v, id)
}

func (i *Indexer[T]) removeLabelLocked(k, v string, id uint32) {
	byValue := i.labels[k]
	i.removePostingLocked(byValue, v, id)
	if len(byValue) == 0 {
		delete(i.labels, k)
	}
}
