package kubeapiserver

import (
	"fmt"
	"maps"
	"sync"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	logsapi "k8s.io/component-base/logs/api/v1"
)

func init() {
	// Several servers in one process would each re-apply the logging
	// configuration; unchanged re-application is allowed.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
}

var (
	gateMu       sync.Mutex
	gatesApplied map[string]bool // nil until the first Start
)

// applyFeatureGates sets the process-wide gates once; later servers must ask
// for the same ones. kube-apiserver reads utilfeature.DefaultFeatureGate in
// many places, so a gate cannot differ between servers of one process.
func applyFeatureGates(gates map[string]bool) error {
	gateMu.Lock()
	defer gateMu.Unlock()
	if gatesApplied != nil {
		if !maps.Equal(gatesApplied, gates) && (len(gatesApplied) != 0 || len(gates) != 0) {
			return fmt.Errorf("feature gates are process-wide: this process already runs a server with %v, cannot start one with %v", gatesApplied, gates)
		}
		return nil
	}
	if len(gates) > 0 {
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(gates); err != nil {
			return fmt.Errorf("setting feature gates %v: %w", gates, err)
		}
	}
	gatesApplied = maps.Clone(gates)
	if gatesApplied == nil {
		gatesApplied = map[string]bool{}
	}
	return nil
}
