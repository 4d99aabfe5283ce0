package runtimetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// SourceOptions configures NewSource.
type SourceOptions struct {
	// Resource names the resource in the API errors the source returns, e.g.
	// {Group: "samplecontroller.example.com", Resource: "foos"}. Empty means
	// {Resource: "objects"}.
	Resource schema.GroupResource
	// EventLogSize bounds how many object events are kept for replaying to a
	// watch that resumes from an older resourceVersion; a watch from before the
	// oldest kept event gets 410 Expired. 0 means 1000.
	EventLogSize int
}

// Request is one call a Source received, in arrival order (see Source.Requests).
type Request struct {
	// Verb is the call: "list" or "watch" (the API server's verbs, as
	// client-go's testing.Action.GetVerb names them).
	Verb    string
	Options metav1.ListOptions
	// Time is when the call arrived (fake time inside a synctest bubble).
	Time time.Time
}

// The verbs a Source serves (Request.Verb, FailNext).
const (
	verbList  = "list"
	verbWatch = "watch"
)

// Source is a deterministic, in-memory API server for one resource. It
// implements reflector.ListerWatcher[T], so a Reflector or an informer can run
// against it in a unit test, and the test drives it: Add, Update and Delete
// objects (each gets the next resourceVersion, "1", "2", ...), emit bookmarks,
// drop watches, expire resourceVersions (Compact), refuse WatchList, inject
// errors (FailNext) or raw watch events (Inject).
//
// Semantics follow the API server where a Reflector can tell the difference:
//   - List pages with Limit/Continue over a snapshot taken at the first page;
//     every page carries that snapshot's resourceVersion and RemainingItemCount.
//     A continue token older than the last Compact gets 410 Expired.
//   - Watch from resourceVersion R replays the logged events after R, then
//     streams live events in resourceVersion order. R older than the event log
//     or than the last Compact gets an ERROR event with a 410 Expired Status.
//     R "" or "0" starts with an ADDED event for every object (unless
//     SendInitialEvents=false). ResourceVersionMatch without SendInitialEvents
//     is refused with 422, as the server does.
//   - Watch with SendInitialEvents=true (WatchList) sends an ADDED event for
//     every object, then a BOOKMARK annotated k8s.io/initial-events-end, then
//     live events — unless RefuseWatchList(true), which answers 422 Invalid.
//   - Watch honours TimeoutSeconds (closes the watch, like the server) and
//     AllowWatchBookmarks (Bookmark only reaches watches that asked).
//
// Every object handed out is a deep copy; the caller may mutate it.
//
// Label selectors and the field selectors metadata.name and
// metadata.namespace are honoured by List and Watch; a watch sees an object
// that starts or stops matching as ADDED or DELETED, as on the API server. A
// Source has no namespace scoping of its own: it is one resource across all
// namespaces (use a field selector on metadata.namespace, or one Source per
// informer).
//
// A Source is safe for concurrent use. Its methods never block on a slow
// watcher: each open watch has an unbounded queue drained by one goroutine,
// which exits when the watch is stopped, dropped, timed out, or its ctx ends.
//
// What a Source holds is its objects and the event log (EventLogSize
// events, and the states they replaced), plus the snapshots behind
// outstanding continue tokens of paged LISTs (at most 8): nothing of what it
// has served. A watch releases each event once sent, and a drained queue its
// array, so a test that measures an informer at scale over a Source (a
// WatchList of a million objects queues a million events) measures the
// informer, not the Source.
//
// T must be a pointer to a struct type (as every generated API type is).
type Source[T store.Object[T]] struct {
	resource schema.GroupResource
	logSize  int

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced when the set of open watches changes
	rv       int64
	objects  map[string]T
	log      []logged[T] // events, oldest first: those with rv > logStart are kept for replay
	logStart int64       // a watch may resume from any rv >= logStart
	compact  int64       // continue tokens and exact lists below this rv are expired
	watches  map[*fakeWatch]struct{}
	pages    map[int64][]T // snapshots behind outstanding continue tokens
	fail     map[string][]error
	refuseWL bool
	requests []Request
}

type logged[T any] struct {
	rv   int64
	typ  watch.EventType
	obj  T
	prev T // the state before a MODIFIED, for selector transitions
}

// NewSource returns a Source holding objs (added in order, at resourceVersions
// 1..len(objs)).
func NewSource[T store.Object[T]](opts SourceOptions, objs ...T) *Source[T] {
	if opts.Resource.Resource == "" {
		opts.Resource.Resource = "objects"
	}
	if opts.EventLogSize <= 0 {
		opts.EventLogSize = 1000
	}
	s := &Source[T]{
		resource: opts.Resource,
		logSize:  opts.EventLogSize,
		changed:  make(chan struct{}),
		objects:  make(map[string]T),
		watches:  make(map[*fakeWatch]struct{}),
		pages:    make(map[int64][]T),
		fail:     make(map[string][]error),
	}
	for _, o := range objs {
		if _, err := s.writeLocked(watch.Added, o); err != nil {
			panic(fmt.Sprintf("runtimetest.NewSource: %v", err))
		}
	}
	return s
}

var _ reflector.ListerWatcher[*metav1.PartialObjectMetadata] = (*Source[*metav1.PartialObjectMetadata])(nil)

// Add stores a copy of obj at the next resourceVersion, emits ADDED to every
// open watch and returns the stored copy. It fails with AlreadyExists if an
// object with obj's key exists.
func (s *Source[T]) Add(obj T) (T, error) {
	return s.write(watch.Added, obj)
}

// Update replaces the object with obj's key by a copy of obj at the next
// resourceVersion, emits MODIFIED and returns the stored copy. It fails with
// NotFound if there is no such object.
func (s *Source[T]) Update(obj T) (T, error) {
	return s.write(watch.Modified, obj)
}

// Delete removes the object with obj's key, emits DELETED carrying its last
// state at the deletion's resourceVersion, and returns that state. It fails
// with NotFound if there is no such object.
func (s *Source[T]) Delete(obj T) (T, error) {
	return s.write(watch.Deleted, obj)
}

func (s *Source[T]) write(typ watch.EventType, obj T) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, err := s.writeLocked(typ, obj)
	if err != nil {
		return stored, err
	}
	return stored.DeepCopy(), nil
}

// writeLocked is write, returning the stored object itself (not to be
// handed out: the source keeps it).
func (s *Source[T]) writeLocked(typ watch.EventType, obj T) (T, error) {
	var zero T
	key := store.Key(obj)
	cur, exists := s.objects[key]
	switch {
	case typ == watch.Added && exists:
		return zero, apierrors.NewAlreadyExists(s.resource, key)
	case typ != watch.Added && !exists:
		return zero, apierrors.NewNotFound(s.resource, key)
	}
	s.rv++
	var stored T
	if typ == watch.Deleted {
		stored = cur.DeepCopy()
		delete(s.objects, key)
	} else {
		stored = obj.DeepCopy()
		s.objects[key] = stored
	}
	stored.SetResourceVersion(strconv.FormatInt(s.rv, 10))
	s.log = append(s.log, logged[T]{rv: s.rv, typ: typ, obj: stored, prev: cur})
	if over := len(s.log) - s.logSize; over > 0 {
		// The last logSize events are kept; older ones are trimmed once a
		// quarter of logSize of them have piled up (Watch skips them: their
		// rv is at most logStart), so a write moves 4 events on average,
		// not the whole log.
		s.logStart = s.log[over-1].rv
		if over > s.logSize/4 {
			n := copy(s.log, s.log[over:])
			clear(s.log[n:])
			s.log = s.log[:n]
		}
	}
	for w := range s.watches {
		if t, ok := w.sel.event(typ, stored, cur); ok {
			w.push(watch.Event{Type: t, Object: stored.DeepCopy()})
		}
	}
	return stored, nil
}

// Get returns a copy of the object stored under key.
func (s *Source[T]) Get(key string) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.objects[key]
	if !ok {
		var zero T
		return zero, false
	}
	return o.DeepCopy(), true
}

// Snapshot returns a copy of every stored object by key: the state a
// converged cache must equal.
func (s *Source[T]) Snapshot() map[string]T {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]T, len(s.objects))
	for k, o := range s.objects {
		m[k] = o.DeepCopy()
	}
	return m
}

// ResourceVersion returns the current resourceVersion (that of the latest
// write or bookmark; "0" before any).
func (s *Source[T]) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strconv.FormatInt(s.rv, 10)
}

// Bookmark advances the resourceVersion by one, as writes to other resources
// do on a real server, and sends a BOOKMARK at it to every open watch that set
// AllowWatchBookmarks.
func (s *Source[T]) Bookmark() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	for w := range s.watches {
		if w.bookmarks {
			w.push(watch.Event{Type: watch.Bookmark, Object: s.bookmark(s.rv, false)})
		}
	}
}

// Compact expires everything older than the current resourceVersion, like an
// etcd compaction: every open watch receives an ERROR event with a 410
// Expired Status and is closed; later watches from an older resourceVersion
// and outstanding continue tokens get 410 too. A Reflector must relist.
func (s *Source[T]) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compact = s.rv
	s.logStart = s.rv
	s.log = nil
	clear(s.pages)
	st := s.expired("the resourceVersion was compacted").Status()
	for w := range s.watches {
		w.end(&watch.Event{Type: watch.Error, Object: &st})
	}
	s.watchesChangedLocked(true)
}

// DropWatches closes every open watch at once, as a broken connection would:
// events not yet received are lost (a watcher that resumes from the last
// resourceVersion it saw gets them replayed). An event that a reader is
// receiving at that very moment may still arrive.
func (s *Source[T]) DropWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watches {
		w.end(nil)
	}
	s.watchesChangedLocked(true)
}

// Inject sends ev as-is to every open watch, after the events already queued.
// It is not logged for replay and does not change the resourceVersion. Use it
// for malformed events or ERROR events that the typed methods cannot produce.
func (s *Source[T]) Inject(ev watch.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watches {
		w.push(ev)
	}
}

// RefuseWatchList makes later watches with SendInitialEvents=true fail with a
// 422 Invalid error, as servers without WatchList support do (refuse=true), or
// serves them again (refuse=false).
func (s *Source[T]) RefuseWatchList(refuse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseWL = refuse
}

// FailNext makes the next call of verb ("list" or "watch") return err
// instead of being served. Calls queue up: FailNext("list", a);
// FailNext("list", b) fails the next two lists with a, then b. Use
// apierrors constructors for realistic errors, e.g.
// apierrors.NewTooManyRequests("slow down", 3) (Retry-After: 3s) or
// apierrors.NewForbidden(...). It panics on another verb, which no call
// would ever match (a test's mistake).
func (s *Source[T]) FailNext(verb string, err error) {
	if verb != verbList && verb != verbWatch {
		panic(fmt.Sprintf("runtimetest: FailNext(%q): the verbs are %q and %q", verb, verbList, verbWatch))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[verb] = append(s.fail[verb], err)
}

// Calls returns how many List and Watch calls the source has received.
func (s *Source[T]) Calls() (lists, watches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.requests {
		if r.Verb == verbList {
			lists++
		} else {
			watches++
		}
	}
	return lists, watches
}

// Requests returns every call received so far, oldest first.
func (s *Source[T]) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// OpenWatches returns the number of watches currently open.
func (s *Source[T]) OpenWatches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watches)
}

// WaitForWatches blocks until at least n watches are open, or ctx ends (then
// it returns an error wrapping ctx's). Tests use it to know a Reflector has
// finished its list and is watching, before they write or drop watches.
func (s *Source[T]) WaitForWatches(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		open, ch := len(s.watches), s.changed
		s.mu.Unlock()
		if open >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("runtimetest: waiting for %d open watches of %s, have %d: %w", n, s.resource, open, ctx.Err())
		}
	}
}

func (s *Source[T]) watchesChangedLocked(closed bool) {
	if closed {
		clear(s.watches)
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// record logs the call and returns the injected failure for it, if any.
func (s *Source[T]) recordLocked(verb string, opts metav1.ListOptions) error {
	s.requests = append(s.requests, Request{Verb: verb, Options: opts, Time: time.Now()})
	if q := s.fail[verb]; len(q) > 0 {
		s.fail[verb] = q[1:]
		return q[0]
	}
	return nil
}
