package parallel_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/informer-gen/informer-gen/examples/crd/internal/parallel"
)

func TestDoRunsEveryIndexOnce(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]int{}
	err := parallel.Do(t.Context(), 4, 3, 103, func(i int) error {
		mu.Lock()
		defer mu.Unlock()
		seen[i]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 100 {
		t.Fatalf("ran %d distinct indices, want 100", len(seen))
	}
	for i, n := range seen {
		if i < 3 || i >= 103 || n != 1 {
			t.Fatalf("index %d ran %d times", i, n)
		}
	}
}

func TestDoReturnsFirstErrorAndStops(t *testing.T) {
	boom := errors.New("boom")
	var mu sync.Mutex
	ran := 0
	err := parallel.Do(t.Context(), 1, 0, 100, func(i int) error {
		mu.Lock()
		defer mu.Unlock()
		ran++
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Do = %v, want boom", err)
	}
	if ran != 11 {
		t.Fatalf("one worker ran %d indices, want 11 (none after the error)", ran)
	}
}

func TestDoCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := parallel.Do(ctx, 2, 0, 10, func(int) error { t.Error("fn ran after cancel"); return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
}
