package core

import "github.com/informer-gen/informer-gen/runtime/internal/cache"

// nopHandler is a Handler that does nothing.
type nopHandler struct{}

func (nopHandler) OnAdd(cache.Obj, bool)    {}
func (nopHandler) OnUpdate(_, _ cache.Obj)  {}
func (nopHandler) OnDelete(cache.Obj, bool) {}
