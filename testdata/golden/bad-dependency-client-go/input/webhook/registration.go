//go:build golden_broken

// Package webhook stands for a dependency written against an older
// client-go than the module selects.
package webhook

import "k8s.io/client-go/tools/cache"

type registration struct{}

func (registration) HasSynced() bool { return true }

// Register returns the registration of a handler: its body returns a type
// that lacks a method the selected client-go's interface has.
func Register() cache.ResourceEventHandlerRegistration {
	return registration{}
}
