package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
)

// hostFactory is a factory that remembers the rest.Config it was built
// with, so a test can tell which kubeconfig a cluster runs on. It reads no
// type, so nothing dials the (made-up) servers.
type hostFactory struct {
	*factory.Factory
	host string
}

func kubeconfig(server string) []byte {
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
users:
- name: u
  user:
    token: secret-token
contexts:
- name: c
  context:
    cluster: c
    user: u
current-context: c
`, server)
}

// TestKubeconfigDir: a file added is engaged, a file rewritten re-engages
// its cluster on the new server, a file removed disengages it, an invalid
// file is not engaged and does not disturb a valid one's cluster, hidden
// files and directories are skipped.
func TestKubeconfigDir(t *testing.T) {
	dir := t.TempDir()
	write := func(file string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		const every = 10 * time.Second
		fl := fleet.New(fleet.Options[*hostFactory]{
			NewFactory: func(cfg *rest.Config, opts factory.Options) *hostFactory {
				return &hostFactory{factory.New(cfg, opts), cfg.Host}
			},
			Providers: []fleet.Provider{fleet.KubeconfigDir{Dir: dir, Interval: every}},
		})
		hosts := func() map[string]string {
			out := map[string]string{}
			for _, c := range fl.Clusters() {
				out[c.Name()] = c.Factory().host
			}
			return out
		}
		want := func(step string, w map[string]string) {
			t.Helper()
			got := hosts()
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Fatalf("%s: clusters %v, want %v", step, got, w)
			}
		}
		write("a.kubeconfig", kubeconfig("https://a.example:6443"))
		write(".hidden", kubeconfig("https://hidden.example"))
		if err := os.Mkdir(filepath.Join(dir, "sub.d"), 0o700); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- fl.Run(ctx) }()
		synctest.Wait()
		want("first scan", map[string]string{"a": "https://a.example:6443"})

		write("b.yaml", kubeconfig("https://b.example"))
		write("bad.kubeconfig", []byte("not: [a kubeconfig"))
		time.Sleep(every)
		synctest.Wait()
		want("b added, bad added", map[string]string{"a": "https://a.example:6443", "b": "https://b.example"})

		before, _ := fl.Cluster("a")
		write("a.kubeconfig", kubeconfig("https://a2.example:6443"))
		write("b.yaml", []byte("garbage: ["))
		time.Sleep(every)
		synctest.Wait()
		want("a rotated, b broken", map[string]string{"a": "https://a2.example:6443", "b": "https://b.example"})
		if after, _ := fl.Cluster("a"); after == before {
			t.Fatal("rotated cluster a was not re-engaged")
		}

		if err := os.Remove(filepath.Join(dir, "b.yaml")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(every)
		synctest.Wait()
		want("b removed", map[string]string{"a": "https://a2.example:6443"})

		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

// TestKubeconfigDirMissing: a directory that cannot be read at start ends
// the fleet's Run with the error.
func TestKubeconfigDirMissing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := fleet.New(fleet.Options[*factory.Factory]{
			NewFactory: factory.New,
			Providers:  []fleet.Provider{fleet.KubeconfigDir{Dir: filepath.Join(t.TempDir(), "missing")}},
		})
		if err := fl.Run(t.Context()); err == nil || !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Run = %v, want the missing directory's error", err)
		}
	})
}
