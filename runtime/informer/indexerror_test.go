package informer_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// TestIndexErrorsGoToRunsLogger: an index func that fails is reported
// through the logger in Run's ctx (naming the informer's resource, the index
// and the object's key, never its contents nor the func's error text), not
// klog's global logger.
func TestIndexErrorsGoToRunsLogger(t *testing.T) {
	logs, logger := recordLogs()
	src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "bad", "secret-value"), cm("ns", "good"))
	inf := newInformer(src, informer.Options[CM]{Indexers: store.Indexers[CM]{
		"byData": func(o CM) ([]string, error) {
			if o.Name == "bad" {
				return nil, errors.New("no index value")
			}
			return []string{o.Name}, nil
		},
	}})
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	waitSynced(t, inf)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	found := logs.matching("index func failed")
	if len(found) != 1 {
		t.Fatalf("index error lines in Run's logger: %q, want one", found)
	}
	l := found[0]
	// The index func's own text is withheld (it could quote the object:
	// docs/guide.md, "What reaches a log or an error"); its type is named.
	for _, want := range []string{`"index"="byData"`, `"key"="ns/bad"`, `"resource"="configmaps.v1"`, "error of type *errors.errorString"} {
		if !strings.Contains(l, want) {
			t.Errorf("index error line %s lacks %s", l, want)
		}
	}
	if strings.Contains(l, "secret-value") || strings.Contains(l, "no index value") {
		t.Errorf("index error line %s carries the object's contents", l)
	}
}

// logLines records the lines of a logger (funcr's "key"="value" form).
type logLines struct {
	mu    sync.Mutex
	lines []string
}

// recordLogs returns a logger whose every line is kept in the logLines.
func recordLogs() (*logLines, logr.Logger) {
	l := &logLines{}
	return l, funcr.New(func(_, args string) {
		l.mu.Lock()
		l.lines = append(l.lines, args)
		l.mu.Unlock()
	}, funcr.Options{})
}

// matching returns the lines recorded so far that contain s.
func (l *logLines) matching(s string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}
