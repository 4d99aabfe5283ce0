//go:build golden_broken

// Package client installs the CRDs of net.example.com, as Cilium's
// cilium.io/client does: it declares no kind, and the output never
// imports it.
package client

import "github.com/informer-gen/informer-gen/testdata/golden/kindless-dependency-client-go/input/k8sclient"

// CreateCustomResourceDefinitions installs the CRDs through the project's
// own client.
func CreateCustomResourceDefinitions() error {
	return k8sclient.New().Install()
}
