package localapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/klog/v2"
)

// CRD is a CustomResourceDefinition as installed by InstallCRDs.
type CRD = apiextensionsv1.CustomResourceDefinition

// ParseCRDs decodes the CustomResourceDefinitions in YAML or JSON manifests
// (several documents per manifest allowed, separated by "---").
func ParseCRDs(manifests ...[]byte) ([]*CRD, error) {
	var out []*CRD
	for i, m := range manifests {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(m), 4096)
		for {
			crd := new(CRD)
			if err := dec.Decode(crd); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("decoding CRD manifest %d: %w", i, err)
			}
			if crd.Name == "" {
				continue // an empty document
			}
			if crd.Kind != "CustomResourceDefinition" {
				return nil, fmt.Errorf("manifest %d: %s %q is not a CustomResourceDefinition", i, crd.Kind, crd.Name)
			}
			out = append(out, crd)
		}
	}
	return out, nil
}

// InstallCRDs creates (or updates) crds and waits until each is Established
// and every served version appears in discovery. Safe for concurrent use.
// Cancelling ctx abandons the wait with ctx's cause.
func (s *Server) InstallCRDs(ctx context.Context, crds ...*CRD) error {
	logger := klog.FromContext(ctx)
	client, err := clientset.NewForConfig(s.Config())
	if err != nil {
		return fmt.Errorf("building an apiextensions client: %w", err)
	}
	for _, crd := range crds {
		crd = crd.DeepCopy()
		crd.ResourceVersion = ""
		_, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			old, gerr := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if gerr != nil {
				return fmt.Errorf("getting existing CRD %s: %w", crd.Name, gerr)
			}
			crd.ResourceVersion = old.ResourceVersion
			_, err = client.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("installing CRD %s: %w", crd.Name, err)
		}
	}
	for _, crd := range crds {
		if err := s.waitCRDServed(ctx, client, crd); err != nil {
			return err
		}
		logger.V(4).Info("CRD served", "crd", crd.Name)
	}
	return nil
}

// DeleteCRD deletes the CRD name and waits until it is gone (its custom
// resources deleted and the resource no longer served).
func (s *Server) DeleteCRD(ctx context.Context, name string) error {
	client, err := clientset.NewForConfig(s.Config())
	if err != nil {
		return fmt.Errorf("building an apiextensions client: %w", err)
	}
	crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting CRD %s: %w", name, err)
	}
	err = client.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting CRD %s: %w", name, err)
	}
	err = poll(ctx, pollTimeout, func() (bool, error) {
		got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err == nil {
			err = fmt.Errorf("still there (finalizers %v, deletionTimestamp %v)", got.Finalizers, got.DeletionTimestamp)
		}
		return false, err
	}, "CRD "+name+" to be deleted")
	if err != nil {
		return err
	}
	// The CRD object goes before the handler stops serving its resource:
	// wait until a LIST of every version answers 404.
	for _, v := range crd.Spec.Versions {
		path := "/apis/" + crd.Spec.Group + "/" + v.Name + "/" + crd.Spec.Names.Plural
		err := poll(ctx, pollTimeout, func() (bool, error) {
			err := client.Discovery().RESTClient().Get().AbsPath(path).Param("limit", "1").Do(ctx).Error()
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		}, path+" to answer 404")
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) waitCRDServed(ctx context.Context, client clientset.Interface, crd *CRD) error {
	disc := client.Discovery()
	return poll(ctx, pollTimeout, func() (bool, error) {
		got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		established := false
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				established = true
			}
		}
		if !established {
			return false, nil
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gv := crd.Spec.Group + "/" + v.Name
			list, err := disc.ServerResourcesForGroupVersion(gv)
			if err != nil {
				if apierrors.IsNotFound(err) {
					return false, nil
				}
				return false, err
			}
			found := false
			for _, r := range list.APIResources {
				if r.Name == crd.Spec.Names.Plural {
					found = true
				}
			}
			if !found {
				return false, nil
			}
		}
		return true, nil
	}, "CRD "+crd.Name+" to be served")
}

// poll calls cond every 20ms until it returns true or timeout/ctx ends; an
// error from cond does not stop it (most are transient while the server
// settles), but the last one is reported with the timeout.
// pollTimeout bounds the waits for the API server to act on a CRD: minutes,
// as a correct server on a busy machine (load of 10 on 2 cores) may take
// them; the error says what was last seen.
const pollTimeout = 5 * time.Minute

func poll(ctx context.Context, timeout time.Duration, cond func() (bool, error), what string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, errors.Join(context.Cause(ctx), last))
		case <-tick.C:
		}
	}
}
