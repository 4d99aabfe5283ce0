//go:build golden_broken

package v1

import "github.com/informer-gen/informer-gen/testdata/golden/bad-dependency-client-go/input/webhook"

// SetupWebhook registers the package's webhooks, as kubebuilder API
// packages do, through a package that does not compile.
func SetupWebhook() {
	webhook.Register()
}
