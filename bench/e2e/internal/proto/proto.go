// Package proto is what the benchmark's driver and its contender processes
// share: the contender's configuration, its report lines, and the REST
// client for Foos both use.
package proto

import (
	"strings"
	"syscall"
	"time"

	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1alpha1"
)

// EnvConfig holds a child's configuration (JSON for a contender, the data
// directory for the server).
const EnvConfig = "BENCHE2E_CONFIG"

// The contenders, in the order the tables show them.
const (
	Ours      = "ours"
	Typed     = "client-go-typed"
	Dynamic   = "client-go-dynamic"
	CtrlRtime = "controller-runtime"
)

// Contenders are all contenders, in table order.
var Contenders = []string{Ours, Typed, Dynamic, CtrlRtime}

// NextSuffix after a contender's name runs it from the second contender
// binary (the driver's -contender-bin-next: ./contender built with
// next.mod, on the next Kubernetes minor's client libraries), so that one
// run measures both minors side by side against the same server:
// "client-go-typed@next" is client-go's typed informer on client-go v0.38,
// "ours@next" ours on it, "ours:h1@next" a variant of ours on it.
const NextSuffix = "@next"

// CutNext returns the contender a name runs and whether it runs from the
// next binary.
func CutNext(name string) (contender string, next bool) {
	return strings.CutSuffix(name, NextSuffix)
}

// The driver creates the Foos in Namespaces namespaces, NamespacePrefix
// followed by 0, 1, ….
const (
	NamespacePrefix = "bench-"
	Namespaces      = 10
)

// RoundLabel is the label the driver's updates set; its value names the run.
const RoundLabel = "bench-round"

// ContenderConfig is what the driver tells one contender process.
type ContenderConfig struct {
	Kubeconfig string
	Contender  string
	// WatchList on or off. For ours it is reflector.Options.WatchList; the
	// client-go based contenders read client-go's WatchListClient gate from
	// the environment (KUBE_FEATURE_WatchListClient), which the driver sets
	// to the same value.
	WatchList bool
	// OursList, for ours, is the variant (the driver's contender
	// ours:MODE): rv0, paged or unpaged override the LIST options of our
	// reflector; the others change how the client talks to the server (see
	// OursModes).
	OursList string
	// CPUProfile, when not empty, is the file the contender writes its CPU
	// profile into, from its start until it is synced.
	CPUProfile string
	// ExecUnixNano is the driver's clock right before it started this
	// process (Phases.Exec).
	ExecUnixNano int64
	// Expect is the number of Foos on the server.
	Expect int
	// Round is the value of RoundLabel that the driver's updates set, and
	// Updates how many objects it updates.
	Round   string
	Updates int
	Timeout time.Duration
}

// SyncReport is the contender's "SYNCED" line.
type SyncReport struct {
	SyncSeconds float64 // contender start → cache and handler synced
	Objects     int     // objects in the cache when synced
	Adds        int64   // OnAdd calls until synced
	CPUSeconds  float64 // user+sys of the process until synced
	MaxRSSBytes int64   // peak RSS (VmHWM) until synced
	HeapAfterGC uint64  // runtime.MemStats.HeapAlloc after runtime.GC, once synced
	Phases      Phases
}

// Phases are the moments of a contender's sync, in seconds since its main
// started (Exec: from the driver's exec to main); 0 when not seen (no LIST
// with WatchList on). Times are of the first LIST and the first WATCH
// request for foos, as the contender's transport saw them (below the
// client's decoding, above TLS and HTTP/2).
type Phases struct {
	Exec           float64 // the driver's exec → the contender's main
	FirstRequest   float64 // first request to the server sent
	Connected      float64 // first connection ready (TCP and TLS done)
	ListRequest    float64 // the LIST's request handed to the transport
	ListHeaders    float64 // the LIST's response headers
	ListFirstByte  float64 // the LIST's first body byte read
	ListLastByte   float64 // the LIST's last body byte read
	WatchRequest   float64 // the WATCH's request handed to the transport
	WatchHeaders   float64 // the WATCH's response headers
	WatchFirstByte float64 // the WATCH's first body byte read
	WatchLastByte  float64 // the WATCH's last body byte read before sync
	LastAdd        float64 // the handler's add of the last object
	// ListBytes is the LIST body's size as the client's decoder read it
	// (decompressed), Proto the HTTP protocol of the LIST or WATCH.
	ListBytes int64
	Proto     string
	// GCCycles and GCCPUSeconds are the Go runtime's garbage collections
	// until synced and the CPU they took (runtime/metrics).
	GCCycles     uint64
	GCCPUSeconds float64
}

// UpdateReport is the contender's "UPDATES" line.
type UpdateReport struct {
	Seen       int64   // updates seen that set the driver's round label
	CPUSeconds float64 // user+sys of the process until all were seen
}

// DoneReport is the contender's last line, "DONE", written when the driver
// closed its stdin.
type DoneReport struct {
	MaxRSSBytes int64 // peak RSS of the whole run
}

// OursModes are the variants of ours (the driver's contender ours:MODE) and
// what each changes; ours without a mode is the generated factory with its
// defaults.
var OursModes = map[string]string{
	"rv0":        `LIST resourceVersion "0"`,
	"paged":      `LIST resourceVersion "", limit 500`,
	"unpaged":    `LIST resourceVersion "", no limit (the default)`,
	"nogzip":     "responses not compressed (rest.Config.DisableCompression)",
	"h1":         "HTTP/1.1 instead of HTTP/2 (rest.Config.TLSClientConfig.NextProtos = http/1.1)",
	"h1nogzip":   "HTTP/1.1 and responses not compressed",
	"h1buf64k":   "HTTP/1.1 with a 64 KiB read buffer (http.Transport.ReadBufferSize; default 4 KiB)",
	"h2win16m":   "HTTP/2 with a 16 MiB stream receive window (http.Transport.HTTP2.MaxReceiveBufferPerStream; default 4 MiB)",
	"h2frame16k": "HTTP/2 advertising 16 KiB frames (http.Transport.HTTP2.MaxReadFrameSize; default 1 MiB)",
	"reflective": "the Foo informer without its generated JSON decoder (Type.DecodeJSON nil, as --json-decoders=none generates it)",
	"ns10":       "one LIST and WATCH per namespace, concurrently (factory.Options.Namespaces = the 10 bench namespaces)",
	"projection": "the FooSummary projection's informer instead of the Foo's (metadata, .spec.replicas, .status.availableReplicas: examples/crd's +informer-gen:projection)",
}

// FooClient is the REST client code-generator's clientset would build for
// samplecontroller.example.com/v1alpha1: the example's scheme, JSON. It
// returns the scheme too (for a parameter codec).
func FooClient(cfg *rest.Config) (*rest.RESTClient, *kruntime.Scheme, error) {
	scheme := kruntime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, nil, err
	}
	c := rest.CopyConfig(cfg)
	gv := v1alpha1.SchemeGroupVersion
	c.GroupVersion = &gv
	c.APIPath = "/apis"
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	c.UserAgent = rest.DefaultKubernetesUserAgent()
	rc, err := rest.RESTClientFor(c)
	return rc, scheme, err
}

// CPUSeconds is user+sys of ru.
func CPUSeconds(ru *syscall.Rusage) float64 {
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)).Seconds()
}
