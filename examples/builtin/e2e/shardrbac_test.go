package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informer-gen/informer-gen/runtime/shard"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"
)

// TestShardLeaseRBAC: a replica whose Role lets it create its Lease but
// not renew it (no update) owns its keys after the first handover, then
// reports RBAC's 403 in LastError, naming the user, the verb, the resource,
// the Lease and the namespace, and owns nothing once its renew deadline has
// passed: a missing permission shows, and never leaves a replica owning
// keys it cannot hold.
func TestShardLeaseRBAC(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, "shardrbac")
	u, err := server.NewUser(ctx, ns+"-x", kubeapiserver.Grant{Namespace: ns, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"list", "watch", "create", "get"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	leases, leaseSource, err := shard.NewLeases(u.Config, nil, ns, podGroup)
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.New(shard.Options{
		Group:    podGroup,
		Identity: "x",
		Leases:   leases,
		Source:   leaseSource,
		// A renew deadline long enough for the first handover on a
		// loaded machine: the test waits for it to pass.
		LeaseDuration: 20 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   250 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(rctx) }()
	defer func() { cancel(); <-done }()

	// Its Lease is created, so it completes its first handover (alone, it
	// owns every key) before its renew deadline passes.
	eventually(t, ctx, 2*time.Minute, "the replica owns its keys", func() error {
		if !s.HasSynced() {
			return fmt.Errorf("no handover yet; LastError: %v", s.LastError())
		}
		return nil
	})

	eventually(t, ctx, 2*time.Minute, "the renewal is refused", func() error {
		err := s.LastError()
		if err == nil {
			return errors.New("LastError is nil")
		}
		if !apierrors.IsForbidden(err) {
			return fmt.Errorf("LastError is not a 403: %w", err)
		}
		return nil
	})
	msg := s.LastError().Error()
	for _, want := range []string{u.Name, `cannot update resource "leases"`, podGroup + "-x", `namespace "` + ns + `"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("LastError %q does not name %s", msg, want)
		}
	}
	eventually(t, ctx, 2*time.Minute, "the replica owns nothing", func() error {
		if m := s.Members(); m != nil {
			return fmt.Errorf("it acts on %v", m)
		}
		if s.Owns(ns + "/pod-0") {
			return errors.New("it owns " + ns + "/pod-0")
		}
		return nil
	})
}
