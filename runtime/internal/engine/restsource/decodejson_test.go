package restsource

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// TestTypeDecodeJSONReachesTheCodec: a type's DecodeJSON (a generated
// decoder) is what the JSON codec built for it decodes objects with, and
// without one the codec decodes them itself.
func TestTypeDecodeJSONReachesTheCodec(t *testing.T) {
	custom := runtime.NewScheme()
	if err := lwt.AddToScheme(custom); err != nil {
		t.Fatal(err)
	}
	calls := 0
	decoder := wire.GeneratedDecoder(func(d *wire.JSONDecoder, w *lwt.Widget) error {
		calls++
		return d.DecodeDefault(w)
	})
	body := `{"apiVersion":"test.informer-gen.dev/v1","kind":"WidgetList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a","namespace":"n"}},{"metadata":{"name":"b","namespace":"n"}}]}`
	for _, c := range []struct {
		name      string
		decoder   wire.Option
		wantCalls int
	}{
		{"with DecodeJSON", decoder, 2},
		{"without", wire.Option{}, 0},
	} {
		calls = 0
		ty := typeOf(lwt.GVR.GroupVersion().WithKind(""), reflect.TypeFor[*lwt.Widget]())
		ty.DecodeJSON = c.decoder
		codec, _, err := Codecs(nil, custom, ty, Request{SkipManagedFields: true})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		if _, err := codec.DecodeList(strings.NewReader(body), func(o cache.Obj) error {
			names = append(names, o.GetName())
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if calls != c.wantCalls || len(names) != 2 || names[0] != "a" || names[1] != "b" {
			t.Errorf("%s: %d calls of DecodeJSON (want %d), items %v", c.name, calls, c.wantCalls, names)
		}
	}
}
