// Package shard splits a controller's keys across replicas: each replica
// holds a coordination.k8s.io/v1 Lease of its own, watches the others', and
// reconciles only the keys that rendezvous hashing over the live replicas
// assigns to it. It is the stage above informer: a Filter handler forwards
// only owned keys (replaying keys it gains from what the informer delivered),
// and Reconciler/Begin make workers skip keys that moved away.
//
// Design choices (docs/sharding.md has the protocol, its proof sketch, the
// failure modes and the measured cost):
//
//   - Membership by Leases, one per replica ("<group>-<identity>", labelled
//     GroupLabel), renewed every RetryPeriod. A Lease is live for
//     LeaseDuration after this replica last saw it change, by this
//     replica's clock (client-go leaderelection's observedTime): no two
//     clocks are ever compared.
//   - Assignment by rendezvous hashing (highest random weight): no ring, no
//     coordinator, the same answer on every replica for the same members,
//     and only the keys of the member that joined or left move.
//   - Handover without overlap. A replica announces, in its Lease
//     (viewAnnotation), the membership it acts on. Keys it loses under a new
//     membership it drops at once, waits for their reconciles in progress
//     (Begin) to end, and only then announces the new membership. Keys it
//     gains it takes only once every live member has announced that
//     membership in a Lease write made after its own announcement (so a
//     stale write cannot count).
//   - A replica that cannot renew within RenewDeadline owns nothing and
//     cancels its reconciles: the others may take its keys LeaseDuration
//     after they last saw its Lease change. It keeps trying and rejoins
//     through a handover when it can renew again.
//   - Run's end releases: Owns turns false, reconciles are cancelled and
//     awaited, and the Lease is deleted, so the others take over at once.
//   - What is held for long per key (a cluster engaged by runtime/fleet's
//     Sharded) is held as one reconcile (Begin) for as long as it is held,
//     and let go when Changed says ownership moved: the handover then waits
//     for it as for any reconcile.
//   - Optionally (Options.ByUID), objects are assigned by buckets of the API
//     server's shard hash of their uid, so that each replica's informers
//     list and watch only its share (Tweak, RelistTrigger; Kubernetes 1.36+
//     with the ShardedListAndWatch gate, checked by ServerSelects).
package shard
