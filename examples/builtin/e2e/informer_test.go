package e2e

import (
	"context"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/store"

	"github.com/informer-gen/informer-gen/examples/builtin/generated/informers"
	"github.com/informer-gen/informer-gen/examples/builtin/objects"
)

// mediaTypes records the media type of every response, by URL path.
type mediaTypes struct {
	mu   sync.Mutex
	seen map[string][]string // path → media types
}

func (m *mediaTypes) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err == nil {
			mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			m.mu.Lock()
			if !slices.Contains(m.seen[req.URL.Path], mt) {
				m.seen[req.URL.Path] = append(m.seen[req.URL.Path], mt)
			}
			m.mu.Unlock()
		}
		return resp, err
	})
}

func (m *mediaTypes) of(path string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.seen[path])
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestPodsAndSecrets runs the generated Pod and Secret informers (protobuf,
// the default for built-in kinds) and the PodSummary and SecretKeys
// projections (protobuf too, through their generated projection decoders)
// against the server, WatchList on and off, through a churn of creates,
// status updates, label patches, Secret updates that change their keys,
// deletes and re-creates; each cache ends equal to a fresh LIST (SecretKeys
// holding each Secret's type and key names), and every Pod and Secret
// response was protobuf.
func TestPodsAndSecrets(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("watchlist=%v", watchList), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			defer cancel()
			ns := namespace(t, "informers")
			const pods, secrets = 300, 100
			// Some objects before the informers start (the initial list),
			// the rest while they run.
			if err := createPods(ctx, ns, 0, pods/2); err != nil {
				t.Fatal(err)
			}
			if err := createSecrets(ctx, ns, 0, secrets/2, 16<<10); err != nil {
				t.Fatal(err)
			}
			mt := &mediaTypes{seen: map[string][]string{}}
			cfg := server.Config()
			cfg.Wrap(mt.wrap)
			opts := factory.Options{Namespaces: []string{ns}}
			opts.Reflector.WatchList = &watchList
			f := informers.NewSharedInformerFactory(cfg, opts)
			podInf := f.Core().V1().Pods().Informer()
			secretInf := f.Core().V1().Secrets().Informer()
			summaryInf := f.Core().V1().PodSummaries().Informer()
			keysInf := f.Core().V1().SecretKeys().Informer()
			f.Start(ctx)
			defer f.Shutdown()
			if err := f.WaitForCacheSync(ctx); err != nil {
				t.Fatal(err)
			}

			// Churn: the second half created, every Pod's labels patched
			// twice, a third of the Pods deleted and some re-created with
			// a new uid, Secrets updated and deleted.
			if err := createPods(ctx, ns, pods/2, pods); err != nil {
				t.Fatal(err)
			}
			if err := createSecrets(ctx, ns, secrets/2, secrets, 16<<10); err != nil {
				t.Fatal(err)
			}
			for gen := range 2 {
				patch := fmt.Appendf(nil, `{"metadata":{"labels":{"gen":"%d"}}}`, gen)
				if err := parallel(ctx, 16, 0, pods, func(i int) error {
					_, err := client.CoreV1().Pods(ns).Patch(ctx, fmt.Sprintf("pod-%d", i), types.MergePatchType, patch, metav1.PatchOptions{})
					return err
				}); err != nil {
					t.Fatal(err)
				}
			}
			if err := parallel(ctx, 16, 0, pods/3, func(i int) error {
				return client.CoreV1().Pods(ns).Delete(ctx, fmt.Sprintf("pod-%d", i*3), metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
			}); err != nil {
				t.Fatal(err)
			}
			if err := parallel(ctx, 16, 0, 20, func(i int) error {
				_, err := client.CoreV1().Pods(ns).Create(ctx, objects.Pod(ns, i*3), metav1.CreateOptions{})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if err := parallel(ctx, 16, 0, secrets, func(i int) error {
				name := fmt.Sprintf("secret-%d", i)
				if i%4 == 0 {
					return client.CoreV1().Secrets(ns).Delete(ctx, name, metav1.DeleteOptions{})
				}
				s := objects.Secret(ns, i+1, 16<<10)
				s.Name = name
				if i%4 == 2 { // other keys: the projection's key names change
					s.Data["new.key"] = s.Data["token"]
					delete(s.Data, "token")
				}
				_, err := client.CoreV1().Secrets(ns).Update(ctx, s, metav1.UpdateOptions{})
				return err
			}); err != nil {
				t.Fatal(err)
			}

			eventually(t, ctx, 2*time.Minute, "the Pod cache equals a fresh LIST", func() error {
				list, err := podRVs(ctx, ns)
				if err != nil {
					return err
				}
				return sameRVs("pods", cacheRVs(podInf.Indexer().List()), list)
			})
			eventually(t, ctx, 2*time.Minute, "the PodSummary cache equals a fresh LIST", func() error {
				list, err := podRVs(ctx, ns)
				if err != nil {
					return err
				}
				return sameRVs("pod summaries", cacheRVs(summaryInf.Indexer().List()), list)
			})
			eventually(t, ctx, 2*time.Minute, "the Secret cache equals a fresh LIST", func() error {
				list, err := client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					return err
				}
				return sameRVs("secrets", cacheRVs(secretInf.Indexer().List()), rvsOf(list.Items, func(s *corev1.Secret) metav1.Object { return s }))
			})
			eventually(t, ctx, 2*time.Minute, "the SecretKeys cache equals a fresh LIST, key names included", func() error {
				list, err := client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					return err
				}
				if err := sameRVs("secret keys", cacheRVs(keysInf.Indexer().List()), rvsOf(list.Items, func(s *corev1.Secret) metav1.Object { return s })); err != nil {
					return err
				}
				for _, s := range list.Items {
					k, ok := keysInf.Indexer().Get(ns + "/" + s.Name)
					want := slices.Sorted(maps.Keys(s.Data))
					if !ok || k.ResourceVersion != s.ResourceVersion || k.Type != s.Type || !slices.Equal(k.DataKeys, want) {
						return fmt.Errorf("SecretKeys of %s = %+v, want type %s and keys %v at resourceVersion %s", s.Name, k, s.Type, want, s.ResourceVersion)
					}
				}
				return nil
			})

			// Contents, not only versions: a cached Pod is the server's,
			// less managedFields (dropped by default).
			got, ok := podInf.Indexer().Get(ns + "/pod-1")
			if !ok {
				t.Fatal("pod-1 is not cached")
			}
			want, err := client.CoreV1().Pods(ns).Get(ctx, "pod-1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(want.ManagedFields) == 0 {
				t.Error("the server wrote no managedFields; the check below proves nothing")
			}
			want.ManagedFields = nil
			if got.ResourceVersion == want.ResourceVersion && !podsEqual(got, want) {
				t.Errorf("cached pod-1 differs from the server's:\n got %+v\nwant %+v", got, want)
			}
			sum, ok := summaryInf.Indexer().Get(ns + "/pod-1")
			if !ok || sum.Status.PodIP != want.Status.PodIP || sum.Spec.NodeName != want.Spec.NodeName || len(sum.Status.Conditions) != len(want.Status.Conditions) {
				t.Errorf("PodSummary of pod-1 = %+v, want the Pod's nodeName, podIP and conditions", sum)
			}
			sec, ok := secretInf.Indexer().Get(ns + "/secret-1")
			if !ok || len(sec.Data["tls.crt"]) != 4<<10 {
				t.Errorf("cached secret-1 has %d bytes of tls.crt, want %d", len(sec.Data["tls.crt"]), 4<<10)
			}

			podsPath := "/api/v1/namespaces/" + ns + "/pods"
			for _, path := range []string{podsPath, "/api/v1/namespaces/" + ns + "/secrets"} {
				got := mt.of(path)
				// The projection's requests share the Pods' path; they are
				// protobuf like the Pod informer's.
				if !slices.Contains(got, "application/vnd.kubernetes.protobuf") && !slices.Contains(got, "application/vnd.kubernetes.protobuf;stream=watch") {
					t.Errorf("responses on %s were %v; want protobuf", path, got)
				}
				if slices.ContainsFunc(got, func(s string) bool { return s == "application/json" }) {
					t.Errorf("responses on %s were %v; want protobuf only", path, got)
				}
			}
		})
	}
}

func cacheRVs[T store.Object[T]](objs []T) map[string]string {
	m := make(map[string]string, len(objs))
	for _, o := range objs {
		m[store.Key(o)] = o.GetResourceVersion()
	}
	return m
}

func podsEqual(a, b *corev1.Pod) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	a.TypeMeta, b.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
	return equality.Semantic.DeepEqual(a, b)
}
