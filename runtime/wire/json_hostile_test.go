package wire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/watch"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

var widgetCodec = must(wire.NewJSON[*lwt.Widget](lwt.GVR.GroupVersion().WithKind("Widget")))

func widgetEvent(typ, name, rv, spec string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"apiVersion":"test.informer-gen.dev/v1","kind":"Widget","metadata":{"namespace":"ns","name":%q,"resourceVersion":%q},"spec":%s}}`, typ, name, rv, spec)
}

// readAll returns the events read until the first error other than a
// recoverable DecodeError, and the recoverable ones seen.
func readAll(body string) (evs []wire.Event[*lwt.Widget], skipped []*wire.DecodeError, end error) {
	d := widgetCodec.NewWatchDecoder(strings.NewReader(body))
	for {
		ev, err := d.Next()
		var de *wire.DecodeError
		switch {
		case err == nil:
			evs = append(evs, ev)
		case errors.As(err, &de) && de.Recoverable:
			skipped = append(skipped, de)
		default:
			if _, again := d.Next(); again != err && !(errors.As(again, &de) && again.Error() == err.Error()) {
				return evs, skipped, fmt.Errorf("Next after %v returned %v", err, again)
			}
			return evs, skipped, err
		}
	}
}

func TestWatchDecoderEventsAndEOF(t *testing.T) {
	body := widgetEvent("ADDED", "a", "1", `{"size":1}`) + "\n\n" + widgetEvent("MODIFIED", "a", "2", `{"size":2}`) +
		`{"object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired"},"type":"ERROR"}` + " \r\n"
	evs, skipped, end := readAll(body)
	if end != io.EOF || len(skipped) != 0 || len(evs) != 3 {
		t.Fatalf("got %d events, %d skipped, end %v", len(evs), len(skipped), end)
	}
	if evs[0].Type != watch.Added || evs[0].Object.Name != "a" || evs[1].Object.Spec.Size != 2 || evs[0].Object == evs[1].Object {
		t.Fatalf("events %+v %+v", evs[0], evs[1])
	}
	if evs[0].Object.Kind != "" || evs[0].Object.APIVersion != "" {
		t.Errorf("watch object kept its TypeMeta %+v (client-go clears it)", evs[0].Object.TypeMeta)
	}
	if evs[2].Type != watch.Error || evs[2].Status == nil || evs[2].Status.Code != 410 || evs[2].Object != nil {
		t.Fatalf("ERROR event %+v", evs[2])
	}
}

// TestWatchDecoderRecoverable: an event whose frame is whole but which does
// not decode is a recoverable DecodeError naming the object, and the next
// event decodes.
func TestWatchDecoderRecoverable(t *testing.T) {
	bad := []struct{ name, event, key, rv string }{
		{"wrong field type", widgetEvent("ADDED", "b", "7", `{"size":"SECRET-VALUE"}`), "ns/b", "7"},
		{"wrong kind", strings.Replace(widgetEvent("ADDED", "c", "8", `{}`), `"Widget"`, `"Gadget"`, 1), "ns/c", "8"},
		{"no kind", `{"type":"ADDED","object":{"metadata":{"name":"d"}}}`, "d", ""},
		{"unknown type", widgetEvent("EXPLODED", "e", "9", `{}`), "", ""},
		{"no object", `{"type":"ADDED"}`, "", ""},
		{"not an object", `[1,2,{"a":[]}]`, "", ""},
		{"type not a string", `{"type":5,"object":{}}`, "", ""},
		{"bad status", `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","code":"x"}}`, "", ""},
		{"duplicate type, last unknown", `{"type":"ADDED","object":{"apiVersion":"test.informer-gen.dev/v1","kind":"Widget","metadata":{"name":"g"}},"type":"BOGUS"}`, "", ""},
		{"duplicate type, ERROR after object", `{"type":"ADDED","object":{"apiVersion":"test.informer-gen.dev/v1","kind":"Widget","metadata":{"name":"g"}},"type":"ERROR"}`, "", ""},
		{"bad nested value", widgetEvent("MODIFIED", "f", "10", `{"size":1,"nodeName":{"deep":[1,2,{"x":"y"}]}}`), "ns/f", "10"},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			body := widgetEvent("ADDED", "a", "1", `{}`) + b.event + widgetEvent("DELETED", "z", "99", `{}`)
			evs, skipped, end := readAll(body)
			if end != io.EOF || len(evs) != 2 || evs[1].Object.Name != "z" || len(skipped) != 1 {
				t.Fatalf("events %d skipped %d end %v", len(evs), len(skipped), end)
			}
			de := skipped[0]
			if de.Key != b.key || de.ResourceVersion != b.rv {
				t.Errorf("DecodeError names %q@%q, want %q@%q: %v", de.Key, de.ResourceVersion, b.key, b.rv, de)
			}
			if b.key != "" && !strings.Contains(de.Error(), b.key) {
				t.Errorf("message %q does not name %s", de, b.key)
			}
			if strings.Contains(de.Error(), "SECRET") {
				t.Errorf("message %q quotes the object's contents", de)
			}
		})
	}
}

// TestWatchDecoderTruncated cuts a stream of three events at every byte:
// the whole events before the cut decode, then the stream ends cleanly (cut
// between events) or with an unrecoverable DecodeError; never a panic, never
// a wrong event.
func TestWatchDecoderTruncated(t *testing.T) {
	events := []string{widgetEvent("ADDED", "a", "1", `{"size":1}`), widgetEvent("MODIFIED", "b", "2", `{"nodeName":"n"}`), widgetEvent("DELETED", "c", "3", `{}`)}
	body := strings.Join(events, "\n")
	for cut := range len(body) {
		evs, skipped, end := readAll(body[:cut])
		whole := 0
		for i := range events {
			if len(strings.Join(events[:i+1], "\n")) <= cut {
				whole = i + 1
			}
		}
		if len(evs) != whole || len(skipped) != 0 {
			t.Fatalf("cut at %d: %d events (%d skipped), want %d", cut, len(evs), len(skipped), whole)
		}
		for i, ev := range evs {
			if want := string(rune('a' + i)); ev.Object.Name != want {
				t.Fatalf("cut at %d: event %d is %s", cut, i, ev.Object.Name)
			}
		}
		between := strings.TrimSpace(body[len(strings.Join(events[:whole], "\n")):cut]) == ""
		var de *wire.DecodeError
		switch {
		case between && end != io.EOF:
			t.Fatalf("cut at %d between events: %v, want io.EOF", cut, end)
		case !between && (!errors.As(end, &de) || de.Recoverable):
			t.Fatalf("cut at %d inside an event: %v, want an unrecoverable DecodeError", cut, end)
		}
	}
}

func TestWatchDecoderGarbage(t *testing.T) {
	for _, body := range []string{
		"garbage", "{", `{"type":"ADDED","object":{"metadata":{}}`, "{}}", `{"type":"ADDED",,}`, "\x00\x01\x02",
		`{"type":"ADDED","object":` + strings.Repeat("[", 20000), strings.Repeat("{", 3),
	} {
		evs, _, end := readAll(widgetEvent("ADDED", "a", "1", "{}") + body)
		var de *wire.DecodeError
		if len(evs) != 1 || !errors.As(end, &de) || de.Recoverable {
			t.Errorf("%.30q: %d events, end %v: want 1 and an unrecoverable DecodeError", body, len(evs), end)
		}
	}
}

// errReader returns its data, then err.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestWatchDecoderReadError: a broken connection is a read error, not a
// DecodeError, even in the middle of an event.
func TestWatchDecoderReadError(t *testing.T) {
	broken := errors.New("connection reset")
	body := widgetEvent("ADDED", "a", "1", "{}") + `{"type":"MODI`
	d := widgetCodec.NewWatchDecoder(&errReader{data: []byte(body), err: broken})
	if _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := d.Next()
	var de *wire.DecodeError
	if !errors.Is(err, broken) || errors.As(err, &de) {
		t.Fatalf("Next = %v, want the read error", err)
	}
}

func TestDecodeList(t *testing.T) {
	item := func(name string) string {
		return fmt.Sprintf(`{"metadata":{"namespace":"ns","name":%q,"resourceVersion":"5"},"spec":{"size":3}}`, name)
	}
	body := `{"kind":"WidgetList","apiVersion":"test.informer-gen.dev/v1","metadata":{"resourceVersion":"12","continue":"c","remainingItemCount":4},"items":[` + item("a") + "," + item("b") + `]}`
	var got []*lwt.Widget
	lm, err := widgetCodec.DecodeList(strings.NewReader(body), func(w *lwt.Widget) error { got = append(got, w); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "a" || got[1].Spec.Size != 3 || got[0] == got[1] || lm.ResourceVersion != "12" || lm.Continue != "c" || *lm.RemainingItemCount != 4 {
		t.Fatalf("list %+v, items %v", lm, got)
	}
	stop := errors.New("stop")
	if _, err := widgetCodec.DecodeList(strings.NewReader(body), func(*lwt.Widget) error { return stop }); err != stop {
		t.Fatalf("each's error came back as %v", err)
	}
	for _, bad := range []struct{ name, body, key string }{
		{"truncated", body[:len(body)/2], ""},
		{"item of wrong type", strings.Replace(body, `"size":3}}]`, `"size":"x"}}]`, 1), "ns/b"},
		{"item of another kind", strings.Replace(body, `{"metadata":{"namespace":"ns","name":"b"`, `{"kind":"Gadget","metadata":{"namespace":"ns","name":"b"`, 1), "ns/b"},
		{"list of another kind", strings.Replace(body, "WidgetList", "GadgetList", 1), ""},
		{"duplicate items", strings.Replace(body, `"items":[`, `"items":[],"items":[`, 1), ""},
		{"items not an array", `{"items":{}}`, ""},
		{"trailing data", body + "{}", ""},
		{"not an object", `[]`, ""},
		{"empty", ``, ""},
	} {
		_, err := widgetCodec.DecodeList(strings.NewReader(bad.body), func(*lwt.Widget) error { return nil })
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.Key != bad.key {
			t.Errorf("%s: %v, want a DecodeError naming %q", bad.name, err, bad.key)
		}
	}
	if _, err := widgetCodec.DecodeList(&errReader{data: []byte(body[:40]), err: io.ErrClosedPipe}, func(*lwt.Widget) error { return nil }); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("read error came back as %v", err)
	}
	var n int
	if _, err := widgetCodec.DecodeList(bytes.NewReader([]byte(`{"items":null,"metadata":{"resourceVersion":"3"}}`)), func(*lwt.Widget) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("null items: %v, %d items", err, n)
	}
}
