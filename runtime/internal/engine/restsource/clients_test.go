package restsource

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
)

// TestSourcesSchemePerPackage: kinds of one group-version from two Go
// packages, each with an AddToScheme that registers its own kinds only (two
// trees generated apart), both get sources, in either order; kinds of one
// package share one scheme, and all of them one REST client.
func TestSourcesSchemePerPackage(t *testing.T) {
	gv := lwt.GVR.GroupVersion()
	widgets := Type{Resource: lwt.GVR, AddToScheme: lwt.AddToScheme, ObjectType: reflect.TypeFor[*lwt.Widget]()}
	addCore := func(s *runtime.Scheme) error {
		s.AddKnownTypes(gv, &corev1.ConfigMap{}, &corev1.ConfigMapList{}, &corev1.Secret{}, &corev1.SecretList{})
		metav1.AddToGroupVersion(s, gv)
		return nil
	}
	configMaps := Type{Resource: gv.WithResource("configmaps"), AddToScheme: addCore, ObjectType: reflect.TypeFor[*corev1.ConfigMap]()}
	secrets := Type{Resource: gv.WithResource("secrets"), AddToScheme: addCore, ObjectType: reflect.TypeFor[*corev1.Secret]()}
	cfg := &rest.Config{Host: "http://127.0.0.1:1"} // never dialled: sources are only built
	for _, order := range [][]Type{{widgets, configMaps, secrets}, {configMaps, secrets, widgets}} {
		c := NewClients(cfg, nil)
		for _, typ := range order {
			if _, err := c.Sources(typ, Request{}); err != nil {
				t.Errorf("order %v: %v: %v", order[0].ObjectType, typ.ObjectType, err)
			}
		}
		wClient, wScheme, _ := c.For(gv, reflect.TypeFor[lwt.Widget]().PkgPath(), lwt.AddToScheme)
		cClient, cScheme, _ := c.For(gv, reflect.TypeFor[corev1.ConfigMap]().PkgPath(), addCore)
		if wScheme == cScheme {
			t.Errorf("order %v: the two packages share one scheme", order[0].ObjectType)
		}
		if n := len(c.schemes); n != 2 {
			t.Errorf("order %v: %d schemes, want 2 (one per package)", order[0].ObjectType, n)
		}
		if wClient == nil || wClient != cClient || len(c.clients) != 1 {
			t.Errorf("order %v: %d REST clients, want one for the group-version", order[0].ObjectType, len(c.clients))
		}
	}
}
