package fleet

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
)

// KubeconfigSecrets is a Provider of the clusters whose kubeconfigs are
// Secrets in a home cluster, by Cluster API's convention: a Secret named
// "<cluster>-kubeconfig" in the Cluster's namespace holds the kubeconfig
// under the key "value". The fleet's cluster is named "<namespace>/<cluster>".
// A Secret added is engaged, one whose kubeconfig changed (a rotation) is
// engaged again (see Fleet.Engage), one deleted is disengaged; a Secret
// without the key or with an invalid kubeconfig is logged (by name, never
// its data) and not engaged.
//
// It reads the Secrets with an informer of its own, on a factory of its
// own that Run starts and shuts down, so only the Secrets it selects are
// cached (see Factory). When ctx ends, Run returns nil and leaves its
// clusters engaged: the fleet's Run stops them.
type KubeconfigSecrets struct {
	// Config reaches the home cluster. It may be nil when Factory.Types
	// gives Secrets (resource secrets.v1) a TypeOptions.ListerWatcher, a
	// runtimetest.Source in tests.
	Config *rest.Config
	// Factory configures the Secret informer's factory: Namespaces (the
	// namespaces of the Clusters; empty: all), selectors. When its
	// FieldSelector is empty it is "type=cluster.x-k8s.io/secret", the type
	// Cluster API gives kubeconfig Secrets, so that other Secrets are not
	// cached; set another selector to read Secrets of other types.
	Factory factory.Options
	// Configure, when not nil, edits each cluster's Endpoint before it is
	// engaged.
	Configure func(name string, ep *Endpoint)
}

// secretType is the runtime's description of core/v1 Secrets, as
// informer-gen would generate it. A test gives KubeconfigSecrets a source
// with a factory.TypeOptions[*corev1.Secret] in Factory.Types whose Type
// has the same Resource (secrets, v1).
var secretType = factory.Type[*corev1.Secret]{
	Resource:    corev1.SchemeGroupVersion.WithResource("secrets"),
	Namespaced:  true,
	AddToScheme: corev1.AddToScheme,
}

// kubeconfigSuffix and kubeconfigKey are Cluster API's convention
// (sigs.k8s.io/cluster-api/util/secret: Kubeconfig purpose, KubeconfigDataName).
const (
	kubeconfigSuffix = "-kubeconfig"
	kubeconfigKey    = "value"
)

// Run implements Provider.
func (s KubeconfigSecrets) Run(ctx context.Context, e Engager) error {
	opts := s.Factory
	if opts.FieldSelector == "" {
		opts.FieldSelector = "type=cluster.x-k8s.io/secret"
	}
	home := factory.New(s.Config, opts)
	defer home.Shutdown()
	h := &secretHandler{ctx: ctx, s: s, e: e, known: map[string][sha256.Size]byte{}}
	if _, err := factory.InformerFor(home, secretType).AddHandler(h, informer.HandlerOptions{}); err != nil {
		return err
	}
	home.Start(ctx)
	<-ctx.Done()
	return nil
}

// secretHandler engages and disengages the clusters of the Secrets it
// sees. Its methods run on the Secret informer's handler goroutine.
type secretHandler struct {
	ctx   context.Context
	s     KubeconfigSecrets
	e     Engager
	mu    sync.Mutex
	known map[string][sha256.Size]byte // engaged kubeconfig per cluster
}

// clusterOf returns the cluster a Secret's name says, if it follows the
// convention.
func clusterOf(sec *corev1.Secret) (string, bool) {
	name, ok := strings.CutSuffix(sec.Name, kubeconfigSuffix)
	if !ok || name == "" {
		return "", false
	}
	return sec.Namespace + "/" + name, true
}

func (h *secretHandler) OnAdd(sec *corev1.Secret, _ bool) { h.apply(sec) }

func (h *secretHandler) OnUpdate(_, sec *corev1.Secret) { h.apply(sec) }

func (h *secretHandler) OnDelete(sec *corev1.Secret, _ bool) {
	name, ok := clusterOf(sec)
	if !ok {
		return
	}
	h.mu.Lock()
	_, known := h.known[name]
	delete(h.known, name)
	h.mu.Unlock()
	if known {
		h.e.Disengage(name)
	}
}

func (h *secretHandler) apply(sec *corev1.Secret) {
	name, ok := clusterOf(sec)
	if !ok {
		return
	}
	logger := klog.FromContext(h.ctx).WithValues("cluster", name, "secret", sec.Namespace+"/"+sec.Name)
	b, ok := sec.Data[kubeconfigKey]
	if !ok {
		logger.Info("Kubeconfig Secret has no key " + kubeconfigKey + ", not engaged")
		return
	}
	sum := sha256.Sum256(b)
	h.mu.Lock()
	old, known := h.known[name]
	h.mu.Unlock()
	if known && old == sum {
		return
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(b)
	if err != nil {
		logger.Error(err, "Invalid kubeconfig in Secret, not engaged")
		return
	}
	ep := Endpoint{Config: cfg}
	if h.s.Configure != nil {
		h.s.Configure(name, &ep)
	}
	if err := h.e.Engage(name, ep); err != nil {
		if !errors.Is(err, ErrStopped) {
			logger.Error(err, "Engaging cluster")
		}
		return
	}
	h.mu.Lock()
	h.known[name] = sum
	h.mu.Unlock()
}
