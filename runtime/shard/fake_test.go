package shard_test

import (
	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/leasefake"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// fakeLeases is the in-memory Lease API of runtime/internal/leasefake, with
// the names these tests use.
type fakeLeases struct {
	*leasefake.Leases
	src *runtimetest.Source[*coordinationv1.Lease]
}

func newFakeLeases() *fakeLeases {
	l := leasefake.New()
	return &fakeLeases{Leases: l, src: l.Source}
}

func (f *fakeLeases) setLost(name string, lost bool)    { f.SetLost(name, lost) }
func (f *fakeLeases) setFailing(name string, fail bool) { f.SetFailing(name, fail) }
func (f *fakeLeases) writeCount() int                   { return f.Writes() }
