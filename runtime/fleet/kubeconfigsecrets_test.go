package fleet_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

var secretType = factory.Type[*corev1.Secret]{
	Resource:    corev1.SchemeGroupVersion.WithResource("secrets"),
	Namespaced:  true,
	AddToScheme: corev1.AddToScheme,
}

func secret(ns, name string, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

// TestKubeconfigSecrets: Secrets "<cluster>-kubeconfig" with key "value" in
// the home cluster (a runtimetest source read by the provider's own
// informer) engage "<namespace>/<cluster>"; a changed kubeconfig re-engages
// it, a deleted Secret disengages it; other Secrets, a Secret without the
// key and an invalid kubeconfig engage nothing.
func TestKubeconfigSecrets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		home := runtimetest.NewSource(runtimetest.SourceOptions{Resource: secretType.Resource.GroupResource()},
			secret("capi", "prod-kubeconfig", map[string][]byte{"value": kubeconfig("https://prod.example")}),
			secret("capi", "prod-ca", map[string][]byte{"value": kubeconfig("https://not-a-cluster.example")}),
			secret("capi", "nokey-kubeconfig", map[string][]byte{"other": kubeconfig("https://nokey.example")}),
			secret("capi", "broken-kubeconfig", map[string][]byte{"value": []byte("not: [yaml")}),
		)
		fl := fleet.New(fleet.Options[*hostFactory]{
			NewFactory: func(cfg *rest.Config, opts factory.Options) *hostFactory {
				return &hostFactory{factory.New(cfg, opts), cfg.Host}
			},
			Providers: []fleet.Provider{fleet.KubeconfigSecrets{Factory: factory.Options{Types: []factory.TypeOverride{
				factory.TypeOptions[*corev1.Secret]{Type: secretType, ListerWatcher: home},
			}}}},
		})
		want := func(step string, w map[string]string) {
			t.Helper()
			got := map[string]string{}
			for _, c := range fl.Clusters() {
				got[c.Name()] = c.Factory().host
			}
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Fatalf("%s: clusters %v, want %v", step, got, w)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- fl.Run(ctx) }()
		synctest.Wait()
		want("initial list", map[string]string{"capi/prod": "https://prod.example"})

		if _, err := home.Add(secret("edge", "dev-kubeconfig", map[string][]byte{"value": kubeconfig("https://dev.example")})); err != nil {
			t.Fatal(err)
		}
		if _, err := home.Update(secret("capi", "prod-kubeconfig", map[string][]byte{"value": kubeconfig("https://prod2.example")})); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		want("dev added, prod rotated", map[string]string{"capi/prod": "https://prod2.example", "edge/dev": "https://dev.example"})

		if _, err := home.Delete(secret("capi", "prod-kubeconfig", nil)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		want("prod deleted", map[string]string{"edge/dev": "https://dev.example"})

		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
