package shard

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// assignment is an immutable snapshot of what this replica owns: the keys
// grown assigns to it that every view in shrinks also assigns to it.
type assignment struct {
	self    string
	byUID   bool
	grown   *view
	shrinks []view
	// until is the renew deadline: past it the assignment owns nothing,
	// whenever the goroutine that would notice gets to run.
	until time.Time
}

// live reports whether a owns anything now.
func (a *assignment) live() bool {
	return a != nil && a.grown != nil && time.Now().Before(a.until)
}

// ownsObj reports whether a owns obj, whose key is key: by its uid's bucket
// (Options.ByUID) or by its key.
func (a *assignment) ownsObj(key string, uid types.UID) bool {
	if a != nil && a.byUID {
		return a.ownsBucket(bucketOf(uidHash(uid)))
	}
	return a.owns(key)
}

// ownsBucket reports whether grown and every view in shrinks give bucket b
// to self.
func (a *assignment) ownsBucket(b int) bool {
	if !a.live() {
		return false
	}
	if a.grown.members[a.grown.buckets[b]] != a.self {
		return false
	}
	for i := range a.shrinks {
		if v := &a.shrinks[i]; v.members[v.buckets[b]] != a.self {
			return false
		}
	}
	return true
}

func (a *assignment) owns(key string) bool {
	if !a.live() {
		return false
	}
	hk := fnv64a(key)
	if !a.grown.ownedBy(hk, a.self) {
		return false
	}
	for i := range a.shrinks {
		if !a.shrinks[i].ownedBy(hk, a.self) {
			return false
		}
	}
	return true
}
