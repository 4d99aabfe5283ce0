package shard

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/internal/relist"
)

// Selector returns the shardSelector this replica's informers should list
// and watch with (Options.ByUID; "" otherwise, or when it would select
// everything): the ranges of the buckets that the membership whose keys it
// holds (grown) or the one it is moving to (target) gives it. So its cache
// holds every object it owns, receives the objects of buckets it is about to
// gain before it gains them, and keeps those it is losing until it has
// dropped them (docs/sharding.md, "Server-side sharded watches"). Safe for
// concurrent use; lock-free.
//
// If objects arrive that no selector in effect within the last
// LeaseDuration admits, the server ignores shardSelector (a server without the feature gate answers full lists and
// watches): the shard logs a warning once and Selector returns "" from then
// on, so the informers relist everything explicitly and stop relisting on
// every membership change; ownership is unaffected (it never depends on
// what the server sends).
func (s *Shard) Selector() string { return *s.selector.Load() }

// ServerIgnoresSelector reports whether objects outside the selector have
// arrived (see Selector), so that this shard fell back to watching
// everything. Lock-free.
func (s *Shard) ServerIgnoresSelector() bool { return s.ignored.Load() }

// selection is the buckets of one selector, and when a newer one replaced
// it (zero: current). Lists and watches made with a replaced selector may
// still be delivering for a while: LeaseDuration after it was replaced,
// its buckets still count as selected.
type selection struct {
	set      bucketSet
	replaced time.Time
}

// checkSelected records an object the informer delivered under Options.ByUID
// and falls back when no recent selector admits it.
func (s *Shard) checkSelected(uid types.UID) {
	if s.ignored.Load() {
		return
	}
	recent := s.selRecent.Load()
	if recent == nil {
		return
	}
	b := bucketOf(uidHash(uid))
	now := time.Now()
	for _, sel := range *recent {
		if sel.set.has(b) && (sel.replaced.IsZero() || now.Before(sel.replaced.Add(s.opts.LeaseDuration))) {
			return
		}
	}
	if !s.ignored.CompareAndSwap(false, true) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logger.Info("WARNING: received an object outside this replica's shardSelector: the API server ignores shardSelector " +
		"(feature gate ShardedListAndWatch off?); falling back to watching every object (ownership is unaffected)")
	none := ""
	s.selector.Store(&none)
	s.selRecent.Store(nil)
	s.firedLocked()
}

// Tweak sets opts.ShardSelector to Selector() when that is not empty: use
// it as the informers' ListOptions tweak (factory.Options.Tweak, or
// listwatch.Options.Tweak) together with RelistTrigger, and only against an
// API server that honours the selector (ServerSelects). It reads the
// selector at every LIST and WATCH. Safe for concurrent use.
func (s *Shard) Tweak(opts *metav1.ListOptions) {
	if sel := s.Selector(); sel != "" {
		opts.ShardSelector = sel
	}
}

// RelistTrigger returns the trigger fired whenever Selector changes, for the
// Reflector options of the informers Tweak is set on
// (reflector.Options.Relist, or factory.Options.Reflector.Relist): a watch
// cannot change its selector, so they relist with the new one. Nil without
// Options.ByUID.
func (s *Shard) RelistTrigger() *relist.Trigger { return s.relist }

// refreshSelectorLocked recomputes Selector from grown and target and fires
// the trigger when it changed.
func (s *Shard) refreshSelectorLocked() {
	if !s.opts.ByUID || s.ignored.Load() {
		return
	}
	key := s.target.id
	if s.grown != nil {
		key += "/" + s.grown.id
	}
	if key == s.selKey {
		return
	}
	s.selKey = key
	set := s.target.bucketsOf(s.opts.Identity)
	if s.grown != nil {
		set = set.union(s.grown.bucketsOf(s.opts.Identity))
	}
	sel := selectorFor(set)
	if sel == *s.selector.Load() {
		return
	}
	// "" selects every bucket: set is full then.
	now := time.Now()
	var recent []selection
	if old := s.selRecent.Load(); old != nil {
		for _, sel := range *old {
			if sel.replaced.IsZero() {
				sel.replaced = now
			}
			if now.Before(sel.replaced.Add(s.opts.LeaseDuration)) {
				recent = append(recent, sel)
			}
		}
	}
	recent = append(recent, selection{set: set})
	s.selRecent.Store(&recent)
	s.selector.Store(&sel)
	s.logger.V(2).Info("shard selector changed: relisting", "buckets", set.len(), "of", buckets)
	s.firedLocked()
}

// firedLocked fires the relist trigger for a new selector and records when,
// for relistedLocked.
func (s *Shard) firedLocked() {
	s.selGen = s.relist.Fire()
	s.selChanged = time.Now()
	s.relistWaitLogged = false
}

// relistedLocked reports whether the informers behind this shard's filters
// have delivered a list made with the current selector (under
// Options.ByUID; always true otherwise), so that this replica may gain keys:
// until then a list made with an older, narrower selector may still be on
// its way to the handlers, and its tombstones of objects the replica is
// about to own would reach them as deletions. An informer that has not
// relisted within LeaseDuration of the change (stopped, or failing) stops
// holding the gain back; next is moved to that deadline.
func (s *Shard) relistedLocked(now time.Time, next *time.Time) bool {
	if s.relist == nil {
		return true
	}
	if !slices.ContainsFunc(s.filters, func(f replayer) bool { return !f.relistedSince(s.selGen) }) {
		return true
	}
	deadline := s.selChanged.Add(s.opts.LeaseDuration)
	if now.Before(deadline) {
		if deadline.Before(*next) {
			*next = deadline
		}
		return false
	}
	if !s.relistWaitLogged {
		s.relistWaitLogged = true
		s.logger.Info("an informer has not relisted with the new shard selector within the lease duration; gaining keys anyway",
			"leaseDuration", s.opts.LeaseDuration)
	}
	return true
}

// probeSelector selects every hash: a server that honours shardSelector
// answers it with the list's metadata.shardInfo (built-in resources), one
// that does not ignores the parameter.
const probeSelector = "shardRange(" + uidField + ", '0x0000000000000000', '0x10000000000000000')"

// probeList is what ServerSelects decodes of a LIST: metadata, and the
// items' names and uids only.
type probeList struct {
	Metadata metav1.ListMeta `json:"metadata"`
	Items    []struct {
		Metadata struct {
			Name string    `json:"name"`
			UID  types.UID `json:"uid"`
		} `json:"metadata"`
	} `json:"items"`
}

// ServerSelects reports whether the API server honours shardSelector
// (Kubernetes 1.36+ with the ShardedListAndWatch feature gate on) for the
// resource (plural, e.g. "foos") in namespace ("" for all) that client
// serves. A server without the gate, or older, ignores the parameter and
// answers a full list (it does not refuse it), so without this check a
// replica would silently cache everything: still correct (the Filter
// forwards only owned objects), but not what the selector is for.
//
// First it lists at most one object with a selector of the whole hash
// space: a list with metadata.shardInfo says yes (built-in resources). Lists
// of custom resources carry no shardInfo even when filtered (an
// UnstructuredList has no SetShardInfo in apimachinery v0.37.2), so then it
// takes the object listed and lists it again by name with a selector of the
// half of the hash space that excludes it: a server that honours the
// selector returns nothing. With no object to try, it answers false (the
// safe way: client-side sharding) with a nil error. It blocks for at most
// two requests, bounded by ctx.
func ServerSelects(ctx context.Context, client rest.Interface, namespace, resource string) (bool, error) {
	first, err := probe(ctx, client, namespace, resource, probeSelector, "")
	if err != nil {
		return false, err
	}
	if first.Metadata.ShardInfo != nil {
		return true, nil
	}
	if len(first.Items) == 0 {
		return false, nil
	}
	o := first.Items[0].Metadata
	other := "shardRange(" + uidField + ", '0x0000000000000000', '0x8000000000000000')"
	if uidHash(o.UID) < 1<<63 {
		other = "shardRange(" + uidField + ", '0x8000000000000000', '0x10000000000000000')"
	}
	again, err := probe(ctx, client, namespace, resource, other, "metadata.name="+o.Name)
	if err != nil {
		return false, err
	}
	for _, it := range again.Items {
		if it.Metadata.UID == o.UID {
			return false, nil // the selector was ignored
		}
	}
	return true, nil
}

func probe(ctx context.Context, client rest.Interface, namespace, resource, selector, fieldSelector string) (*probeList, error) {
	req := client.Get().Namespace(namespace).Resource(resource).
		Param("limit", "1").Param("shardSelector", selector).
		SetHeader("Accept", "application/json")
	if fieldSelector != "" {
		req = req.Param("fieldSelector", fieldSelector)
	}
	raw, err := req.Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("probing shardSelector support on %s: %w", resource, err)
	}
	var list probeList
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("probing shardSelector support on %s: decoding the list: %w", resource, err)
	}
	return &list, nil
}
