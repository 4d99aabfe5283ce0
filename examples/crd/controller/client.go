package controller

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
)

// NewClient returns a REST client for samplecontroller.example.com/v1 built
// from the API package's scheme alone (no generated clientset). The
// controller writes status with it; the demo and the tests create, patch and
// list with it. Safe for concurrent use.
func NewClient(cfg *rest.Config) (*rest.RESTClient, error) {
	scheme := runtime.NewScheme()
	if err := samplev1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the samplecontroller scheme: %w", err)
	}
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &samplev1.SchemeGroupVersion
	c.APIPath = "/apis"
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	if c.UserAgent == "" {
		c.UserAgent = "informer-gen-example"
	}
	client, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("building the samplecontroller REST client: %w", err)
	}
	return client, nil
}
