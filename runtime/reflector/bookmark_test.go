package reflector_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// bookmarkSink is a sink that also records bookmarks, in stream order with
// the events.
type bookmarkSink struct {
	*sink
	mu  sync.Mutex
	ops []string
}

func (s *bookmarkSink) Add(o obj) error {
	s.mu.Lock()
	s.ops = append(s.ops, "add "+o.Name+"@"+o.ResourceVersion)
	s.mu.Unlock()
	return s.sink.Add(o)
}

func (s *bookmarkSink) Bookmark(rv string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, "bookmark@"+rv)
	return nil
}

// TestBookmarksReachABookmarkSink: a Sink that takes bookmarks gets each one
// in order with the events; a plain Sink is unaffected (the other tests).
func TestBookmarksReachABookmarkSink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		s := &bookmarkSink{sink: newSink()}
		r := reflector.New[obj](src, s, reflector.Options{WatchList: &no})
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Background()))
		done := make(chan struct{})
		go func() { _ = r.Run(ctx); close(done) }()
		synctest.Wait()
		src.Bookmark()
		src.Add(cm("b", ""))
		src.Bookmark()
		synctest.Wait()
		cancel()
		<-done
		s.mu.Lock()
		defer s.mu.Unlock()
		if want := []string{"bookmark@2", "add b@3", "bookmark@4"}; !slices.Equal(s.ops, want) {
			t.Fatalf("sink saw %q, want %q", s.ops, want)
		}
	})
}
