// Package leasefake is an in-memory Lease API for the tests of the packages
// that run runtime/shard (shard itself, fleet): shard.LeaseClient with the
// API server's optimistic concurrency, over a runtimetest.Source that serves
// the watch, and failures to inject. It imports only runtimetest and
// apimachinery, and is never linked into a program (tests only).
package leasefake

import (
	"context"
	"sync"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// Namespace is where every Lease of a Leases lives.
const Namespace = "default"

var leasesGR = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

// Leases is an in-memory Lease API: a shard.LeaseClient whose Update and
// Delete check the resourceVersion, as the API server does, and whose
// Source lists and watches what it stores (shard.Options.Source). Safe for
// concurrent use.
type Leases struct {
	// Source serves the Leases' list and watch.
	Source *runtimetest.Source[*coordinationv1.Lease]

	mu sync.Mutex
	// failing: writes of these Leases return an error without reaching the
	// store (a partitioned replica).
	failing map[string]bool
	// lost: updates of these Leases are applied, but the caller gets an
	// error, as when a response is lost.
	lost   map[string]bool
	writes int // successful creates, updates and deletes
}

// New returns an empty Lease API.
func New() *Leases {
	return &Leases{
		Source:  runtimetest.NewSource[*coordinationv1.Lease](runtimetest.SourceOptions{Resource: leasesGR}),
		failing: map[string]bool{},
		lost:    map[string]bool{},
	}
}

// SetFailing makes every request for the Lease name fail (503) while fail
// is true.
func (f *Leases) SetFailing(name string, fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing[name] = fail
}

// SetLost makes updates of the Lease name succeed but answer with an error
// while lost is true.
func (f *Leases) SetLost(name string, lost bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lost[name] = lost
}

// Writes returns the number of successful creates, updates and deletes.
func (f *Leases) Writes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

func (f *Leases) check(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if f.failing[name] {
		return apierrors.NewServiceUnavailable("injected failure")
	}
	return nil
}

// Get returns the Lease name, or a NotFound error.
func (f *Leases) Get(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(ctx, name); err != nil {
		return nil, err
	}
	l, ok := f.Source.Get(Namespace + "/" + name)
	if !ok {
		return nil, apierrors.NewNotFound(leasesGR, name)
	}
	return l, nil
}

// Create stores a copy of l in Namespace.
func (f *Leases) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(ctx, l.Name); err != nil {
		return nil, err
	}
	l = l.DeepCopy()
	l.Namespace = Namespace
	f.writes++
	return f.Source.Add(l)
}

// Update replaces the Lease if l's resourceVersion is the stored one (a
// Conflict otherwise).
func (f *Leases) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(ctx, l.Name); err != nil {
		return nil, err
	}
	cur, ok := f.Source.Get(Namespace + "/" + l.Name)
	if !ok {
		return nil, apierrors.NewNotFound(leasesGR, l.Name)
	}
	if cur.ResourceVersion != l.ResourceVersion {
		return nil, apierrors.NewConflict(leasesGR, l.Name, nil)
	}
	l = l.DeepCopy()
	l.Namespace = Namespace
	f.writes++
	got, err := f.Source.Update(l)
	if err == nil && f.lost[l.Name] {
		return nil, apierrors.NewTimeoutError("injected: the response was lost", 0)
	}
	return got, err
}

// Delete deletes the Lease if its resourceVersion is still rv (a Conflict
// otherwise).
func (f *Leases) Delete(ctx context.Context, name, rv string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(ctx, name); err != nil {
		return err
	}
	cur, ok := f.Source.Get(Namespace + "/" + name)
	if !ok {
		return apierrors.NewNotFound(leasesGR, name)
	}
	if cur.ResourceVersion != rv {
		return apierrors.NewConflict(leasesGR, name, nil)
	}
	f.writes++
	_, err := f.Source.Delete(cur)
	return err
}
