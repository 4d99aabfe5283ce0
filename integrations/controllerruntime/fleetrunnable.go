package controllerruntime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/informer-gen/informer-gen/runtime/fleet"
)

// FleetOptions configures NewFleetRunnable.
type FleetOptions struct {
	// Logger is handed to the fleet's clusters and providers through their
	// ctx. AddFleet sets it to the manager's logger named "fleet" when it is
	// the zero value; otherwise the zero value keeps Start's ctx's logger.
	Logger logr.Logger
	// ReadyzName is the readyz check AddFleet registers; default "fleet".
	ReadyzName string
	// RequireAllClusters makes ReadyzCheck fail while any engaged cluster
	// is failing (its LastError is set: its last list or watch failed, so
	// it is unreachable or forbidden now, synced before or not). By default
	// a failing cluster does not make the replica unready: the cluster is at
	// fault, not the replica, and restarting the replica or routing around
	// it helps no cluster.
	RequireAllClusters bool
}

// FleetRunnable runs a fleet (fleet.Fleet.Run: its clusters and its
// providers) under a controller-runtime manager:
//
//   - NeedLeaderElection is false: every replica engages its clusters and
//     keeps their caches warm, so a new leader reconciles at once. (To
//     split clusters across replicas instead, give the fleet a provider
//     that engages a share of them.)
//   - It is not in the manager's caches group: the manager does not wait
//     for the fleet's sync before starting controllers, since clusters
//     come and go; each controller's FleetKind source waits for the
//     clusters engaged when it starts, and no further.
//   - Start runs the fleet until ctx ends and returns what Run returns (a
//     provider's error ends it, and so the manager).
//
// ReadyzCheck and ClusterReadyzCheck report readiness; Statuses reports
// every cluster. Its methods are safe for concurrent use.
type FleetRunnable[F fleet.Factory] struct {
	fl      *fleet.Fleet[F]
	opts    FleetOptions
	started atomic.Bool
	running chan struct{} // closed once Start has started the fleet
	stopped atomic.Bool
}

var (
	_ manager.Runnable               = (*FleetRunnable[fleet.Factory])(nil)
	_ manager.LeaderElectionRunnable = (*FleetRunnable[fleet.Factory])(nil)
)

// NewFleetRunnable returns a FleetRunnable for fl. It starts nothing.
func NewFleetRunnable[F fleet.Factory](fl *fleet.Fleet[F], opts FleetOptions) *FleetRunnable[F] {
	if opts.ReadyzName == "" {
		opts.ReadyzName = "fleet"
	}
	return &FleetRunnable[F]{fl: fl, opts: opts, running: make(chan struct{})}
}

// AddFleet adds a FleetRunnable for fl to mgr, with the manager's logger
// (named "fleet") unless opts.Logger is set, and registers its ReadyzCheck
// as mgr's readyz check opts.ReadyzName. Call it before mgr.Start.
func AddFleet[F fleet.Factory](mgr manager.Manager, fl *fleet.Fleet[F], opts FleetOptions) (*FleetRunnable[F], error) {
	if opts.Logger.GetSink() == nil {
		opts.Logger = mgr.GetLogger().WithName("fleet")
	}
	r := NewFleetRunnable(fl, opts)
	if err := mgr.Add(r); err != nil {
		return nil, fmt.Errorf("adding the fleet to the manager: %w", err)
	}
	if err := mgr.AddReadyzCheck(r.opts.ReadyzName, r.ReadyzCheck); err != nil {
		return nil, fmt.Errorf("adding readyz check %q: %w", r.opts.ReadyzName, err)
	}
	return r, nil
}

// NeedLeaderElection returns false: the fleet runs on every replica.
func (r *FleetRunnable[F]) NeedLeaderElection() bool { return false }

// Start runs the fleet with ctx (and Options.Logger in it) until ctx ends
// or a provider fails, and returns once every cluster's goroutines have
// exited: nil, or the provider's error. A second call returns an error.
func (r *FleetRunnable[F]) Start(ctx context.Context) error {
	if !r.started.CompareAndSwap(false, true) {
		return errors.New("fleet runnable: Start called twice")
	}
	if r.opts.Logger.GetSink() != nil {
		ctx = klog.NewContext(ctx, r.opts.Logger)
	}
	close(r.running)
	defer r.stopped.Store(true)
	return r.fl.Run(ctx)
}

// ClusterStatus is one engaged cluster's state, for readiness and status
// pages.
type ClusterStatus struct {
	Name   string
	Synced bool
	// Err is the cluster's LastError, nil when none: its last list or
	// watch failed, so it is failing now (it keeps retrying). A synced
	// cluster that is failing serves its last state.
	Err error
}

// Statuses returns the state of every engaged cluster that serves reads,
// in name order (a re-engaged cluster's replacement still syncing is not
// listed: the cluster it replaces serves meanwhile).
func (r *FleetRunnable[F]) Statuses() []ClusterStatus {
	cs := r.fl.Clusters()
	out := make([]ClusterStatus, len(cs))
	for i, c := range cs {
		out[i] = ClusterStatus{Name: c.Name(), Synced: c.HasSynced(), Err: c.LastError()}
	}
	return out
}

// ReadyzCheck is a healthz.Checker for the whole fleet. It returns an error
// before Start and after the fleet stopped; while some engaged cluster is
// still syncing with no error (a cluster just engaged, until its first
// LIST ends: so engaging a cluster makes the replica unready for that
// long), naming those clusters; and, with Options.RequireAllClusters, while
// some cluster is failing, naming them and wrapping their LastError.
// Otherwise nil: by default a failing cluster (unreachable, forbidden) does
// not make the replica unready. It never blocks.
func (r *FleetRunnable[F]) ReadyzCheck(_ *http.Request) error {
	if err := r.runningErr(); err != nil {
		return err
	}
	var syncing []string
	var failed []error
	for _, s := range r.Statuses() {
		switch {
		case s.Err != nil:
			failed = append(failed, s.Err)
		case !s.Synced:
			syncing = append(syncing, s.Name)
		}
	}
	var errs []error
	if len(syncing) > 0 {
		errs = append(errs, fmt.Errorf("clusters still syncing: %s", joinNames(syncing)))
	}
	if r.opts.RequireAllClusters && len(failed) > 0 {
		errs = append(errs, fmt.Errorf("%d clusters failing: %w", len(failed), errors.Join(failed...)))
	}
	return errors.Join(errs...)
}

// ClusterReadyzCheck returns a healthz.Checker for the cluster name alone:
// nil while it is engaged, synced and not failing; an error when the fleet
// does not run, the cluster is not engaged, it is failing (wrapping its
// LastError: a 403, an unreachable server, whether it synced before or
// not) or it is still syncing. Register it for clusters known at start-up
// (mgr.AddReadyzCheck takes no checks once the manager runs); Statuses
// covers the others.
func (r *FleetRunnable[F]) ClusterReadyzCheck(name string) healthz.Checker {
	return func(*http.Request) error {
		if err := r.runningErr(); err != nil {
			return err
		}
		c, ok := r.fl.Cluster(name)
		if !ok {
			return fmt.Errorf("cluster %q is not engaged", name)
		}
		if err := c.LastError(); err != nil {
			return fmt.Errorf("cluster %q failing: %w", name, err)
		}
		if !c.HasSynced() {
			return fmt.Errorf("cluster %q still syncing", name)
		}
		return nil
	}
}

func (r *FleetRunnable[F]) runningErr() error {
	select {
	case <-r.running:
	default:
		return errors.New("fleet not started")
	}
	if r.stopped.Load() {
		return errors.New("fleet stopped")
	}
	return nil
}
