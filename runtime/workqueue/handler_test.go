package workqueue_test

import (
	"testing"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

type obj struct{ name, rv string }

func (o *obj) GetResourceVersion() string { return o.rv }

// TestHandlerPriorities: the initial list's adds and unchanged updates go
// in at LowPriority, changes and deletes at 0, so a change made during the
// initial list's drain is handed out first.
func TestHandlerPriorities(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	defer q.ShutDown()
	h := workqueue.Handler[*obj, string]{Queue: q, Key: func(o *obj) string { return o.name }}
	h.OnAdd(&obj{"a", "1"}, true)
	h.OnAdd(&obj{"b", "1"}, true)
	h.OnAdd(&obj{"c", "1"}, true)
	h.OnUpdate(&obj{"d", "4"}, &obj{"d", "4"}) // resync
	h.OnAdd(&obj{"e", "5"}, false)             // created after the list
	h.OnUpdate(&obj{"c", "1"}, &obj{"c", "6"}) // a user's edit: c moves up
	h.OnDelete(&obj{"f", "7"}, false)
	want := []struct {
		key  string
		prio int
	}{{"e", 0}, {"c", 0}, {"f", 0}, {"a", workqueue.LowPriority}, {"b", workqueue.LowPriority}, {"d", workqueue.LowPriority}}
	for _, w := range want {
		k, p := getP(t, q)
		if k != w.key || p != w.prio {
			t.Fatalf("got %s at %d, want %s at %d", k, p, w.key, w.prio)
		}
		q.Done(k)
	}
}
