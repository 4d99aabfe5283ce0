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
)

const (
	// GroupLabel is the label every Lease of a group carries, with the
	// group's name as value; the Source selects on it.
	GroupLabel = "shard.informer-gen.dev/group"
	// ViewAnnotation holds, in a replica's Lease, the id of the membership
	// it acts on: a promise that it reconciles no key that membership
	// assigns to another replica.
	ViewAnnotation = "shard.informer-gen.dev/view"
)

// LeaseClient reads and writes Leases in one namespace. NewLeaseClient is
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

// NewRESTClient returns a REST client for coordination.k8s.io/v1 built from
// cfg (see listwatch.NewRESTClient; httpClient may be nil or shared), for
// NewLeaseClient and NewListerWatcher. It needs only k8s.io/api's Lease
// types, not a clientset.
func NewRESTClient(cfg *rest.Config, httpClient *http.Client) (*rest.RESTClient, error) {
	scheme := runtime.NewScheme()
	if err := coordinationv1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("shard: registering coordination.k8s.io/v1: %w", err)
	}
	return listwatch.NewRESTClient(cfg, httpClient, scheme, coordinationv1.SchemeGroupVersion)
}

// NewListerWatcher returns the Source of a group: the Leases in namespace
// labelled GroupLabel=group, through client (NewRESTClient).
func NewListerWatcher(client rest.Interface, namespace, group string) *listwatch.ListerWatcher[*coordinationv1.Lease, *coordinationv1.LeaseList] {
	return listwatch.New(client, listwatch.Options[*coordinationv1.Lease, *coordinationv1.LeaseList]{
		Resource:      "leases",
		Namespace:     namespace,
		LabelSelector: GroupLabel + "=" + group,
		NewList:       func() *coordinationv1.LeaseList { return new(coordinationv1.LeaseList) },
		Items:         func(l *coordinationv1.LeaseList) []*coordinationv1.Lease { return listwatch.Pointers(l.Items) },
	})
}

// NewLeaseClient returns a LeaseClient for the Leases of namespace through
// client (NewRESTClient). It is safe for concurrent use.
func NewLeaseClient(client rest.Interface, namespace string) LeaseClient {
	return restLeases{c: client, ns: namespace}
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
