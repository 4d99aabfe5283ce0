package shard_test

import (
	"context"
	"sync"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

var leasesGR = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

// fakeLeases is an in-memory Lease API with optimistic concurrency over a
// runtimetest.Source (which serves the watch): Update and Delete check the
// resourceVersion, as the API server does. Writes of the Leases in failing
// return an error without reaching the store.
type fakeLeases struct {
	src *runtimetest.Source[*coordinationv1.Lease]

	mu      sync.Mutex
	failing map[string]bool
	// lost: updates of these Leases are applied, but the caller gets an
	// error, as when a response is lost.
	lost   map[string]bool
	writes int // successful creates, updates and deletes
}

func (f *fakeLeases) setLost(name string, lost bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lost[name] = lost
}

func (f *fakeLeases) writeCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

func newFakeLeases() *fakeLeases {
	return &fakeLeases{
		src:     runtimetest.NewSource[*coordinationv1.Lease](runtimetest.SourceOptions{Resource: leasesGR}),
		failing: map[string]bool{},
		lost:    map[string]bool{},
	}
}

func (f *fakeLeases) setFailing(name string, fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing[name] = fail
}

func (f *fakeLeases) check(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if f.failing[name] {
		return apierrors.NewServiceUnavailable("injected failure")
	}
	return nil
}

func (f *fakeLeases) Get(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(ctx, name); err != nil {
		return nil, err
	}
	l, ok := f.src.Get("default/" + name)
	if !ok {
		return nil, apierrors.NewNotFound(leasesGR, name)
	}
	return l, nil
}

func (f *fakeLeases) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(ctx, l.Name); err != nil {
		return nil, err
	}
	l = l.DeepCopy()
	l.Namespace = "default"
	f.writes++
	return f.src.Add(l)
}

func (f *fakeLeases) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(ctx, l.Name); err != nil {
		return nil, err
	}
	cur, ok := f.src.Get("default/" + l.Name)
	if !ok {
		return nil, apierrors.NewNotFound(leasesGR, l.Name)
	}
	if cur.ResourceVersion != l.ResourceVersion {
		return nil, apierrors.NewConflict(leasesGR, l.Name, nil)
	}
	l = l.DeepCopy()
	l.Namespace = "default"
	f.writes++
	got, err := f.src.Update(l)
	if err == nil && f.lost[l.Name] {
		return nil, apierrors.NewTimeoutError("injected: the response was lost", 0)
	}
	return got, err
}

func (f *fakeLeases) Delete(ctx context.Context, name, rv string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(ctx, name); err != nil {
		return err
	}
	cur, ok := f.src.Get("default/" + name)
	if !ok {
		return apierrors.NewNotFound(leasesGR, name)
	}
	if cur.ResourceVersion != rv {
		return apierrors.NewConflict(leasesGR, name, nil)
	}
	f.writes++
	_, err := f.src.Delete(cur)
	return err
}
