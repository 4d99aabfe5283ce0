package cache

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// IndexFunc computes the index values of obj for one named index. It must be
// a pure function of obj: the Indexer calls it on add, update and delete (on
// the old object, to find where it was indexed), so it must return the same
// values for the same object every time. Duplicate values are ignored. It runs
// with the cache's write lock held, so it must be quick and must not call the
// Indexer or the Writer (that deadlocks). An error leaves the object out of
// that index (see Options.OnIndexError). store.Indexers holds its typed
// counterpart; IndexersOf converts.
type IndexFunc func(obj Obj) ([]string, error)

// Indexers maps index names to index funcs.
type Indexers map[string]IndexFunc

// NamespaceIndex is the name of the built-in index on metadata.namespace that
// every Indexer maintains; namespace-scoped listers use it. Cluster-scoped
// objects are indexed under "" (as client-go's MetaNamespaceIndexFunc does).
const NamespaceIndex = "namespace"

// ErrUnknownIndex is wrapped by the errors of reads that name an index the
// Indexer does not have.
var ErrUnknownIndex = errors.New("unknown index")

// Options configures New. store.Options[T] is its typed counterpart
// (store.New converts it field by field, tested by reflection over every
// field).
type Options struct {
	// Indexers are the named indices maintained from the start, beside the
	// built-in NamespaceIndex. An entry named NamespaceIndex is ignored (the
	// built-in one is equivalent), so client-go style
	// Indexers{NamespaceIndex: ...} keeps working; so are nil funcs.
	Indexers Indexers

	// OnIndexError is called, with the write lock held, when an index func
	// fails while an object is stored; the object is then not indexed under
	// that index. It must not call back into the Indexer. When nil, the error
	// is logged through klog (index name and key only, never the object).
	OnIndexError func(index, key string, err error)

	// Namespaces, when not empty, partitions the cache's resourceVersion
	// (see Cache.ResourceVersion) by namespace, for a cache fed by one
	// list and watch per namespace, each with its own resourceVersion. The
	// objects themselves are stored as always.
	Namespaces []string
}

// Cache is the untyped cache (its read side; Writer is its write side):
// a thread-safe store of objects keyed by Key ("namespace/name", or "name" for cluster-scoped objects) with
// named indices and a label index.
//
// All methods are safe for concurrent use by any number of goroutines; reads
// share a sync.RWMutex with the single Writer and never block each other. A
// read sees either none or all of a Writer.Batch. Objects returned by reads
// are shared with the cache and every other reader: they are read-only. Mutate
// a DeepCopy, never the object itself (doing so corrupts the indices too).
//
// Memory layout (see doc.go): objects live in a slot array addressed by a
// uint32 id; an open-addressing hash table maps keys to ids, and the keys
// themselves are bytes packed in a chunked arena (no string per key);
// indices map a value to a posting set of ids.
//
// store.Indexer[T] is the typed view that listers and informers hand out (a
// defined type over Cache, converted to and from it for free); Cache is
// non-generic so that its code is compiled once, in this package.
type Cache struct {
	mu sync.RWMutex

	seed  maphash.Seed
	table []uint64 // linear probing; entry = hash<<32 | (id+1); 0 is empty
	count int

	objs objSlots // by id; nil when the id is free
	live []uint64 // bit id is set when objs[id] holds an object
	free []uint32 // free ids, reused LIFO
	keys keyArena // the key of every live id

	nsIndex map[string]posting
	indices map[string]*index

	// nsKeyed has bit id set when the namespace of objs[id] is the one its
	// key names (always so for keys made by Key). An update under the same
	// key then knows the old namespace without reading the old object, which
	// in a large cache is a cache miss.
	nsKeyed []uint64

	// labels is the label index: label key -> value -> posting. Only keys
	// some selector has asked about are indexed (present, possibly empty).
	labels map[string]map[string]posting

	onIndexError func(index, key string, err error)

	// fresh is the resourceVersion applied and its waiters (freshness.go).
	fresh freshness
}

type index struct {
	fn     IndexFunc
	values map[string]posting
	// one has bit id set when objs[id] is indexed under exactly one value.
	// An update whose new object has one value, whose posting holds id
	// already, then changes nothing, which is known without calling fn on
	// the old object (a cache miss in a large cache).
	one []uint64
}

// Writer is the single write side of a Cache, owned by the informer.
// Its methods must not be called concurrently with each other (there is one
// writer); they are safe to call concurrently with any Cache read. Each
// write takes the Cache's write lock for its duration. store.Writer[T] is
// its typed view.
type Writer struct {
	ix *Cache
}

// New returns an empty untyped cache and its only writer; store.New is the
// typed constructor.
func New(opts Options) *Writer {
	ix := &Cache{
		seed:         maphash.MakeSeed(),
		nsIndex:      map[string]posting{},
		indices:      map[string]*index{},
		onIndexError: opts.OnIndexError,
	}
	ix.fresh.init(opts.Namespaces)
	for name, fn := range opts.Indexers {
		if name == NamespaceIndex || fn == nil {
			continue
		}
		ix.indices[name] = &index{fn: fn, values: map[string]posting{}}
	}
	return &Writer{ix: ix}
}

// Cache returns the read side of the cache. Safe for concurrent use.
func (w *Writer) Cache() *Cache { return w.ix }

// Set stores obj under key, replacing and returning any previous object, and
// updates every index. key should be Key(obj); another key works but costs a
// little memory. Blocks while readers hold the lock.
func (w *Writer) Set(key string, obj Obj) (old Obj, existed bool) {
	w.ix.mu.Lock()
	defer w.ix.mu.Unlock()
	return w.ix.setLocked(key, obj)
}

// Delete removes the object under key from the cache and every index and
// returns it. Deleting a missing key is a no-op that returns existed false.
func (w *Writer) Delete(key string) (old Obj, existed bool) {
	w.ix.mu.Lock()
	defer w.ix.mu.Unlock()
	return w.ix.deleteLocked(key)
}

// Reserve makes room for n objects in all, so that filling an empty cache
// (an informer's initial list) sizes its tables once instead of growing them
// step by step, each step leaving garbage and the last up to a quarter
// unused. It changes nothing a reader sees and does nothing where the cache
// has room already. Blocks while readers hold the lock.
func (w *Writer) Reserve(n int) {
	w.ix.mu.Lock()
	defer w.ix.mu.Unlock()
	w.ix.reserveLocked(n)
}

// Batch runs fn with exclusive access: readers see either none or all of the
// writes fn makes through tx (a relist is applied atomically this way). fn
// must use only tx: calling the Indexer or the Writer from fn deadlocks. tx is
// invalid once fn returns. Readers block for as long as fn runs. There is no
// rollback: if fn panics, the writes it made stay, the lock is released and
// the panic continues.
func (w *Writer) Batch(fn func(tx Tx)) {
	w.ix.mu.Lock()
	defer w.ix.mu.Unlock()
	tx := &tx{ix: w.ix}
	defer func() { tx.ix = nil }()
	fn(tx)
}

// Tx is the write view handed to Writer.Batch; valid only during fn (using it
// afterwards panics). Its methods behave as the Writer's and Indexer's
// methods of the same names; Get and ListKeys see the writes made earlier in
// the same batch.
type Tx interface {
	Get(key string) (Obj, bool)
	Set(key string, obj Obj) (old Obj, existed bool)
	Delete(key string) (old Obj, existed bool)
	ListKeys() []string
}

type tx struct{ ix *Cache }

func (t *tx) Get(key string) (Obj, bool) { return t.ix.getLocked(key) }
func (t *tx) Set(key string, obj Obj) (Obj, bool) {
	return t.ix.setLocked(key, obj)
}
func (t *tx) Delete(key string) (Obj, bool) { return t.ix.deleteLocked(key) }
func (t *tx) ListKeys() []string            { return t.ix.listKeysLocked() }

// Get returns the object stored under key. The object is shared: read-only.
func (i *Cache) Get(key string) (obj Obj, exists bool) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.getLocked(key)
}

// List returns every object in the cache, in no particular order. The slice
// is the caller's; the objects are shared and read-only.
func (i *Cache) List() []Obj {
	var out objects
	i.ListInto(&out)
	return out
}

// ListInto is List into out (see Collector).
func (i *Cache) ListInto(out Collector) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	out.Reserve(i.count)
	for w, word := range i.live {
		for word != 0 {
			out.Add(i.objs.get(uint32(w*64 + bits.TrailingZeros64(word))))
			word &= word - 1
		}
	}
}

// ListKeys returns the keys of every object in the cache, in no particular
// order. Each key is a new string (the cache keeps keys as packed bytes).
func (i *Cache) ListKeys() []string {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.listKeysLocked()
}

// Len returns the number of objects in the cache.
func (i *Cache) Len() int {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.count
}

// ByIndex returns the objects whose index func for indexName returned value.
// It returns an error wrapping ErrUnknownIndex if there is no such index.
// Objects are shared and read-only.
func (i *Cache) ByIndex(indexName, value string) ([]Obj, error) {
	var out objects
	err := i.ByIndexInto(indexName, value, &out)
	return out, err
}

// ByIndexInto is ByIndex into out (see Collector).
func (i *Cache) ByIndexInto(indexName, value string, out Collector) error {
	i.mu.RLock()
	defer i.mu.RUnlock()
	p, err := i.postingLocked(indexName, value)
	if err != nil {
		return err
	}
	out.Reserve(p.len())
	i.appendPostingLocked(out, &p, "")
	return nil
}

// IndexKeys is ByIndex returning keys instead of objects.
func (i *Cache) IndexKeys(indexName, value string) ([]string, error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	p, err := i.postingLocked(indexName, value)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, p.len())
	p.each(func(id uint32) bool {
		out = append(out, i.keyOfLocked(id))
		return true
	})
	return out, nil
}

// ListIndexFuncValues returns every value indexName currently holds objects
// under, in no particular order; nil for an unknown index.
func (i *Cache) ListIndexFuncValues(indexName string) []string {
	i.mu.RLock()
	defer i.mu.RUnlock()
	var m map[string]posting
	if indexName == NamespaceIndex {
		m = i.nsIndex
	} else if idx := i.indices[indexName]; idx != nil {
		m = idx.values
	}
	if m == nil {
		return nil
	}
	out := make([]string, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	return out
}

// AddIndexers adds indices, at any time: the objects already in the cache are
// indexed before it returns, under the write lock, so no reader ever sees a
// partially built index. It returns an error, and adds none of indexers, if a
// name is already in use (NamespaceIndex included), a func is nil, or an index
// func fails on a cached object. Safe for concurrent use.
func (i *Cache) AddIndexers(indexers Indexers) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	names := make([]string, 0, len(indexers))
	for name, fn := range indexers {
		if _, dup := i.indices[name]; dup || name == NamespaceIndex {
			return fmt.Errorf("add indexers: index %q already exists", name)
		}
		if fn == nil {
			return fmt.Errorf("add indexers: index %q has a nil func", name)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	built := make([]*index, len(names))
	for n, name := range names {
		idx := &index{fn: indexers[name], values: map[string]posting{}}
		for id := range liveIDs(i.live) {
			vals, err := idx.fn(i.objs.get(id))
			if err != nil {
				return fmt.Errorf("add indexers: index %q on %q: %w", name, i.keyOfLocked(id), err)
			}
			for _, v := range vals {
				i.addPostingLocked(idx.values, v, id)
			}
			setBit(&idx.one, id, len(vals) == 1)
		}
		built[n] = idx
	}
	for n, name := range names {
		i.indices[name] = built[n]
	}
	return nil
}

// GetNamespaced is Get of Key's key for namespace ns ("" for a
// cluster-scoped object) and name, without building the key.
func (i *Cache) GetNamespaced(ns, name string) (Obj, bool) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.getNamespacedLocked(ns, name)
}

// keyInNamespace reports whether key is a key Key makes for an object in
// namespace ns: "ns/name", or a name without "/" for ns "".
func keyInNamespace(key, ns string) bool {
	if ns == "" {
		return strings.IndexByte(key, '/') < 0
	}
	return len(key) > len(ns) && key[len(ns)] == '/' && key[:len(ns)] == ns
}

func getBit(b []uint64, id uint32) bool {
	w := int(id / 64)
	return w < len(b) && b[w]&(1<<(id%64)) != 0
}

// setBit sets or clears bit id of *b, growing it as needed.
func setBit(b *[]uint64, id uint32, on bool) {
	w := int(id / 64)
	if w >= len(*b) {
		if !on {
			return
		}
		*b = slices.Grow(*b, w+1-len(*b))[:w+1]
	}
	if on {
		(*b)[w] |= 1 << (id % 64)
	} else {
		(*b)[w] &^= 1 << (id % 64)
	}
}
