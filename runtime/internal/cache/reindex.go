package cache

import (
	"fmt"
	"slices"

	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/redact"
)

// Index maintenance, with the cache's lock held: the postings (object ids
// per index value) of every index, kept current by reindexLocked on each
// set and delete, and read by ByIndex and friends.

func (i *Cache) addPostingLocked(m map[string]posting, v string, id uint32) {
	p := m[v]
	if p.add(id, i.objs.len()) {
		m[v] = p
	}
}

func (i *Cache) removePostingLocked(m map[string]posting, v string, id uint32) {
	p, ok := m[v]
	if !ok || !p.remove(id, i.objs.len()) {
		return
	}
	if p.n == 0 {
		delete(m, v)
	} else {
		m[v] = p
	}
}

// reindexLocked moves id from where old was indexed to where obj belongs.
// hasOld is false for an add, hasNew false for a delete.
//
// On an update it avoids reading old where it can (see nsKeyed and
// index.one): old was stored a while ago and is usually out of the CPU
// caches, while obj has just been read to compute its key.
func (i *Cache) reindexLocked(id uint32, key string, old, obj Obj, hasOld, hasNew bool) {
	var newNS string
	if hasNew {
		newNS = obj.GetNamespace()
	}
	newKeyed := hasNew && keyInNamespace(key, newNS)
	if !hasOld || !hasNew || !newKeyed || !getBit(i.nsKeyed, id) {
		var oldNS string
		if hasOld {
			oldNS = old.GetNamespace()
		}
		if !hasOld || !hasNew || oldNS != newNS {
			if hasOld {
				i.removePostingLocked(i.nsIndex, oldNS, id)
			}
			if hasNew {
				i.addPostingLocked(i.nsIndex, newNS, id)
			}
		}
	}
	setBit(&i.nsKeyed, id, newKeyed)

	for name, idx := range i.indices {
		var oldVals, newVals []string
		var oldErr, newErr error
		if hasNew {
			newVals, newErr = idx.fn(obj)
			if newErr != nil {
				i.reportIndexError(name, key, newErr)
				newVals = nil
			}
		}
		if hasOld && len(newVals) == 1 && getBit(idx.one, id) {
			// old had one value, and it is the new one iff its posting
			// holds id.
			if p, ok := idx.values[newVals[0]]; ok && p.has(id) {
				continue
			}
		}
		setBit(&idx.one, id, len(newVals) == 1)
		if hasOld {
			oldVals, oldErr = idx.fn(old)
		}
		if oldErr != nil {
			// Where old was indexed is unknown: scrub id from the whole index.
			for v, p := range idx.values {
				if p.has(id) {
					i.removePostingLocked(idx.values, v, id)
				}
			}
			oldVals = nil
		}
		if len(oldVals) == 1 && len(newVals) == 1 && oldVals[0] == newVals[0] {
			continue
		}
		for _, v := range oldVals {
			if !slices.Contains(newVals, v) {
				i.removePostingLocked(idx.values, v, id)
			}
		}
		for _, v := range newVals {
			i.addPostingLocked(idx.values, v, id)
		}
	}

	if len(i.labels) > 0 {
		var oldL, newL map[string]string
		if hasOld {
			oldL = old.GetLabels()
		}
		if hasNew {
			newL = obj.GetLabels()
		}
		for k, byValue := range i.labels {
			ov, hadOld := oldL[k]
			nv, hasNewV := newL[k]
			if hadOld == hasNewV && ov == nv {
				continue
			}
			if hadOld {
				i.removePostingLocked(byValue, ov, id)
			}
			if hasNewV {
				i.addPostingLocked(byValue, nv, id)
			}
		}
	}
}

func (i *Cache) reportIndexError(name, key string, err error) {
	if i.onIndexError != nil {
		i.onIndexError(name, key, err)
		return
	}
	klog.Background().Error(indexErrorText(err), "Index func failed; object not indexed", "index", name, "key", key)
}

// indexErrorText is what a log line says of an index func's error: a
// *TypeError (the runtime's own, naming two types) as it is, any other by
// its type, since the index func made its text while holding the object
// (docs/guide.md, "What reaches a log or an error").
func indexErrorText(err error) error {
	if _, ok := err.(*TypeError); ok {
		return err
	}
	return redact.Withhold(err)
}

// IndexErrorText is indexErrorText, for the informer's log line.
func IndexErrorText(err error) error { return indexErrorText(err) }

func (i *Cache) postingLocked(indexName, value string) (posting, error) {
	if indexName == NamespaceIndex {
		return i.nsIndex[value], nil
	}
	idx := i.indices[indexName]
	if idx == nil {
		return posting{}, fmt.Errorf("index %q: %w", indexName, ErrUnknownIndex)
	}
	return idx.values[value], nil
}

// appendPostingLocked appends the objects of p, restricted to namespace ns
// unless ns is "".
func (i *Cache) appendPostingLocked(out Collector, p *posting, ns string) {
	p.each(func(id uint32) bool {
		if o := i.objs.get(id); ns == "" || o.GetNamespace() == ns {
			out.Add(o)
		}
		return true
	})
}

// ByIndexNamespaceInto is ByIndex restricted to namespace ns, into out.
func (i *Cache) ByIndexNamespaceInto(indexName, value, ns string, out Collector) error {
	i.mu.RLock()
	defer i.mu.RUnlock()
	p, err := i.postingLocked(indexName, value)
	if err != nil {
		return err
	}
	if indexName == NamespaceIndex {
		if value != ns {
			return nil
		}
		ns = ""
	}
	i.appendPostingLocked(out, &p, ns)
	return nil
}
