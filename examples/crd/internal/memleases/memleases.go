// Package memleases is an in-memory coordination.k8s.io/v1 Lease API for
// the replicas of one test process: a shard.LeaseClient with the API
// server's optimistic concurrency (Update and Delete check the
// resourceVersion) and a shard Source serving the Leases' list and watch.
//
// The local API server of this module serves custom resources only, not
// Leases. Tests here that exercise custom resources under sharding (the
// shardSelector of Foos) take their membership from this package; the
// sharding protocol on real Leases, with their validation, defaulting and
// RBAC, is tested against a full kube-apiserver in examples/builtin/e2e.
package memleases

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/shard"
)

var leasesGR = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

// Leases holds the Leases of every namespace. Safe for concurrent use.
type Leases struct {
	src *runtimetest.Source[*coordinationv1.Lease]
}

// New returns an empty Lease API.
func New() *Leases {
	return &Leases{src: runtimetest.NewSource[*coordinationv1.Lease](runtimetest.SourceOptions{Resource: leasesGR})}
}

// Client returns a shard.LeaseClient for the Leases of namespace.
func (l *Leases) Client(namespace string) shard.LeaseClient {
	return client{src: l.src, ns: namespace}
}

// Source returns the list and watch of every Lease of every namespace
// (shard.Options.Source). A Shard ignores the Leases of other groups but
// not those of other namespaces (it matches Leases by name): give each
// namespace's group of replicas a Leases of its own.
func (l *Leases) Source() reflector.ListerWatcher[*coordinationv1.Lease] { return l.src }

type client struct {
	src *runtimetest.Source[*coordinationv1.Lease]
	ns  string
}

func (c client) Get(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, ok := c.src.Get(c.ns + "/" + name)
	if !ok {
		return nil, apierrors.NewNotFound(leasesGR, name)
	}
	return l, nil
}

func (c client) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l = l.DeepCopy()
	l.Namespace = c.ns
	return c.src.Add(l)
}

// Update and Delete compare the resourceVersion with the stored one and
// write in two steps; a concurrent writer of the same Lease could slip in
// between, which shard never does (each replica writes only its own Lease,
// from one goroutine).
func (c client) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	cur, err := c.Get(ctx, l.Name)
	if err != nil {
		return nil, err
	}
	if cur.ResourceVersion != l.ResourceVersion {
		return nil, apierrors.NewConflict(leasesGR, l.Name, nil)
	}
	l = l.DeepCopy()
	l.Namespace = c.ns
	return c.src.Update(l)
}

func (c client) Delete(ctx context.Context, name, resourceVersion string) error {
	cur, err := c.Get(ctx, name)
	if err != nil {
		return err
	}
	if cur.ResourceVersion != resourceVersion {
		return apierrors.NewConflict(leasesGR, name, nil)
	}
	_, err = c.src.Delete(cur)
	return err
}
