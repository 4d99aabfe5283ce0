// Package proto is what the benchmark's driver and its contender processes
// share: the contenders' names, the contender's configuration and its report
// lines.
package proto

import (
	"strings"
	"syscall"
	"time"
)

// EnvConfig holds a child's configuration (JSON for a contender, the data
// directory for the server).
const EnvConfig = "BENCHBUILTIN_CONFIG"

// The contenders, in the order the tables show them. Typed is the anchor
// every ratio is taken against.
const (
	// Ours is the generated informer of examples/builtin (protobuf).
	Ours = "ours"
	// OursProjection is the generated projection's informer: PodSummary
	// for Pods, SecretKeys for Secrets (examples/builtin/generated).
	OursProjection = "ours-projection"
	// OursProjectionInterned is OursProjection with factory.Options
	// InternStrings (objects with equal labels share one labels map;
	// namespaces, owner kinds, finalizers and annotation keys share their
	// strings): the opt-in for the smallest cache.
	OursProjectionInterned = "ours-projection-interned"
	// Typed is client-go's typed informer over a clientset configured for
	// protobuf, as kube-controller-manager configures it.
	Typed = "client-go-typed"
	// Metadata is client-go's metadata informer (PartialObjectMetadata).
	Metadata = "client-go-metadata"
	// CtrlRtime is controller-runtime's cache (protobuf for built-ins).
	CtrlRtime = "controller-runtime"
	// CtrlRtimeMeta is controller-runtime's cache of PartialObjectMetadata
	// (what builder.OnlyMetadata watches).
	CtrlRtimeMeta = "controller-runtime-metadata"
)

// Contenders are all contenders, in table order.
var Contenders = []string{Ours, OursProjection, OursProjectionInterned, Typed, CtrlRtime, Metadata, CtrlRtimeMeta}

// NextSuffix after a contender's name runs it from the second contender
// binary (the driver's -contender-bin-next: ./contender built with
// next.mod, on the next Kubernetes minor's client libraries), so that one
// run measures both minors side by side: "client-go-typed@next" is
// client-go's typed informer on client-go v0.38, "ours@next" ours on it.
const NextSuffix = "@next"

// CutNext returns the contender a name runs and whether it runs from the
// next binary.
func CutNext(name string) (contender string, next bool) {
	return strings.CutSuffix(name, NextSuffix)
}

// The kinds measured, as resources of core/v1.
const (
	Pods    = "pods"
	Secrets = "secrets"
)

// The driver creates the objects in Namespaces namespaces, NamespacePrefix
// followed by 0, 1, ….
const (
	NamespacePrefix = "bench-"
	Namespaces      = 10
)

// ContenderConfig is what the driver tells one contender process.
type ContenderConfig struct {
	Kubeconfig string
	Contender  string
	// Resource is Pods or Secrets.
	Resource string
	// WatchList on or off. For ours it is reflector.Options.WatchList; the
	// client-go based contenders read client-go's WatchListClient gate from
	// the environment (KUBE_FEATURE_WatchListClient), which the driver sets
	// to the same value.
	WatchList bool
	// CPUProfile, when not empty, is the file the contender writes its CPU
	// profile into, from its start until it is synced.
	CPUProfile string
	// HeapProfile, when not empty, is the file the contender writes its
	// heap profile into once synced, after a forced GC.
	HeapProfile string
	// DisableCompression sets rest.Config.DisableCompression: the client
	// does not ask for gzip (by default it does, and the API server
	// compresses large responses).
	DisableCompression bool
	// Expect is the number of objects of Resource on the server.
	Expect  int
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
	// BaselineHeap is HeapAlloc after runtime.GC at the contender's start,
	// before any client or informer exists: what the process holds with
	// no object (package init of every contender linked in, the scheme);
	// HeapAfterGC includes it.
	BaselineHeap uint64
	// Wire is the Content-Type of the responses to the contender's LIST and
	// WATCH requests for Resource (the distinct ones, comma-separated);
	// WireBytes the bytes of their bodies read until synced (as the
	// client's decoder read them: decompressed).
	Wire      string
	WireBytes int64
	// GCCycles and GCCPUSeconds are the Go runtime's garbage collections
	// until synced and the CPU they took (runtime/metrics).
	GCCycles     uint64
	GCCPUSeconds float64
}

// DoneReport is the contender's last line, "DONE", written when the driver
// closed its stdin.
type DoneReport struct {
	MaxRSSBytes int64 // peak RSS of the whole run
}

// CPUSeconds is user+sys of ru.
func CPUSeconds(ru *syscall.Rusage) float64 {
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)).Seconds()
}
