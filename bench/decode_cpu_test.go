package bench_test

import (
	"bytes"
	"flag"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/wire"
)

var decodeCPURounds = flag.Int("decode-cpu-rounds", 0, "run TestDecodeCPUAlternated with this many rounds")

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestDecodeCPUAlternated measures the process CPU time (getrusage) of
// decoding one LIST page of 500 Pods with each decoder, the decoders
// alternated page by page so that a loaded machine slows them alike. A
// measurement, not a test: it runs only with -decode-cpu-rounds N, e.g.
//
//	go test -run TestDecodeCPUAlternated -v ./bench -args -decode-cpu-rounds=20
func TestDecodeCPUAlternated(t *testing.T) {
	if *decodeCPURounds == 0 {
		t.Skip("a measurement: run with -decode-cpu-rounds N")
	}
	body := podListBody(t, 500)
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	ours := func(c wire.Codec[*corev1.Pod]) func() {
		return func() {
			n := 0
			if _, err := c.DecodeList(bytes.NewReader(body), func(*corev1.Pod) error { n++; return nil }); err != nil || n != 500 {
				t.Fatal(err)
			}
		}
	}
	dec, err := clientGoNegotiator().Decoder("application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	variants := []struct {
		name string
		run  func()
	}{
		{"ours", ours(must(wire.NewJSON[*corev1.Pod](gvk)))},
		{"ours,generated", ours(must(wire.NewJSON[*corev1.Pod](gvk, podDecoder)))},
		{"client-go", func() {
			list := &corev1.PodList{}
			if _, _, err := dec.Decode(bytes.Clone(body), nil, list); err != nil || len(list.Items) != 500 {
				t.Fatal(err)
			}
		}},
	}
	total := make([]time.Duration, len(variants))
	for _, v := range variants {
		v.run() // warm up
	}
	for range *decodeCPURounds {
		for i, v := range variants {
			start := cpuNow()
			v.run()
			total[i] += cpuNow() - start
		}
	}
	for i, v := range variants {
		per := total[i] / time.Duration(*decodeCPURounds)
		t.Logf("%-16s %8.2f ms CPU per page, client-go/this %.2fx", v.name, float64(per)/1e6, float64(total[2])/float64(total[i]))
	}
}
