package fifo

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
)

// DeltaType says what happened to an object.
type DeltaType uint8

const (
	// Added is an object created (a watch ADDED event).
	Added DeltaType = iota + 1
	// Updated is an object changed (a watch MODIFIED event).
	Updated
	// Deleted is an object removed (a watch DELETED event), or a tombstone that
	// Replace synthesized (then Delta.FinalStateUnknown is set).
	Deleted
	// Replaced is an object seen in a relist (List or WatchList).
	Replaced
)

// String returns the name of t ("Added", "Updated", ...).
func (t DeltaType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Replaced:
		return "Replaced"
	}
	return fmt.Sprintf("DeltaType(%d)", uint8(t))
}

// Delta is one change to one key.
type Delta[T any] struct {
	Type DeltaType
	// FinalStateUnknown is set on a Deleted delta that Replace synthesized: the
	// object vanished while the watch was down and Object is the last state known
	// to this process (a tombstone), not the state at deletion. (Beside Type,
	// so that the two share a word: a Delta of an interface is 40 bytes, not 48.)
	FinalStateUnknown bool
	// Key is cache.Key of Object, computed once by the FIFO.
	Key string
	// Object is the new state, or for Deleted the last known state.
	Object T
}

// Batch is what Pop hands to the consumer. Deltas are in arrival order. When
// Atomic is set (a relist), the consumer must apply all Deltas as one
// transaction (cache.Writer.Batch) so readers never see half a relist.
//
// A Batch, and its Deltas slice, are valid only during the process call that
// receives them: the FIFO reuses the backing array for the next Pop.
type Batch[T any] struct {
	Deltas []Delta[T]
	Atomic bool
	// ResourceVersion is the resourceVersion the consumer's store reaches
	// once it has applied the batch, when the batch carries one: the one
	// passed to Replace (Atomic batches), or that of a Bookmark queued right
	// after Deltas (then Deltas may be empty). "" otherwise: the store is
	// then at the resourceVersion of the last delta's object.
	ResourceVersion string
	// Namespace is the partition (Options.Namespaces) ResourceVersion
	// belongs to: the one whose Replace or Bookmark it came from; "" when
	// the FIFO is not partitioned.
	Namespace string
	// InitialList is true when the batch was popped before the FIFO synced
	// (see HasSynced), i.e. it belongs to the initial population. A batch
	// never mixes initial and later deltas.
	InitialList bool
	// Listed is the Mark queued by Listed right after Deltas (which may then
	// be empty), nil if none.
	Listed *relist.Mark
}

// KnownObjects is the consumer's view of what it has applied; Replace uses
// it to synthesize tombstones. *cache.Cache (the informer core's)
// satisfies it. It must be safe to call concurrently with the consumer's
// writes (the FIFO reads it while the consumer processes a batch).
type KnownObjects[T any] interface {
	Get(key string) (T, bool)
	ListKeys() []string
}

// Options configures New.
type Options[T cache.Obj] struct {
	// Known is the consumer's store (required for tombstones). Without it,
	// Replace produces no tombstones for keys that are not queued and Delete
	// never drops a delete of an unknown key.
	Known KnownObjects[T]
	// Transform, when set, runs on every object passed to Add, Update,
	// Delete and Replace before it is queued (and before its key is
	// computed). It never runs on tombstones, which come from Known and were
	// transformed already. It may modify obj in place: the FIFO
	// hands it objects that nobody else references (fresh from the decoder).
	Transform func(T) (T, error)
	// Name names the queue in errors, e.g. "foos.v1alpha1.example.com".
	Name string
	// MaxBatch caps how many single (non-relist) deltas one Pop hands over;
	// 0 means DefaultMaxBatch. Atomic batches are never split.
	MaxBatch int
	// Namespaces, when not empty, partitions the FIFO by namespace for one
	// producer per namespace (a Reflector watching only that namespace):
	// each producer feeds it through Namespace(ns), whose Replace
	// touches only keys of ns, so one namespace's relist never tombstones
	// another's objects. The initial population is then complete once every
	// namespace has had its first Replace. The FIFO's own Replace
	// returns an error on a partitioned FIFO. Namespaces must be distinct and
	// not "" (all namespaces is the unpartitioned FIFO).
	Namespaces []string
}

// DefaultMaxBatch is the default Options.MaxBatch.
const DefaultMaxBatch = 1000

// ErrClosed is returned by Pop once the FIFO is closed and drained, and by
// the producer methods after Close.
var ErrClosed = errors.New("fifo: closed")

// ErrConcurrentPop is returned by Pop when another Pop is in progress: the
// FIFO has one consumer.
var ErrConcurrentPop = errors.New("fifo: concurrent Pop: the FIFO has a single consumer")

// entry is one slot of the queue: a single delta, or an atomic relist.
type entry[T any] struct {
	d     Delta[T]
	batch *replaceBatch[T] // non-nil: an atomic batch from Replace
}

type replaceBatch[T any] struct {
	deltas []Delta[T]
	rv     string
	ns     string // the partition of a Replace or Bookmark ("" unpartitioned)
	// bookmark marks an entry that is a Bookmark or a Mark (Listed), not a
	// relist: no deltas, never in FIFO.batches.
	bookmark bool
	mark     *relist.Mark // the Mark queued by Listed, if any
	seq      uint64       // position in the stream
	// index maps each key of deltas to its last delta there. It is built
	// only when a lookup needs it, so an initial list that nobody asks about
	// while it is pending costs no map at all.
	index map[string]int32
}

// lookup returns the last delta of key in the batch.
func (b *replaceBatch[T]) lookup(key string) (Delta[T], bool) {
	if b.index == nil {
		b.index = make(map[string]int32, len(b.deltas))
		for i := range b.deltas {
			b.index[b.deltas[i].Key] = int32(i)
		}
	}
	i, ok := b.index[key]
	if !ok {
		return Delta[T]{}, false
	}
	return b.deltas[i], true
}

// keyState tracks the single (non-relist) deltas of one key that are queued
// or being processed.
type keyState[T any] struct {
	n    int32     // queued + in-flight single deltas of this key
	last DeltaType // type of the newest one
	obj  T         // object of the newest one
	seq  uint64    // its position in the stream
}

// FIFO is a DeltaFIFO: a queue of deltas (Added, Updated, Deleted, Replaced)
// delivered in arrival order across keys, with per-key tracking of what is
// pending for tombstones and deletion dedup. Resync is not the FIFO's: the
// informer resyncs each handler from its cache.
//
// Producer methods (Add, Update, Delete, Replace), Close, HasSynced,
// Synced and Len are safe for concurrent use. There must be one consumer:
// Pop is not reentrant and two concurrent Pops get ErrConcurrentPop.
// Producers never wait for the consumer: the queue is unbounded.
type FIFO[T cache.Obj] struct {
	known     KnownObjects[T]
	transform func(T) (T, error)
	name      string
	maxBatch  int

	notify   chan struct{} // cap 1: "something was queued"
	closedCh chan struct{}
	synced   chan struct{}

	mu sync.Mutex
	// ring buffer of entries: ring[(head+i)%len(ring)] for i < count.
	ring    []entry[T]
	head    int
	count   int
	ndeltas int // deltas queued (not in flight)
	pending map[string]keyState[T]
	// pendingPeak is the largest len(pending) since it was last allocated.
	pendingPeak int
	// batches are the relists queued or being processed, oldest first; with
	// pending they make up everything not yet applied by the consumer.
	batches []*replaceBatch[T]
	seq     uint64 // last stream position handed out
	closed  bool
	popping bool
	// unreplaced holds the partitions (Options.Namespaces) that have not had
	// their first Replace yet; populated waits for it to be empty.
	unreplaced  map[string]struct{}
	partitioned map[string]struct{} // Options.Namespaces as a set; nil when unpartitioned
	// populated is set by the first Replace; initialLeft
	// is the number of entries of the initial population not yet processed.
	populated    bool
	initialLeft  int
	inflight     int // entries of the batch being processed (counted by done)
	syncedClosed bool

	out []Delta[T] // consumer-owned buffer reused by Pop

	// reused counts the objects Lookup has handed out: once there is one,
	// Replace looks for them among its objects (of any partition), so as
	// never to transform an object the cache holds.
	reused atomic.Int64
}

// New returns an empty, open FIFO.
func New[T cache.Obj](opts Options[T]) *FIFO[T] {
	mb := opts.MaxBatch
	if mb <= 0 {
		mb = DefaultMaxBatch
	}
	name := opts.Name
	if name == "" {
		name = "objects"
	}
	f := &FIFO[T]{
		known:     opts.Known,
		transform: opts.Transform,
		name:      name,
		maxBatch:  mb,
		notify:    make(chan struct{}, 1),
		closedCh:  make(chan struct{}),
		synced:    make(chan struct{}),
		ring:      make([]entry[T], 16),
		pending:   make(map[string]keyState[T]),
	}
	if len(opts.Namespaces) > 0 {
		f.partitioned = make(map[string]struct{}, len(opts.Namespaces))
		f.unreplaced = make(map[string]struct{}, len(opts.Namespaces))
		for _, ns := range opts.Namespaces {
			if ns == "" {
				panic("fifo: Options.Namespaces holds \"\" (all namespaces): leave Namespaces empty instead")
			}
			f.partitioned[ns] = struct{}{}
			f.unreplaced[ns] = struct{}{}
		}
	}
	return f
}

// Add queues an Added delta for obj (after Transform). It returns ErrClosed
// after Close, or the Transform error. It never blocks on the consumer.
func (f *FIFO[T]) Add(obj T) error { return f.single(Added, obj) }

// Update queues an Updated delta for obj (after Transform). See Add.
func (f *FIFO[T]) Update(obj T) error { return f.single(Updated, obj) }

// Delete queues a Deleted delta for obj (after Transform), carrying obj as
// the last known state. It is dropped (nil error) when the newest pending
// delta of the key is already a Deleted (deletion dedup), or when nothing is
// pending for the key and Known does not have it (a delete of something the
// consumer never saw, as in client-go's DeltaFIFO).
func (f *FIFO[T]) Delete(obj T) error { return f.single(Deleted, obj) }

func (f *FIFO[T]) single(t DeltaType, obj T) error {
	obj, key, err := f.prepare(t, obj)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if t == Deleted && f.dropDeleteLocked(key) {
		return nil
	}
	f.pushLocked(entry[T]{d: Delta[T]{Type: t, Key: key, Object: obj}})
	f.trackLocked(key, t, obj)
	f.signal()
	return nil
}

// prepare transforms obj and computes its key.
func (f *FIFO[T]) prepare(t DeltaType, obj T) (T, string, error) {
	if f.transform != nil {
		out, err := f.transform(obj)
		if err != nil {
			return obj, "", fmt.Errorf("fifo %s: transform of %s %s: %w", f.name, t, cache.Key(obj), err)
		}
		obj = out
	}
	return obj, cache.Key(obj), nil
}

// dropDeleteLocked reports whether a Deleted delta for key is redundant.
func (f *FIFO[T]) dropDeleteLocked(key string) bool {
	if t, _, ok := f.newestLocked(key); ok {
		return t == Deleted
	}
	if f.known == nil {
		return false
	}
	_, ok := f.known.Get(key)
	return !ok
}

// Close closes the FIFO: producers get ErrClosed from now on, and Pop
// returns ErrClosed once everything queued before has been popped. Safe to
// call more than once and concurrently with everything else.
func (f *FIFO[T]) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.closedCh)
	}
}

// HasSynced reports whether the initial population has been popped and
// processed: everything queued up to and including the first Replace's
// batch. Deltas added before the first Replace count toward it (as in
// client-go's RealFIFO, where they are queued ahead of the relist); unlike
// client-go, an Add before any Replace does not by itself mark the FIFO
// synced, since the Reflector always starts with a Replace. It is true right
// away when the first Replace left the queue empty. Safe for concurrent use.
func (f *FIFO[T]) HasSynced() bool {
	select {
	case <-f.synced:
		return true
	default:
		return false
	}
}

// Synced returns a channel that is closed when HasSynced becomes true.
func (f *FIFO[T]) Synced() <-chan struct{} { return f.synced }

// Len returns the number of deltas queued, not counting a batch being
// processed. Safe for concurrent use.
func (f *FIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ndeltas
}

func (f *FIFO[T]) markPopulatedLocked() {
	if f.populated {
		return
	}
	f.populated = true
	// The batch being processed, if any, was popped as initial and its done
	// will count it off: it belongs to the population too.
	f.initialLeft = f.count + f.inflight
	f.checkSyncedLocked()
}

func (f *FIFO[T]) checkSyncedLocked() {
	if f.populated && f.initialLeft <= 0 && !f.syncedClosed {
		f.syncedClosed = true
		close(f.synced)
	}
}

func (f *FIFO[T]) signal() {
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// pushLocked queues e at the next stream position (f.seq).
func (f *FIFO[T]) pushLocked(e entry[T]) {
	f.seq++
	if f.count == len(f.ring) {
		grown := make([]entry[T], 2*len(f.ring))
		n := copy(grown, f.ring[f.head:])
		copy(grown[n:], f.ring[:f.head])
		f.ring, f.head = grown, 0
	}
	f.ring[(f.head+f.count)%len(f.ring)] = e
	f.count++
	if e.batch != nil {
		f.ndeltas += len(e.batch.deltas)
	} else {
		f.ndeltas++
	}
}

// trackLocked records the single delta just pushed (at f.seq).
func (f *FIFO[T]) trackLocked(key string, t DeltaType, obj T) {
	st := f.pending[key]
	st.n++
	st.last = t
	st.obj = obj
	st.seq = f.seq
	f.pending[key] = st
	if len(f.pending) > f.pendingPeak {
		f.pendingPeak = len(f.pending)
	}
}

// newestLocked returns the type and object of the newest delta of key that
// is queued or being processed, if any.
func (f *FIFO[T]) newestLocked(key string) (DeltaType, T, bool) {
	st, single := f.pending[key]
	for j := len(f.batches) - 1; j >= 0; j-- {
		b := f.batches[j]
		if single && b.seq < st.seq {
			break // this and older relists precede the newest single delta
		}
		if d, ok := b.lookup(key); ok {
			return d.Type, d.Object, true
		}
	}
	if single {
		return st.last, st.obj, true
	}
	var zero T
	return 0, zero, false
}

func (f *FIFO[T]) untrackLocked(key string) {
	st, ok := f.pending[key]
	if !ok {
		return
	}
	if st.n <= 1 {
		delete(f.pending, key)
		return
	}
	st.n--
	f.pending[key] = st
}
