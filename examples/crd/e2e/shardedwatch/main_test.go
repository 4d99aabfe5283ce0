// Package shardedwatch runs server-side sharded watches (runtime/shard with
// Options.ByUID, KEP-5866 ShardedListAndWatch) against a local API server
// started with the ShardedListAndWatch feature gate on. Feature gates are
// process-wide, hence a test binary of its own.
package shardedwatch

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
)

var (
	server *localapi.Server
	client *rest.RESTClient
)

func TestMain(m *testing.M) {
	localapi.QuietKlog()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), e2eutil.Patience)
	defer cancel()
	var err error
	server, err = e2eutil.StartServer(ctx, localapi.Options{FeatureGates: map[string]bool{"ShardedListAndWatch": true}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the local API server:", err)
		return 1
	}
	defer func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), time.Minute)
		defer stopCancel()
		_ = server.Stop(stopCtx)
	}()
	if err := server.InstallCRDs(ctx, leaseCRD()); err != nil {
		fmt.Fprintln(os.Stderr, "installing the Lease CRD:", err)
		return 1
	}
	if client, err = controller.NewClient(server.Config()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// leaseCRD serves coordination.k8s.io/v1 Leases (the local API server has
// no coordination API): as in examples/crd/e2e, a schemaless CRD.
func leaseCRD() *localapi.CRD {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "leases.coordination.k8s.io",
			Annotations: map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: "unapproved, test-only"},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "coordination.k8s.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "leases", Singular: "lease", Kind: "Lease", ListKind: "LeaseList",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:                   "object",
					XPreserveUnknownFields: &preserve,
				}},
			}},
		},
	}
}
