package factory_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sprotobuf "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	corev1gen "github.com/informer-gen/informer-gen/bench/generated/informers/core/v1"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// relistServer serves Pods in protobuf: first a@7 and b@7; its first watch
// ends with 410 Expired, and from then on it serves a@7 (unchanged), b@8
// and c@9 and its watches stay open. With WatchList, the initial events
// come in the watch (ADDED events, then the initial-events-end bookmark).
type relistServer struct {
	mu      sync.Mutex
	expired bool // the first watch has ended with 410
}

func (s *relistServer) pods() ([]corev1.Pod, string) {
	pod := func(name, rv string) corev1.Pod {
		p := corev1.Pod{Spec: corev1.PodSpec{NodeName: "n", Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
		p.Namespace, p.Name, p.ResourceVersion = "ns", name, rv
		return p
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.expired {
		return []corev1.Pod{pod("a", "7"), pod("b", "7")}, "7"
	}
	return []corev1.Pod{pod("a", "7"), pod("b", "8"), pod("c", "9")}, "9"
}

func pbEncode(t *testing.T, obj runtime.Object) []byte {
	var b bytes.Buffer
	if err := k8sprotobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme).Encode(obj, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jsonEncode(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// watchFrame is one watch event, as a JSON object or a protobuf frame.
func watchFrame(t *testing.T, asJSON bool, typ watch.EventType, obj runtime.Object) []byte {
	if asJSON {
		return fmt.Appendf(nil, `{"type":%q,"object":%s}`+"\n", typ, jsonEncode(t, obj))
	}
	ev := metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: pbEncode(t, obj)}}
	b, err := ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func (s *relistServer) ServeHTTP(t *testing.T, rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/pods" {
		http.NotFound(rw, r)
		return
	}
	pods, rv := s.pods()
	q := r.URL.Query()
	asJSON := !strings.Contains(r.Header.Get("Accept"), runtime.ContentTypeProtobuf)
	if q.Get("watch") != "true" {
		list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: pods}
		if asJSON {
			for i := range list.Items {
				list.Items[i].APIVersion, list.Items[i].Kind = "v1", "Pod"
			}
			rw.Header().Set("Content-Type", runtime.ContentTypeJSON)
			_, _ = rw.Write(jsonEncode(t, list))
			return
		}
		rw.Header().Set("Content-Type", runtime.ContentTypeProtobuf)
		_, _ = rw.Write(pbEncode(t, list))
		return
	}
	if asJSON {
		rw.Header().Set("Content-Type", runtime.ContentTypeJSON)
	} else {
		rw.Header().Set("Content-Type", runtime.ContentTypeProtobuf+";stream=watch")
	}
	rw.WriteHeader(http.StatusOK)
	if q.Get("sendInitialEvents") == "true" {
		for i := range pods {
			p := pods[i]
			p.APIVersion, p.Kind = "v1", "Pod"
			_, _ = rw.Write(watchFrame(t, asJSON, watch.Added, &p))
		}
		end := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}}
		end.ResourceVersion, end.Annotations = rv, map[string]string{metav1.InitialEventsAnnotationKey: "true"}
		_, _ = rw.Write(watchFrame(t, asJSON, watch.Bookmark, end))
	}
	s.mu.Lock()
	first := !s.expired
	s.expired = true
	s.mu.Unlock()
	if first {
		st := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
			Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}
		_, _ = rw.Write(watchFrame(t, asJSON, watch.Error, st))
		return
	}
	rw.(http.Flusher).Flush()
	<-r.Context().Done()
}

// A relist (here after a 410 Expired watch) hands on the cached object of
// every Pod the cache holds at the resourceVersion the server sends again,
// instead of decoding a copy (runtime/internal/known): the cache keeps the
// very object it had, Transform does not run on it again, and what changed
// or is new is decoded and transformed as always. By LIST and by WatchList,
// in protobuf and in JSON.
func TestRelistKeepsUnchangedObjects(t *testing.T) {
	for _, tc := range []struct {
		watchList   bool
		contentType string
	}{{false, runtime.ContentTypeProtobuf}, {true, runtime.ContentTypeProtobuf}, {false, runtime.ContentTypeJSON}, {true, runtime.ContentTypeJSON}} {
		name := "LIST"
		if tc.watchList {
			name = "WatchList"
		}
		watchList := tc.watchList
		t.Run(name+" "+tc.contentType, func(t *testing.T) {
			s := &relistServer{}
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { s.ServeHTTP(t, rw, r) }))
			defer srv.Close()
			ctx := deadline(t)

			var mu sync.Mutex
			transformed := map[string]int{} // name@resourceVersion → calls
			opts := factory.Options{HTTPClient: srv.Client()}
			opts.Reflector.WatchList = &watchList
			opts.Types = []factory.TypeOverride{factory.TypeOptions[*corev1.Pod]{Type: corev1gen.PodType, ContentType: tc.contentType,
				Transform: func(p *corev1.Pod) (*corev1.Pod, error) {
					mu.Lock()
					transformed[p.Name+"@"+p.ResourceVersion]++
					mu.Unlock()
					return p, nil
				}}}
			f := factory.New(&rest.Config{Host: srv.URL}, opts)
			defer f.Shutdown()
			inf := factory.InformerFor(f, corev1gen.PodType)
			pods := store.NewLister(inf.Indexer(), corev1.Resource("pods")).Namespace("ns")
			f.Start(ctx)
			if err := f.WaitForCacheSync(ctx); err != nil {
				t.Fatal(err)
			}
			a, err := pods.Get("a")
			if err != nil {
				t.Fatal(err)
			}
			// The relist is over when c, which only it lists, is cached.
			for {
				if _, err := pods.Get("c"); err == nil {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatalf("the relist did not bring c: %v", ctx.Err())
				case <-time.After(10 * time.Millisecond):
				}
			}
			a2, err := pods.Get("a")
			if err != nil {
				t.Fatal(err)
			}
			if a2 != a {
				t.Errorf("a, unchanged at resourceVersion 7, is a new object after the relist: want the cached one")
			}
			if b, err := pods.Get("b"); err != nil || b.ResourceVersion != "8" {
				t.Errorf("b after the relist: %v, %v; want resourceVersion 8", b, err)
			}
			f.Shutdown()
			mu.Lock()
			defer mu.Unlock()
			for _, k := range []string{"a@7", "b@7", "b@8", "c@9"} {
				if transformed[k] != 1 {
					t.Errorf("Transform ran %d times on %s, want once: %v", transformed[k], k, transformed)
				}
			}
		})
	}
}
