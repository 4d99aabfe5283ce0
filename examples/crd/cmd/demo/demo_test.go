package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
	"github.com/informer-gen/informer-gen/examples/crd/manifests"
)

// TestDemo runs the demo in-process on a small batch: it must pass its own
// checks (every status reconciled, caches equal a fresh LIST), print the
// summary, and log no error: conflicts with the demo's own writes and writes
// to objects it deleted are expected and retried by their watch events, and
// the controller never acts on a version older than its own last write.
func TestDemo(t *testing.T) {
	var out, log bytes.Buffer
	err := run(t.Context(), config{objects: 200, hosts: 4, workers: 4, clients: 8, namespace: "default", timeout: 3 * time.Minute, log: &log}, &out)
	if err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	for _, want := range []string{"identical to generated/", "summary", "every status reconciled", "caches equal a fresh LIST", "PASS", "150 foos",
		"0.0 reads older than the controller's own last write"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.HasPrefix(line, "E") {
			t.Errorf("the demo logged an error: %s", line)
		}
	}
	t.Logf("%s", out.String())
}

// TestDemoAgainstKubeconfig runs the demo the way a user points it at a real
// cluster (--kubeconfig, CRDs already installed): it must pass its checks and
// delete every object it created, since on a real cluster nothing is thrown
// away with the server.
func TestDemoAgainstKubeconfig(t *testing.T) {
	ctx := t.Context()
	localapi.QuietKlog() // before the server logs: run's own call is then a no-op
	crds, err := localapi.ParseCRDs(manifests.CRDs()...)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := localapi.Start(ctx, localapi.Options{CRDs: crds})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.WithoutCancel(ctx)); err != nil {
			t.Error(err)
		}
	})
	var out bytes.Buffer
	err = run(ctx, config{objects: 60, hosts: 3, workers: 4, clients: 4, namespace: "default", kubeconfig: srv.KubeconfigPath(), timeout: 3 * time.Minute}, &out)
	if err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	for _, want := range []string{"using cluster " + srv.Config().Host, "every status reconciled", "caches equal a fresh LIST", "PASS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	client, err := controller.NewClient(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	var foos samplev1.FooList
	var hosts samplev1.HostList
	if err := client.Get().Resource("foos").Do(ctx).Into(&foos); err != nil {
		t.Fatal(err)
	}
	if err := client.Get().Resource("hosts").Do(ctx).Into(&hosts); err != nil {
		t.Fatal(err)
	}
	if len(foos.Items) != 0 || len(hosts.Items) != 0 {
		t.Errorf("the demo left %d Foos and %d Hosts behind on the cluster", len(foos.Items), len(hosts.Items))
	}
}
