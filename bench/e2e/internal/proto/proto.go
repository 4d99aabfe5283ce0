// Package proto is what the benchmark's driver and its contender processes
// share: the contender's configuration, its report lines, and the REST
// client for Foos both use.
package proto

import (
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
	// OursList, for ours, overrides the LIST options of our reflector: rv0,
	// paged, unpaged or nogzip (the driver's contender ours:MODE).
	OursList string
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
