package main

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestRelistProxy drives the proxy as a reflector does: a forced relist
// ends the open watch, expires the re-watch with 410 Expired and is done
// once the client watches again after its LIST. (The WatchList path, done
// at the stream's initial-events-end bookmark, is exercised against the
// real server by -relist runs only.)
func TestRelistProxy(t *testing.T) {
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case q.Get("sendInitialEvents") == "true":
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusOK)
			gz := gzip.NewWriter(w)
			_, _ = io.WriteString(gz, strings.Repeat(`{"type":"ADDED"}`, 5000)+`{"type":"BOOKMARK","object":{"metadata":{"annotations":{"k8s.io/initial-events-end":"true"}}}}`)
			_ = gz.Close()
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case q.Get("watch") == "true":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			_, _ = io.WriteString(w, `{"kind":"PodList","items":[]}`)
		}
	}))
	defer upstream.Close()
	p, err := startRelistProxy(&rest.Config{Host: upstream.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, filepath.Join(t.TempDir(), "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	cfg, err := clientcmd.BuildConfigFromFlags("", p.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(query string) *http.Response {
		t.Helper()
		resp, err := client.Get(cfg.Host + "/api/v1/pods?" + query)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	open := func(resp *http.Response) <-chan struct{} {
		ended := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, resp.Body); close(ended) }()
		return ended
	}
	waitClosed := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(time.Minute):
			t.Fatalf("%s: not within a minute", what)
		}
	}
	notClosed := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
			t.Fatalf("%s too early", what)
		default:
		}
	}

	w := get("watch=true&resourceVersion=1")
	ended := open(w)
	done := p.force("pods", nil)
	waitClosed(ended, "the open watch ended")
	resp := get("watch=true&resourceVersion=1")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusGone || !strings.Contains(string(body), `"reason":"Expired"`) {
		t.Fatalf("re-watch: %s %s, want 410 Expired", resp.Status, body)
	}
	notClosed(done, "relist done after the 410")
	l := get("")
	_, _ = io.Copy(io.Discard, l.Body)
	l.Body.Close()
	notClosed(done, "relist done after the LIST")
	w2 := get("watch=true&resourceVersion=2")
	waitClosed(done, "relist done once watching after the LIST")

	// With a hold (-relist-change), the re-watch waits for its release:
	// what changes meanwhile only the relist sees.
	hold := make(chan struct{})
	ended = open(w2)
	done = p.force("pods", hold)
	waitClosed(ended, "the open watch ended (hold)")
	rewatch := make(chan int, 1)
	go func() {
		resp, err := client.Get(cfg.Host + "/api/v1/pods?watch=true&resourceVersion=2")
		if err != nil {
			rewatch <- 0
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		rewatch <- resp.StatusCode
	}()
	select {
	case code := <-rewatch:
		t.Fatalf("the re-watch was answered (%d) before the hold was released", code)
	case <-time.After(200 * time.Millisecond):
	}
	close(hold)
	select {
	case code := <-rewatch:
		if code != http.StatusGone {
			t.Fatalf("re-watch after the hold: %d, want 410", code)
		}
	case <-time.After(time.Minute):
		t.Fatal("the re-watch was not answered within a minute of the hold's release")
	}
	notClosed(done, "relist done after the held 410")
}
