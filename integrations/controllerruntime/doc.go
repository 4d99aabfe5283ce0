// Package controllerruntime runs informer-gen's generated informers inside a
// controller-runtime manager (sigs.k8s.io/controller-runtime v0.25). It is a
// nested module, so the root module stays free of controller-runtime.
//
// Import it as crinformers. What it gives a kubebuilder project:
//
//   - Add / NewRunnable: the generated factory as a manager.Runnable that
//     runs on every replica (NeedLeaderElection false, so standby replicas
//     keep warm caches), is started with the manager's caches and waited
//     for before any controller starts, hands the manager's logger to the
//     informers (the runtime logs through klog.FromContext), and reports
//     readiness (ReadyzCheck: synced, else the unsynced informers and their
//     LastError) as the manager's readyz check "informers".
//   - Kind / TypedKind: a source.TypedSyncingSource from any generated
//     informer, with typed handler.TypedEventHandler and
//     predicate.TypedPredicate, for WatchesRawSource.
//   - SharedInformers: a cache.Options.NewInformer that makes
//     controller-runtime's own cache run on the factory's informers, for
//     each type registered with Share, so one LIST+WATCH per type serves the
//     manager's client.Reader (Get, List, IndexField) and the generated
//     Lister and index methods.
//   - OwnWrites: read your own writes (runtime/freshness) in a
//     controller-runtime controller — a source to watch and a reconciler
//     wrapper that defers a request until the cache has applied the
//     controller's last write for it, then queues it again.
//   - Fleets (runtime/fleet, one generated factory per cluster):
//     AddFleet / NewFleetRunnable run the fleet in the manager on every
//     replica, with a readyz check "fleet" and one per cluster
//     (ClusterReadyzCheck, Statuses); FleetKind is a source of one
//     informer's events in every engaged cluster, clusters engaged later
//     included, whose requests are FleetRequest{ClusterName, Request};
//     EnqueueFleetRequestForObject and Lift make its handlers;
//     FleetReconciler hands the reconciler the request's cluster and drops
//     requests of clusters no longer engaged.
//
// # Fleets compared with multicluster-runtime
//
// multicluster-runtime wraps the manager (mcmanager, over a local
// manager) and the controller: engaging a cluster starts a cluster.Cluster
// (an untyped cache and client of its own) and, in every controller, one
// more source per cluster (the controller's Watch of a source made for
// that cluster), which does not wait for the cluster's sync. Here the
// manager, builder and controller stay controller-runtime's own: the fleet
// is one Runnable, a controller is built with builder.TypedControllerManagedBy
// over FleetRequest, and one FleetKind source covers every cluster, present
// and future, through fleet.Watch (the fleet adds the handler to each
// cluster it engages); each cluster's cache is the typed, generated
// factory (reads are generated Listers and By<Index> methods, no type
// assertion). FleetKind's WaitForSync waits once, at the controller's
// start, for the clusters engaged then to sync or fail, and never fails
// the controller for a cluster's sake.
//
// # Leader election
//
// The manager's leader election (client-go's tools/leaderelection) decides
// who runs the controllers; the factory's Runnable does not take part in it:
//
//	mgr, _ := ctrl.NewManager(cfg, ctrl.Options{LeaderElection: true, LeaderElectionID: "foo-controller"})
//	f := informers.NewSharedInformerFactory(cfg, factory.Options{})
//	crinformers.Add(mgr, f, crinformers.Options{})       // every replica: warm caches, readiness
//	ctrl.NewControllerManagedBy(mgr).WatchesRawSource(...) // the leader only
//
// Every replica lists and watches and is ready once synced; only the leader
// reconciles, and a replica that becomes leader reconciles from a warm
// cache at once. Outside a manager, do the same with
// leaderelection.RunOrDie: start the factory before it, and run the
// workers in OnStartedLeading.
//
// # Logging
//
// The informers log through the logger in the ctx they are started with:
// Add uses the manager's logger named "informers"; the cache adapter runs
// them with the ctx controller-runtime's cache gives its informers (the
// manager's logger too). What their log lines, errors and the readyz text
// may say is the runtime's one rule (docs/guide.md, "What reaches a log or
// an error"): kinds, keys and resourceVersions, never object contents.
package controllerruntime
