package shard

import (
	"context"
	"fmt"
	"net/http"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/listwatch"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// GroupLabel is the label every Lease of a group carries, with the group's
// name as value; the Source selects on it.
const GroupLabel = "shard.informer-gen.dev/group"

// viewAnnotation holds, in a replica's Lease, the id of the membership it
// acts on: a promise that it reconciles no key that membership assigns to
// another replica.
const viewAnnotation = "shard.informer-gen.dev/view"

// LeaseClient reads and writes Leases in one namespace. NewLeases returns
// the REST implementation; tests may use an in-memory one. Methods must be
// safe for concurrent use, honour ctx, and return apimachinery's API errors
// (apierrors.IsNotFound, IsConflict, IsAlreadyExists must work on them).
type LeaseClient interface {
	Get(ctx context.Context, name string) (*coordinationv1.Lease, error)
	Create(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error)
	// Update replaces the Lease, failing with a Conflict when its
	// resourceVersion is not the stored one.
	Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error)
	// Delete deletes the Lease if its resourceVersion is still
	// resourceVersion (a Conflict otherwise).
	Delete(ctx context.Context, name, resourceVersion string) error
}

// NewLeases returns what Options.Leases and Options.Source take for the
// replicas of group whose Leases live in namespace, over the API server of
// cfg: a LeaseClient for the namespace's Leases and the group's Source (the
// Leases labelled GroupLabel=group), through one REST client for
// coordination.k8s.io/v1 (see listwatch.NewRESTClient; httpClient may be
// nil or shared). It needs only k8s.io/api's Lease types, not a clientset.
// Both are safe for concurrent use. An error is a config no REST client
// can be built from.
func NewLeases(cfg *rest.Config, httpClient *http.Client, namespace, group string) (LeaseClient, reflector.ListerWatcher[*coordinationv1.Lease], error) {
	scheme := runtime.NewScheme()
	if err := coordinationv1.AddToScheme(scheme); err != nil {
		return nil, nil, fmt.Errorf("shard: registering coordination.k8s.io/v1: %w", err)
	}
	client, err := listwatch.NewRESTClient(cfg, httpClient, scheme, coordinationv1.SchemeGroupVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("shard: %w", err)
	}
	source := listwatch.New(client, listwatch.Options[*coordinationv1.Lease, *coordinationv1.LeaseList]{
		Resource:      "leases",
		Namespace:     namespace,
		LabelSelector: GroupLabel + "=" + group,
		NewList:       func() *coordinationv1.LeaseList { return new(coordinationv1.LeaseList) },
		Items:         func(l *coordinationv1.LeaseList) []*coordinationv1.Lease { return listwatch.Pointers(l.Items) },
	})
	return restLeases{c: client, ns: namespace}, source, nil
}

type restLeases struct {
	c  rest.Interface
	ns string
}

func (r restLeases) Get(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	out := new(coordinationv1.Lease)
	if err := r.c.Get().Namespace(r.ns).Resource("leases").Name(name).Do(ctx).Into(out); err != nil {
		return nil, fmt.Errorf("get lease %s/%s: %w", r.ns, name, err)
	}
	return out, nil
}

func (r restLeases) Create(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	out := new(coordinationv1.Lease)
	if err := r.c.Post().Namespace(r.ns).Resource("leases").Body(lease).Do(ctx).Into(out); err != nil {
		return nil, fmt.Errorf("create lease %s/%s: %w", r.ns, lease.Name, err)
	}
	return out, nil
}

func (r restLeases) Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	out := new(coordinationv1.Lease)
	if err := r.c.Put().Namespace(r.ns).Resource("leases").Name(lease.Name).Body(lease).Do(ctx).Into(out); err != nil {
		return nil, fmt.Errorf("update lease %s/%s resourceVersion %s: %w", r.ns, lease.Name, lease.ResourceVersion, err)
	}
	return out, nil
}

func (r restLeases) Delete(ctx context.Context, name, resourceVersion string) error {
	opts := &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &resourceVersion}}
	if err := r.c.Delete().Namespace(r.ns).Resource("leases").Name(name).Body(opts).Do(ctx).Error(); err != nil {
		return fmt.Errorf("delete lease %s/%s resourceVersion %s: %w", r.ns, name, resourceVersion, err)
	}
	return nil
}
