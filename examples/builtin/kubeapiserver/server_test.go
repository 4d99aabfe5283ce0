package kubeapiserver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"
)

var server *kubeapiserver.Server

func TestMain(m *testing.M) {
	kubeapiserver.QuietKlog()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	var err error
	if server, err = kubeapiserver.Start(ctx, kubeapiserver.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, "starting kube-apiserver:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "kube-apiserver ready after %v\n", time.Since(start).Round(time.Millisecond))
	dir := filepath.Dir(server.KubeconfigPath())
	code := m.Run()
	if err := server.Stop(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "stopping kube-apiserver:", err)
		code = 1
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		fmt.Fprintf(os.Stderr, "Stop left the server's directory %s behind (stat: %v)\n", dir, err)
		code = 1
	}
	return code
}

func TestBuiltinKindsAndNamespaces(t *testing.T) {
	ctx := t.Context()
	c := server.Client()
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		if _, err := c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			t.Errorf("namespace %s: %v", ns, err)
		}
	}
	// NamespaceLifecycle admission: no objects in a namespace that does not exist.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	if _, err := c.CoreV1().ConfigMaps("no-such-namespace").Create(ctx, cm, metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("creating a ConfigMap in a missing namespace: %v, want 404 from NamespaceLifecycle", err)
	}
	// ServiceAccount admission: a Pod gets the namespace's default ServiceAccount.
	if err := server.CreateNamespace(ctx, "pods"); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
	}
	got, err := c.CoreV1().Pods("pods").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a Pod: %v", err)
	}
	if got.Spec.ServiceAccountName != "default" || len(got.Spec.Volumes) == 0 {
		t.Errorf("the Pod has serviceAccountName %q and %d volumes; want default and the projected token volume admission adds", got.Spec.ServiceAccountName, len(got.Spec.Volumes))
	}
}

func TestOnlyTokensAuthenticate(t *testing.T) {
	cfg := server.Config()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cfg.CAData) {
		t.Fatal("the config's CA data holds no certificate")
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer hc.CloseIdleConnections()
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"anonymous", "", http.StatusUnauthorized},
		{"wrong token", "not-the-token", http.StatusUnauthorized},
		{"admin token", cfg.BearerToken, http.StatusOK},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, cfg.Host+"/api/v1/namespaces", nil)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: GET /api/v1/namespaces answered %s, want %d", tc.name, resp.Status, tc.want)
		}
	}
}

func TestPrivateFiles(t *testing.T) {
	kc := server.KubeconfigPath()
	dir := filepath.Dir(kc)
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, kc: 0o600, filepath.Join(dir, "tokens.csv"): 0o600, filepath.Join(dir, "sa.key"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode(), want)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "etcd.sock")); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("etcd's client socket in the private directory: %v, %v", fi, err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
		t.Errorf("reading through the written kubeconfig: %v", err)
	}
}

func TestNewUserIsAuthorizedByRBAC(t *testing.T) {
	ctx := t.Context()
	for _, ns := range []string{"rbac-a", "rbac-b"} {
		if err := server.CreateNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	u, err := server.NewUser(ctx, "lister", kubeapiserver.Grant{
		Namespace: "rbac-a",
		Rules:     []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u.Name, "system:serviceaccount:") {
		t.Errorf("user name %q", u.Name)
	}
	c, err := kubernetes.NewForConfig(u.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().ConfigMaps("rbac-a").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("listing ConfigMaps where the Role allows it: %v", err)
	}
	for what, err := range map[string]error{
		"list configmaps in rbac-b": func() error { _, err := c.CoreV1().ConfigMaps("rbac-b").List(ctx, metav1.ListOptions{}); return err }(),
		"get configmap in rbac-a":   func() error { _, err := c.CoreV1().ConfigMaps("rbac-a").Get(ctx, "x", metav1.GetOptions{}); return err }(),
		"list secrets in rbac-a":    func() error { _, err := c.CoreV1().Secrets("rbac-a").List(ctx, metav1.ListOptions{}); return err }(),
	} {
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), u.Name) {
			t.Errorf("%s: %v, want 403 naming %s", what, err, u.Name)
		}
	}
}

func TestFeatureGatesAreProcessWide(t *testing.T) {
	_, err := kubeapiserver.Start(t.Context(), kubeapiserver.Options{FeatureGates: map[string]bool{"WatchList": false}})
	if err == nil || !strings.Contains(err.Error(), "process-wide") {
		t.Errorf("Start with other gates than the running server: %v, want an error saying gates are process-wide", err)
	}
}

func TestFailedStartRemovesItsDirectory(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, err := kubeapiserver.Start(t.Context(), kubeapiserver.Options{Flags: []string{"--no-such-flag=1"}})
	if err == nil || !strings.Contains(err.Error(), "no-such-flag") {
		t.Fatalf("Start with an unknown flag: %v, want an error naming it", err)
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		t.Errorf("a failed Start left %s behind", filepath.Join(tmp, e.Name()))
	}
}
