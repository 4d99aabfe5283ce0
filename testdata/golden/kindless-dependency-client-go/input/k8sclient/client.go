//go:build golden_broken

// Package k8sclient stands for a project's own Kubernetes client written
// against an older client-go than the module selects.
package k8sclient

import "k8s.io/client-go/tools/cache"

// Client is the project's client.
type Client struct{}

// New returns a Client.
func New() *Client { return &Client{} }

type registration struct{}

func (registration) HasSynced() bool { return true }

// Install returns nil once the CRDs are in place.
func (c *Client) Install() error {
	var r cache.ResourceEventHandlerRegistration = registration{}
	_ = r
	return nil
}
