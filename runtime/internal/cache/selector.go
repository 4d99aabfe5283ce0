package cache

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
// candidate sets (per requirement, and the namespace's) is walked and the
// other conditions are checked by set membership, without touching the
// objects. A label key is indexed the first time a selector asks for it (one
// scan of the cache under the write lock) and maintained from then on, so
// only the keys controllers actually select on cost memory and update time.
// Other requirements (!=, notin, exists, !key, gt, lt) are checked with
// sel.Matches on the candidates, or on a scan of the namespace or the cache
// when no requirement can use the index.
//
// Safe for concurrent use; objects are shared and read-only.
func (i *Cache) ListSelector(namespace string, sel labels.Selector) []Obj {
	var out objects
	i.ListSelectorInto(namespace, sel, &out)
	return out
}

// ListSelectorInto is ListSelector into out (see Collector).
func (i *Cache) ListSelectorInto(namespace string, sel labels.Selector, out Collector) {
	if sel == nil || sel.Empty() {
		if namespace == "" {
			i.ListInto(out)
			return
		}
		i.mu.RLock()
		defer i.mu.RUnlock()
		p := i.nsIndex[namespace]
		out.Reserve(p.len())
		i.appendPostingLocked(out, &p, "")
		return
	}
	reqs, selectable := sel.Requirements()
	if !selectable {
		return
	}
	if !slices.ContainsFunc(reqs, indexable) {
		i.scan(namespace, sel, out)
		return
	}
	i.mu.RLock()
	defer i.mu.RUnlock()
	for !i.labelKeysIndexedLocked(reqs) {
		i.mu.RUnlock()
		i.indexLabelKeys(reqs)
		i.mu.RLock()
	}
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
		return
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
			return
		}
		checks = append(checks, u)
	}
	out.Reserve(bestN)
	for n := range driver {
		driver[n].each(func(id uint32) bool {
			for _, c := range checks {
				if !c.has(id) {
					return true
				}
			}
			o := i.objs.get(id)
			if !matchAll || sel.Matches(labels.Set(o.GetLabels())) {
				out.Add(o)
			}
			return true
		})
	}
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
func (i *Cache) filterPostingLocked(out Collector, p *posting, ns string, sel labels.Selector) {
	if sel == nil {
		i.appendPostingLocked(out, p, ns)
		return
	}
	p.each(func(id uint32) bool {
		o := i.objs.get(id)
		if (ns == "" || o.GetNamespace() == ns) && sel.Matches(labels.Set(o.GetLabels())) {
			out.Add(o)
		}
		return true
	})
}

// scan answers selectors the label index cannot help with.
func (i *Cache) scan(ns string, sel labels.Selector, out Collector) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if ns != "" {
		p := i.nsIndex[ns]
		i.filterPostingLocked(out, &p, "", sel)
		return
	}
	for w, word := range i.live {
		for word != 0 {
			o := i.objs.get(uint32(w*64 + bits.TrailingZeros64(word)))
			word &= word - 1
			if sel.Matches(labels.Set(o.GetLabels())) {
				out.Add(o)
			}
		}
	}
}

// labelKeysIndexedLocked reports whether every key with an indexable
// requirement in reqs is in the label index.
func (i *Cache) labelKeysIndexedLocked(reqs labels.Requirements) bool {
	for n := range reqs {
		if indexable(reqs[n]) {
			if _, ok := i.labels[reqs[n].Key()]; !ok {
				return false
			}
		}
	}
	return true
}

// indexLabelKeys adds the keys of the indexable requirements in reqs to the
// label index, scanning the cache once under the write lock.
func (i *Cache) indexLabelKeys(reqs labels.Requirements) {
	i.mu.Lock()
	defer i.mu.Unlock()
	var keys []string
	for n := range reqs {
		k := reqs[n].Key()
		if _, ok := i.labels[k]; !ok && indexable(reqs[n]) && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return
	}
	if i.labels == nil {
		i.labels = map[string]map[string]posting{}
	}
	added := make([]map[string]posting, len(keys))
	for n, k := range keys {
		added[n] = map[string]posting{}
		i.labels[k] = added[n]
	}
	for id := range liveIDs(i.live) {
		l := i.objs.get(id).GetLabels()
		if len(l) == 0 {
			continue
		}
		for n, k := range keys {
			if v, ok := l[k]; ok {
				i.addPostingLocked(added[n], v, id)
			}
		}
	}
}
