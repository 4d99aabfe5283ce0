// Package store is the bottom stage of the runtime: the Indexer, a thread-safe
// local cache of typed objects keyed by "namespace/name" with named indices,
// the Listers that generated code embeds, index func helpers (Values,
// PointerValues), keys (Key, SplitKey), resourceVersion
// comparison (CompareResourceVersions) and InternStrings, the memory
// transform the informer applies with its InternStrings option.
//
// Ownership is visible in the types (an idea borrowed from kube-rs): New returns
// the single *Writer, which the informer owns; everyone else gets the *Indexer
// read side (Writer.Indexer) or a Lister over it.
//
// Indexer[T] and Writer[T] are typed views of the runtime's untyped cache
// (runtime/internal/cache), which holds every object as an interface and is
// not generic: Go compiles generic code again in every package that
// instantiates it, so this keeps the hash table and indexes compiled once, in
// the runtime, however many generated packages use them
// (docs/generated-code.md). A view is a defined type over the untyped cache,
// so making one costs nothing; its methods convert. Every write through a
// view is of type T, and the informer checks what it stores, so the
// conversions cannot fail: were one handed another type, it would panic with
// an error naming both types rather than return a nil T.
//
// Objects returned by any read are shared with the cache and with every other
// reader. They are read-only: mutate a DeepCopy, never the object itself.
//
// # Concurrency
//
// One sync.RWMutex guards everything. Writes (Set, Delete, a whole Batch,
// AddIndexers, and the one-time build of the label index) hold it exclusively
// and update the objects and every index together, so a reader never sees an
// object without its index entries or half of a Batch (a relist). Reads hold
// it shared and copy results into fresh slices before returning.
//
// # Memory layout
//
// client-go's cache keeps a map[string]interface{} of items plus, per index,
// map[value]map[key]struct{}: every object costs its key string and a map slot
// in each index (about 170 bytes with the namespace index and one more). Here:
//
//   - objects sit in a slot array addressed by a dense uint32 id; freed ids
//     are reused. A slot is one word, the data word of the object's Obj
//     interface value: the type word is kept once while all objects are of
//     one Go type (an informer's are), per slot beside it once two types
//     have been stored;
//   - keys are bytes packed into 64 KB chunks (no string header, no
//     allocation and nothing for the GC to scan per key), and an
//     open-addressing table of (32-bit hash, id) pairs maps a key to its id;
//   - each index maps a value to a posting set of ids: inline for one id, a
//     sorted []uint32 while sparse, a bitmap once dense, so a value shared by
//     many objects costs 4 bytes or less per object and adds and removes stay
//     cheap;
//   - ids are stable across updates, so an update whose index values did not
//     change touches no index at all; a bit per object (its namespace is its
//     key's) and a bit per object and index (it has exactly one value) let
//     such an update prove it without reading the old object, which in a
//     large cache is a cache miss.
//
// Measured with bench/store_test.go (100k pods, namespace index plus one custom
// index): about 67 bytes per object, against 159 for client-go's
// cache.NewIndexer. Capacity grows to the peak population and is not given
// back, except that the key chunks are rewritten once deleted keys outweigh
// the live ones.
//
// Why keep the key bytes at all (25 bytes per object): without them a hash
// hit must be verified against the object's own namespace and name, so a Get
// reads the object's metadata and name bytes, scattered over the heap, and
// was measured 10× slower than client-go's map for a bare probe over 100k
// pods; with the keys packed in a few MB that stay in cache, it is on par.
//
// # Label selectors
//
// ListSelector answers equality requirements (=, ==, in) from a label index
// (label key -> value -> posting set): it walks the smallest candidate set and
// checks the other conditions by set membership. A label key is indexed the
// first time a selector asks for it and maintained from then on, so users pay
// memory and update time only for the keys they select on.
//
// # Compaction
//
// The informer drops managedFields from freshly decoded objects by default
// and, with its InternStrings option, applies InternStrings: objects with
// equal labels get one shared labels map, and it interns the other strings that repeat (namespace,
// annotation keys, finalizers, owner reference kind and apiVersion) with the
// unique package, through a small per-P cache of plain maps in front of it
// (runtime/internal/cache's intern.go says why).
//
// # Freshness
//
// The cache also holds the resourceVersion its writer has applied
// (Indexer.ResourceVersion; per namespace with Options.Namespaces), set by the
// writer after the writes it covers, so it is never ahead of a read.
// HasReached, AfterResourceVersion (a callback run by the write that reaches
// a resourceVersion) and WaitForResourceVersion compare resourceVersions as
// KEP-5504 defines (CompareResourceVersions, apimachinery's helper); one that
// is not well-formed is ErrNotComparable, never ordered by guess.
// Lister.GetAtLeast is a read that waits for a resourceVersion first.
package store
