package reflector

import (
	"testing"
	"time"
)

func TestBackoffBoundsAndReset(t *testing.T) {
	b := newBackoff(0, 0)
	r := 0.0
	b.rand = func() float64 { return r }
	now := time.Unix(0, 0)
	want := []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
		6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}
	for i, base := range want {
		r = 0
		if got := b.next(now); got != base/2 {
			t.Errorf("failure %d with rand 0: wait %v, want %v", i+1, got, base/2)
		}
		// Undo the step to probe the top of the same interval.
		b.base /= 2
		if i == 0 {
			b.base = 0
		}
		r = 0.999999
		if got := b.next(now); got > base || got < base*99/100 {
			t.Errorf("failure %d with rand ~1: wait %v, want just under %v", i+1, got, base)
		}
		now = now.Add(time.Second)
	}
	// Two quiet minutes reset the backoff.
	r = 0
	if got := b.next(now.Add(backoffResetAfter + time.Second)); got != 400*time.Millisecond {
		t.Errorf("after a quiet period: wait %v, want 400ms", got)
	}
}

func TestBackoffOptions(t *testing.T) {
	b := newBackoff(time.Second, 4*time.Second)
	b.rand = func() float64 { return 0.5 }
	now := time.Unix(0, 0)
	var got []time.Duration
	for range 4 {
		got = append(got, b.next(now))
	}
	want := []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second, 3 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("waits = %v, want %v", got, want)
			break
		}
	}
}
