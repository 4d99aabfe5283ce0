package workqueue_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

func TestExponentialRateLimiter(t *testing.T) {
	r := workqueue.NewExponentialRateLimiter[string](5*time.Millisecond, time.Second)
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i, w := range want {
		if d := r.When("a"); d != w*time.Millisecond {
			t.Fatalf("When #%d = %v, want %v", i, d, w*time.Millisecond)
		}
	}
	if d := r.When("b"); d != 5*time.Millisecond {
		t.Fatalf("When(b) = %v, want 5ms: keys are independent", d)
	}
	if n := r.NumRequeues("a"); n != len(want) {
		t.Fatalf("NumRequeues(a) = %d, want %d", n, len(want))
	}
	r.Forget("a")
	if n := r.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues after Forget = %d", n)
	}
	if d := r.When("a"); d != 5*time.Millisecond {
		t.Fatalf("When after Forget = %v, want 5ms", d)
	}
	// Far past the cap, without overflow.
	big := workqueue.NewExponentialRateLimiter[int](time.Millisecond, 1000*time.Second)
	for range 2000 {
		if d := big.When(1); d < 0 || d > 1000*time.Second {
			t.Fatalf("When = %v: overflowed the cap", d)
		}
	}
}

func TestBucketRateLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := workqueue.NewBucketRateLimiter[string](2, 3) // 2/s, burst 3
		for i := range 3 {
			if d := r.When("x"); d != 0 {
				t.Fatalf("When #%d within burst = %v, want 0", i, d)
			}
		}
		if d := r.When("x"); d != 500*time.Millisecond {
			t.Fatalf("4th When = %v, want 500ms", d)
		}
		if d := r.When("y"); d != time.Second {
			t.Fatalf("5th When = %v, want 1s (the bucket is shared by all keys)", d)
		}
		time.Sleep(time.Second) // repays the debt of 2 tokens
		if d := r.When("x"); d != 500*time.Millisecond {
			t.Fatalf("When after 1s = %v, want 500ms", d)
		}
		time.Sleep(time.Hour) // refills only up to burst
		for i := range 3 {
			if d := r.When("x"); d != 0 {
				t.Fatalf("When #%d after refill = %v, want 0", i, d)
			}
		}
		if d := r.When("x"); d != 500*time.Millisecond {
			t.Fatalf("When beyond refilled burst = %v, want 500ms", d)
		}
		if n := r.NumRequeues("x"); n != 0 {
			t.Fatalf("NumRequeues = %d, want 0", n)
		}
	})
}

func TestDefaultRateLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := workqueue.DefaultRateLimiter[int]()
		for i := range 100 {
			if d := r.When(i); d != 5*time.Millisecond {
				t.Fatalf("When(%d) = %v, want 5ms (exponential, bucket not exhausted)", i, d)
			}
		}
		if d := r.When(1000); d != 100*time.Millisecond {
			t.Fatalf("101st When = %v, want 100ms (bucket of 10 qps exhausted)", d)
		}
		// Key 0 again: exponential says 10ms, bucket says 200ms.
		if d := r.When(0); d != 200*time.Millisecond {
			t.Fatalf("When(0) = %v, want 200ms", d)
		}
		if n := r.NumRequeues(0); n != 2 {
			t.Fatalf("NumRequeues(0) = %d, want 2", n)
		}
		r.Forget(0)
		if n := r.NumRequeues(0); n != 0 {
			t.Fatalf("NumRequeues after Forget = %d", n)
		}
	})
}

func TestMaxOfRateLimiter(t *testing.T) {
	r := workqueue.NewMaxOfRateLimiter(
		workqueue.NewExponentialRateLimiter[string](time.Millisecond, time.Hour),
		workqueue.NewExponentialRateLimiter[string](10*time.Millisecond, 15*time.Millisecond),
	)
	for i, w := range []time.Duration{10, 15, 15, 15, 16, 32} {
		if d := r.When("a"); d != w*time.Millisecond {
			t.Fatalf("When #%d = %v, want %v", i, d, w*time.Millisecond)
		}
	}
}
