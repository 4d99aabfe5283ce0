package e2e

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"

	"github.com/informer-gen/informer-gen/examples/builtin/generated/informers"
	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"
)

// syncError starts f's informers (created before) and returns what
// WaitForCacheSync says once it names an error: given a context that has
// already ended, it reports what has not synced and why, without waiting.
// It returns nil if the informers synced instead.
func syncError(t *testing.T, f *informers.SharedInformerFactory) error {
	t.Helper()
	ctx := t.Context()
	f.Start(ctx)
	t.Cleanup(f.Shutdown)
	var err error
	eventually(t, ctx, 2*time.Minute, "WaitForCacheSync names a list/watch error", func() error {
		done, cancel := context.WithCancel(ctx)
		cancel()
		err = f.WaitForCacheSync(done)
		var ns *informer.NotSyncedError
		if err == nil || errors.As(err, &ns) && len(ns.LastErrors) > 0 {
			return nil
		}
		return fmt.Errorf("not synced, no error yet: %w", err)
	})
	return err
}

// forbidden is a 403 that WaitForCacheSync's error must carry: RBAC's
// message names the user, one of the verbs, the resource and the scope.
type forbidden struct {
	user     string
	verbs    []string // the missing verbs; the message names one of them
	resource string
	scope    string // `in the namespace "x"` or "at the cluster scope"
}

func (w forbidden) check(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("WaitForCacheSync = nil; want a 403 naming %s on %s %s", strings.Join(w.verbs, " or "), w.resource, w.scope)
	}
	msg := err.Error()
	if !apierrors.IsForbidden(err) {
		t.Errorf("WaitForCacheSync error does not wrap a 403: %v", err)
	}
	verbs := strings.Join(w.verbs, "|")
	re := regexp.MustCompile(fmt.Sprintf(`User "%s" cannot (%s) resource "%s" in API group "" %s`, regexp.QuoteMeta(w.user), verbs, w.resource, regexp.QuoteMeta(w.scope)))
	if !re.MatchString(msg) {
		t.Errorf("WaitForCacheSync error does not name the user, verb (%s), resource %q and scope %q:\n%v", verbs, w.resource, w.scope, err)
	}
	t.Logf("WaitForCacheSync: %v", err)
}

var podsReadOnly = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list", "watch"}}}

// TestForbiddenListButNotWatch: a user with a ClusterRole that allows
// listing Pods but not watching them. The cache cannot be kept up to date,
// so it must not be reported synced, though the LIST is applied, and the
// error names the watch verb. With WatchList on (the default) the first
// WatchList is refused, then the LIST; with it off, the LIST.
func TestForbiddenListButNotWatch(t *testing.T) {
	ns := namespace(t, "authz-nowatch")
	u, err := server.NewUser(t.Context(), "list-no-watch", kubeapiserver.Grant{
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := createPods(t.Context(), ns, 0, 3); err != nil {
		t.Fatal(err)
	}
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprint("WatchList=", watchList), func(t *testing.T) {
			opts := factory.Options{}
			opts.Reflector.WatchList = &watchList
			f := informers.NewSharedInformerFactory(u.Config, opts)
			inf := f.Core().V1().Pods().Informer()
			err := syncError(t, f)
			forbidden{user: u.Name, verbs: []string{"watch"}, resource: "pods", scope: "at the cluster scope"}.check(t, err)
			eventually(t, t.Context(), 2*time.Minute, "the LIST is applied", func() error {
				n := 0
				for _, o := range inf.Indexer().List() {
					if o.GetNamespace() == ns {
						n++
					}
				}
				if n != 3 {
					return fmt.Errorf("cache holds %d Pods of %s, want 3", n, ns)
				}
				return nil
			})
			if inf.HasSynced() {
				t.Errorf("HasSynced = true for a user who may not watch")
			}
		})
	}
}

// TestForbiddenRoleUsedClusterWide: a Role in one namespace allows list
// and watch there; an informer over all namespaces is refused at the
// cluster scope, one over that namespace syncs, and one over that namespace
// and another is refused in the other.
func TestForbiddenRoleUsedClusterWide(t *testing.T) {
	ns, other := namespace(t, "authz-role"), namespace(t, "authz-other")
	u, err := server.NewUser(t.Context(), "namespaced-reader", kubeapiserver.Grant{Namespace: ns, Rules: podsReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	if err := createPods(t.Context(), ns, 0, 3); err != nil {
		t.Fatal(err)
	}

	t.Run("all namespaces", func(t *testing.T) {
		f := informers.NewSharedInformerFactory(u.Config, factory.Options{})
		f.Core().V1().Pods().Informer()
		forbidden{user: u.Name, verbs: []string{"list", "watch"}, resource: "pods", scope: "at the cluster scope"}.check(t, syncError(t, f))
	})
	t.Run("its namespace", func(t *testing.T) {
		f := informers.NewSharedInformerFactory(u.Config, factory.Options{Namespaces: []string{ns}})
		inf := f.Core().V1().Pods().Informer()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		f.Start(ctx)
		defer f.Shutdown()
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatalf("the Role's own namespace: %v", err)
		}
		if n := len(inf.Indexer().List()); n != 3 {
			t.Errorf("cache holds %d Pods, want 3", n)
		}
	})
	t.Run("its namespace and another", func(t *testing.T) {
		f := informers.NewSharedInformerFactory(u.Config, factory.Options{Namespaces: []string{ns, other}})
		f.Core().V1().Pods().Informer()
		forbidden{user: u.Name, verbs: []string{"list", "watch"}, resource: "pods", scope: fmt.Sprintf("in the namespace %q", other)}.check(t, syncError(t, f))
	})
}

// TestForbiddenKind: a user who may read Pods but not Secrets; the Secret
// informer of the same factory is refused and named, the Pod one syncs.
func TestForbiddenKind(t *testing.T) {
	ns := namespace(t, "authz-kind")
	u, err := server.NewUser(t.Context(), "no-secrets", kubeapiserver.Grant{Namespace: ns, Rules: podsReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	f := informers.NewSharedInformerFactory(u.Config, factory.Options{Namespaces: []string{ns}})
	pods := f.Core().V1().Pods().Informer()
	f.Core().V1().Secrets().Informer()
	err = syncError(t, f)
	forbidden{user: u.Name, verbs: []string{"list", "watch"}, resource: "secrets", scope: fmt.Sprintf("in the namespace %q", ns)}.check(t, err)
	if err != nil && strings.Contains(err.Error(), "cannot list resource \"pods\"") {
		t.Errorf("the error blames Pods, which the user may read: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	select {
	case <-pods.Synced():
	case <-ctx.Done():
		t.Errorf("the Pod informer, which the user may read, did not sync: %v", pods.LastError())
	}
}
