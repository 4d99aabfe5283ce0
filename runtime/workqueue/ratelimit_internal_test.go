package workqueue

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// TestExponentialRateLimiterMatchesModel runs random When, Forget and
// NumRequeues over more keys than there are failure buckets, so that keys
// share buckets, and checks every count against a plain map and the bucket
// counts against the keys backing off.
func TestExponentialRateLimiterMatchesModel(t *testing.T) {
	r := NewExponentialRateLimiter[string](time.Millisecond, time.Second).(*exponentialRateLimiter[string])
	model := map[string]int{}
	rng := rand.New(rand.NewPCG(5, 5))
	key := func() string { return "k" + strconv.Itoa(rng.IntN(3*failureBuckets)) }
	for step := range 50_000 {
		k := key()
		switch rng.IntN(3) {
		case 0:
			r.When(k)
			model[k]++
		case 1:
			r.Forget(k)
			delete(model, k)
		default:
			if got := r.NumRequeues(k); got != model[k] {
				t.Fatalf("step %d: NumRequeues(%s) = %d, want %d", step, k, got, model[k])
			}
		}
	}
	var want [failureBuckets]int32
	for k := range model {
		want[r.bucketOf(k)]++
	}
	for h := range want {
		if got := r.backingOff[h].Load(); got != want[h] {
			t.Fatalf("bucket %d counts %d keys, want %d", h, got, want[h])
		}
	}
	if got := r.keys.Load(); got != int64(len(model)) {
		t.Fatalf("keys = %d, want %d", got, len(model))
	}
}

// TestExponentialRateLimiterForgetSkipsLock holds the limiter's lock while
// one key backs off and Forgets a key of another bucket: it must return
// without the lock, so that workers finishing keys do not queue on it
// because some other key is failing.
func TestExponentialRateLimiterForgetSkipsLock(t *testing.T) {
	r := NewExponentialRateLimiter[string](time.Millisecond, time.Second).(*exponentialRateLimiter[string])
	r.When("failing")
	other := ""
	for i := 0; other == ""; i++ {
		if k := "ok" + strconv.Itoa(i); r.bucketOf(k) != r.bucketOf("failing") {
			other = k
		}
	}
	r.mu.Lock()
	done := make(chan int)
	go func() {
		r.Forget(other)
		done <- r.NumRequeues(other)
	}()
	select {
	case n := <-done:
		if n != 0 {
			t.Errorf("NumRequeues(%s) = %d, want 0", other, n)
		}
		r.mu.Unlock()
	case <-time.After(time.Minute):
		t.Error("Forget of a key with no failures in its bucket waited for the lock for a minute")
		r.mu.Unlock()
		<-done
	}
}
