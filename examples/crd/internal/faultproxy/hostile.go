package faultproxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
)

// What a hostile server (or a proxy rewriting bodies) does that the faults
// of proxy.go do not: answers every watch with a canned stream, sends events
// an API server never sends into open watches, rewrites the objects of LIST
// and WATCH bodies.

type answer struct {
	match func(Request) bool
	lines func(Request) [][]byte
}

func (a *answer) serve(w http.ResponseWriter, req Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	for _, l := range a.lines(req) {
		_, _ = w.Write(l)
	}
}

// AnswerWatches makes the proxy answer watch requests matching match itself,
// without asking the server: a 200 whose body is the event lines lines
// returns for the request (see EventLine), after which the stream ends. It
// lasts until the returned func is called.
func (p *Proxy) AnswerWatches(match func(Request) bool, lines func(Request) [][]byte) (remove func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := &answer{match: func(r Request) bool { return r.IsWatch() && match(r) }, lines: lines}
	p.answers = append(p.answers, a)
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.answers = slices.DeleteFunc(p.answers, func(b *answer) bool { return b == a })
	}
}

// InjectEvents sends lines (see EventLine) on every watch response open now,
// between two of the server's events, and then, if thenClose, ends each of
// those streams. It returns how many watches it hit.
func (p *Proxy) InjectEvents(lines [][]byte, thenClose bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for s := range p.streams {
		s.inject = append(s.inject, lines...)
		s.closeAfter = s.closeAfter || thenClose
		s.kickLocked()
	}
	return len(p.streams)
}

// RewriteObjects applies f to every object in the bodies the server sends
// (the items of a JSON LIST, the object of each JSON watch event but
// bookmarks and errors), as a broken proxy rewriting bodies would, until
// the returned func is called. One rewrite at a time.
func (p *Proxy) RewriteObjects(f func(obj map[string]any)) (remove func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rewrite = f
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.rewrite = nil
	}
}

// EventLine returns the JSON watch event line of type typ for obj, a JSON
// object, with its metadata.resourceVersion set to rv.
func EventLine(typ string, obj []byte, rv string) []byte {
	var o map[string]any
	if err := json.Unmarshal(obj, &o); err != nil {
		panic("faultproxy.EventLine: " + err.Error())
	}
	md, _ := o["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		o["metadata"] = md
	}
	md["resourceVersion"] = rv
	b, err := json.Marshal(map[string]any{"type": typ, "object": o})
	if err != nil {
		panic("faultproxy.EventLine: " + err.Error())
	}
	return append(b, '\n')
}

// StartRV returns the resourceVersion a watch request starts from, as a
// number, and whether it has one.
func StartRV(r Request) (uint64, bool) {
	n, err := strconv.ParseUint(r.URL.Query().Get("resourceVersion"), 10, 64)
	return n, err == nil
}

// rewriteEvent applies f to the object of a JSON watch event line; other
// lines (bookmarks, errors, what does not parse) pass unchanged.
func rewriteEvent(line []byte, f func(map[string]any)) []byte {
	var ev struct {
		Type   string         `json:"type"`
		Object map[string]any `json:"object"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Object == nil {
		return line
	}
	switch ev.Type {
	case "ADDED", "MODIFIED", "DELETED":
	default:
		return line
	}
	f(ev.Object)
	b, err := json.Marshal(ev)
	if err != nil {
		return line
	}
	return append(b, '\n')
}

// rewriteList applies the rewrite, if any, to the items of a JSON LIST
// response.
func (p *Proxy) rewriteList(resp *http.Response) error {
	p.mu.Lock()
	f := p.rewrite
	p.mu.Unlock()
	if f == nil || resp.Header.Get("Content-Type") != "application/json" {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var list map[string]any
	if json.Unmarshal(body, &list) == nil {
		if items, ok := list["items"].([]any); ok {
			for _, it := range items {
				if o, ok := it.(map[string]any); ok {
					f(o)
				}
			}
			if b, err := json.Marshal(list); err == nil {
				body = b
			}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}
