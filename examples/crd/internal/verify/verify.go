// Package verify holds the checks the demo and the end-to-end tests end with:
// the informer cache equals a fresh LIST from the server, and every object's
// status is what the controller should have written.
package verify

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/store"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/controller"
)

// ListFoos lists the v1 Foos of namespace ("" = all) matching labelSelector,
// paging by 500, and returns them with the list's resourceVersion.
func ListFoos(ctx context.Context, c rest.Interface, namespace, labelSelector string) ([]*samplev1.Foo, string, error) {
	var out []*samplev1.Foo
	opts := metav1.ListOptions{Limit: 500, LabelSelector: labelSelector}
	for {
		list := new(samplev1.FooList)
		if err := c.Get().Namespace(namespace).Resource("foos").VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(list); err != nil {
			return nil, "", fmt.Errorf("listing foos in namespace %q: %w", namespace, err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
		if list.Continue == "" {
			return out, list.ResourceVersion, nil
		}
		opts.Continue = list.Continue
	}
}

// ListHosts lists the v1 Hosts matching labelSelector, paging by 500.
func ListHosts(ctx context.Context, c rest.Interface, labelSelector string) ([]*samplev1.Host, string, error) {
	var out []*samplev1.Host
	opts := metav1.ListOptions{Limit: 500, LabelSelector: labelSelector}
	for {
		list := new(samplev1.HostList)
		if err := c.Get().Resource("hosts").VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(list); err != nil {
			return nil, "", fmt.Errorf("listing hosts: %w", err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
		if list.Continue == "" {
			return out, list.ResourceVersion, nil
		}
		opts.Continue = list.Continue
	}
}

// CacheEqualsList returns nil when cached and listed hold the same keys at the
// same resourceVersions, and otherwise an error naming the first differences
// (at most 5) and how many there are.
func CacheEqualsList[T interface {
	metav1.Object
	runtime.Object
}](kind string, cached, listed []T) error {
	want := make(map[string]string, len(listed))
	for _, o := range listed {
		want[store.Key(o)] = o.GetResourceVersion()
	}
	var diffs []string
	seen := make(map[string]bool, len(cached))
	for _, o := range cached {
		k := store.Key(o)
		seen[k] = true
		rv, ok := want[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s %s (rv %s) is cached but not on the server", kind, k, o.GetResourceVersion()))
		case rv != o.GetResourceVersion():
			diffs = append(diffs, fmt.Sprintf("%s %s is cached at rv %s, the server has rv %s", kind, k, o.GetResourceVersion(), rv))
		}
	}
	for k, rv := range want {
		if !seen[k] {
			diffs = append(diffs, fmt.Sprintf("%s %s (rv %s) is on the server but not cached", kind, k, rv))
		}
	}
	return diffError(fmt.Sprintf("cache of %d %ss differs from a LIST of %d", len(cached), kind, len(listed)), diffs)
}

// Reconciled returns nil when every Foo and Host status equals what the
// controller computes from the listed objects (controller.DesiredFooStatus,
// DesiredHostStatus), and otherwise an error naming the first differences.
// foos and hosts must be complete: Hosts count the Foos that name them.
func Reconciled(foos []*samplev1.Foo, hosts []*samplev1.Host) error {
	byName := make(map[string]*samplev1.Host, len(hosts))
	count := make(map[string]int, len(hosts))
	for _, h := range hosts {
		byName[h.Name] = h
	}
	var diffs []string
	for _, f := range foos {
		if f.Spec.HostName != "" {
			count[f.Spec.HostName]++
		}
		want := controller.DesiredFooStatus(f, byName[f.Spec.HostName])
		if f.Status != want {
			diffs = append(diffs, fmt.Sprintf("foo %s/%s status %+v, want %+v", f.Namespace, f.Name, f.Status, want))
		}
	}
	for _, h := range hosts {
		want := controller.DesiredHostStatus(h, count[h.Name])
		if h.Status != want {
			diffs = append(diffs, fmt.Sprintf("host %s status %+v, want %+v", h.Name, h.Status, want))
		}
	}
	return diffError("statuses not reconciled", diffs)
}

func diffError(what string, diffs []string) error {
	if len(diffs) == 0 {
		return nil
	}
	slices.Sort(diffs)
	n := len(diffs)
	if n > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("... and %d more", n-5))
	}
	return fmt.Errorf("%s: %d differences:\n  %s", what, n, strings.Join(diffs, "\n  "))
}
