package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestDemo runs the demo in-process on a small batch: it must pass its own
// checks (every status reconciled, caches equal a fresh LIST) and print the
// summary.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	err := run(t.Context(), config{objects: 200, hosts: 4, workers: 4, clients: 8, namespace: "default", timeout: 3 * time.Minute}, &out)
	if err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	for _, want := range []string{"summary", "every status reconciled", "caches equal a fresh LIST", "PASS", "150 foos"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
