// Package localapi starts the repository's local API server (etcd and
// apiextensions-apiserver in process: the module
// github.com/informer-gen/informer-gen/examples/crd/localapi, which needs
// nothing else of the repository) with this project's CRDs, for the tests
// that kubebuilder scaffolds with envtest: no envtest binaries are
// downloaded. The server has no core API, so
// controller-runtime gets a static RESTMapper (RESTMapper) instead of
// discovery.
package localapi

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	server "github.com/informer-gen/informer-gen/examples/crd/localapi"

	appsv1 "github.com/informer-gen/informer-gen/examples/kubebuilder/api/v1"
)

// Server is a running local API server.
type Server = server.Server

// Start starts a server with every CRD in config/crd/bases installed.
func Start(ctx context.Context) (*Server, error) {
	server.QuietKlog()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "config", "crd", "bases")
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no CRD manifests in %s (run make manifests): %v", dir, err)
	}
	var manifests [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		manifests = append(manifests, b)
	}
	crds, err := server.ParseCRDs(manifests...)
	if err != nil {
		return nil, err
	}
	return server.Start(ctx, server.Options{CRDs: crds})
}

// RESTMapper maps this project's kinds without discovery.
func RESTMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{appsv1.SchemeGroupVersion})
	m.Add(appsv1.SchemeGroupVersion.WithKind("Widget"), meta.RESTScopeNamespace)
	return m
}

// MapperProvider is RESTMapper as a manager.Options.MapperProvider.
func MapperProvider(*rest.Config, *http.Client) (meta.RESTMapper, error) { return RESTMapper(), nil }
