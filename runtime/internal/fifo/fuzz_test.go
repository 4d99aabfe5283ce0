package fifo_test

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
)

// FuzzConverges drives a FIFO with random producer calls (watch events,
// missed events, relists) interleaved with pops applied to a
// consumer store, then relists once more and drains. It checks:
//   - the store ends equal to the "server";
//   - a tombstone is for a key the store holds when it is applied, and
//     carries exactly that object;
//   - a Deleted never directly follows a Deleted of the same key in the stream.
func FuzzConverges(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 4, 3, 1, 0, 4, 5, 4})
	f.Add([]byte{0, 0, 0, 1, 2, 1, 3, 4, 4, 2, 2, 2, 3, 4})
	f.Add([]byte{2, 0, 2, 1, 3, 0, 1, 1, 5, 4, 4, 4})
	f.Add([]byte{0, 0, 0, 3, 5, 4, 1, 3, 2, 8, 3, 4, 4, 4, 4})
	f.Fuzz(func(t *testing.T, prog []byte) {
		k := newKnown()
		q := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: k, MaxBatch: 3})
		server := map[string]*corev1.ConfigMap{}
		rv := 0
		write := func(name string, del bool) *corev1.ConfigMap {
			rv++
			key := "ns/" + name
			if del {
				o := server[key].DeepCopy()
				o.ResourceVersion = fmt.Sprint(rv)
				delete(server, key)
				return o
			}
			o := cm("ns", name, fmt.Sprint(rv))
			server[key] = o
			return o
		}
		list := func() []*corev1.ConfigMap {
			var out []*corev1.ConfigMap
			for _, o := range server {
				out = append(out, o.DeepCopy())
			}
			slices.SortFunc(out, func(a, b *corev1.ConfigMap) int { return cmpStr(a.Name, b.Name) })
			return out
		}
		lastType := map[string]fifo.DeltaType{}
		pop := func() {
			err := q.Pop(t.Context(), func(b fifo.Batch[*corev1.ConfigMap]) error {
				for _, d := range b.Deltas {
					cur, ok := k.Get(d.Key)
					switch {
					case d.FinalStateUnknown && (!ok || cur != d.Object):
						t.Fatalf("tombstone of %s carries %v, store holds %v (present %v)", d.Key, d.Object.ResourceVersion, cur, ok)
					case d.Type == fifo.Deleted && lastType[d.Key] == fifo.Deleted:
						t.Fatalf("Deleted after Deleted for %s", d.Key)
					}
					lastType[d.Key] = d.Type
				}
				k.apply(b)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i+1 < len(prog); i += 2 {
			name := fmt.Sprint("k", prog[i+1]%5)
			key := "ns/" + name
			_, exists := server[key]
			var err error
			switch prog[i] % 5 {
			case 0: // watch event: create or update
				if exists {
					err = q.Update(write(name, false))
				} else {
					err = q.Add(write(name, false))
				}
			case 1: // watch event: delete
				if exists {
					err = q.Delete(write(name, true))
				}
			case 2: // a change the watch missed
				write(name, exists)
			case 3:
				err = q.Replace(list(), fmt.Sprint(rv))
			case 4:
				if q.Len() > 0 {
					pop()
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := q.Replace(list(), fmt.Sprint(rv)); err != nil {
			t.Fatal(err)
		}
		for q.Len() > 0 {
			pop()
		}
		if !q.HasSynced() {
			t.Fatal("not synced after draining")
		}
		got := map[string]string{}
		for _, key := range k.ListKeys() {
			o, _ := k.Get(key)
			got[key] = o.ResourceVersion
		}
		want := map[string]string{}
		for key, o := range server {
			want[key] = o.ResourceVersion
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("store = %v, server = %v", got, want)
		}
	})
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
