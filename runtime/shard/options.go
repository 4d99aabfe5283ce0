package shard

import (
	"errors"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// Defaults, client-go leaderelection's usual values (as kube-controller-manager's
// --leader-elect-lease-duration, -renew-deadline and -retry-period).
const (
	defaultLeaseDuration = 15 * time.Second
	defaultRenewDeadline = 10 * time.Second
	defaultRetryPeriod   = 2 * time.Second
)

// Options configures New.
type Options struct {
	// Group names the set of replicas that share the keys: every replica of
	// one controller uses the same Group. It is the value of GroupLabel on
	// their Leases and the prefix of their names: a valid label value.
	// Required.
	Group string
	// Identity names this replica within Group, unique among the live
	// replicas (a pod name). Its Lease is named "<Group>-<Identity>". Two
	// processes running with one identity break every guarantee.
	// "<Group>-<Identity>" must be a valid object name (DNS subdomain).
	// Required.
	Identity string
	// Leases writes this replica's own Lease (NewLeases). Required.
	Leases LeaseClient
	// Source lists and watches the Leases of the group (NewLeases);
	// Leases without GroupLabel=Group are ignored, so a wider source works
	// too. Required.
	Source reflector.ListerWatcher[*coordinationv1.Lease]
	// LeaseDuration is how long other replicas wait, after they last saw
	// this replica's Lease change, before they consider it gone and take its
	// keys. 0 means 15s. Written into the Lease
	// (spec.leaseDurationSeconds, whole seconds, at least 1).
	LeaseDuration time.Duration
	// RenewDeadline is how long this replica keeps its keys without a
	// successful renewal (measured from when the last successful write was
	// sent). Past it, it owns nothing until it has renewed and gone through
	// a handover again. Must be less than LeaseDuration: the difference is
	// the margin for clock-rate differences and for reconciles to notice
	// their cancelled ctx. 0 means 10s.
	RenewDeadline time.Duration
	// RetryPeriod is the interval between renewals (and between retries of
	// a failed one). 0 means 2s.
	RetryPeriod time.Duration
	// ByUID assigns objects by their uid rather than their key: by the
	// bucket (one of 256 equal ranges) of the API server's shard hash of metadata.uid, so
	// that each replica's informers can list and watch only its own
	// objects (Tweak, RelistTrigger: server-side sharded watches,
	// KEP-5866). Without a selector on the informers it still works: they
	// cache everything and the Filter forwards only owned objects, as by
	// key.
	//
	// A key (Owns, Begin, Reconciler) is resolved to a uid through the
	// objects this shard's Filters delivered: a key no Filter has seen is
	// not owned, and a key two Filters know (two resources with an object
	// of the same namespace/name) is owned only when all their uids are.
	// Use the Filter on the informer whose keys the workqueue carries.
	ByUID bool
}

func (o *Options) validate() error {
	if o.LeaseDuration == 0 {
		o.LeaseDuration = defaultLeaseDuration
	}
	if o.RenewDeadline == 0 {
		o.RenewDeadline = defaultRenewDeadline
	}
	if o.RetryPeriod == 0 {
		o.RetryPeriod = defaultRetryPeriod
	}
	var errs []error
	if o.Group == "" {
		errs = append(errs, errors.New("Group is empty"))
	}
	if o.Identity == "" {
		errs = append(errs, errors.New("Identity is empty"))
	}
	if o.Group != "" && o.Identity != "" {
		for _, msg := range validation.IsDNS1123Subdomain(o.Group + "-" + o.Identity) {
			errs = append(errs, fmt.Errorf("Lease name %q: %s", o.Group+"-"+o.Identity, msg))
		}
	}
	if o.Group != "" {
		for _, msg := range validation.IsValidLabelValue(o.Group) {
			errs = append(errs, fmt.Errorf("Group %q as a label value: %s", o.Group, msg))
		}
	}
	if o.Leases == nil {
		errs = append(errs, errors.New("Leases is nil"))
	}
	if o.Source == nil {
		errs = append(errs, errors.New("Source is nil"))
	}
	if o.LeaseDuration < time.Second {
		errs = append(errs, fmt.Errorf("LeaseDuration %v is below 1s (Leases count whole seconds)", o.LeaseDuration))
	}
	if o.RenewDeadline >= o.LeaseDuration {
		errs = append(errs, fmt.Errorf("RenewDeadline %v must be less than LeaseDuration %v", o.RenewDeadline, o.LeaseDuration))
	}
	if o.RetryPeriod <= 0 || o.RetryPeriod >= o.RenewDeadline {
		errs = append(errs, fmt.Errorf("RetryPeriod %v must be positive and less than RenewDeadline %v", o.RetryPeriod, o.RenewDeadline))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("shard: invalid options: %w", err)
	}
	return nil
}
