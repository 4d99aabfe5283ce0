package shard

import (
	"context"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// member is another replica's Lease as this replica saw it.
type member struct {
	rv     string
	seenAt time.Time     // when this replica saw rv first (its own clock)
	dur    time.Duration // the holder's spec.leaseDurationSeconds
	view   string        // its viewAnnotation
	acked  bool          // a write after our mark carries our published view
	// markRV is rv when we marked: a relist delivers unchanged Leases
	// again, and a write from before the mark must not count as an ack.
	markRV string
}

func (m *member) live(now time.Time) bool { return now.Before(m.seenAt.Add(m.dur)) }

// leaseHandler feeds the Lease informer's events, in order, to the shard.
type leaseHandler struct{ s *Shard }

func (h leaseHandler) OnAdd(l *coordinationv1.Lease, _ bool) { h.s.observe(l, false) }
func (h leaseHandler) OnUpdate(_, l *coordinationv1.Lease)   { h.s.observe(l, false) }
func (h leaseHandler) OnDelete(l *coordinationv1.Lease, _ bool) {
	h.s.observe(l, true)
}

// observe records a Lease event: the events of one watch stream arrive in
// resourceVersion order, which is what makes "after our mark" meaningful.
func (s *Shard) observe(l *coordinationv1.Lease, deleted bool) {
	if l.Labels[GroupLabel] != s.opts.Group {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.Name == s.leaseName {
		if !deleted {
			s.selfSeenRV = l.ResourceVersion
			if s.marked != s.published && slices.Contains(s.pubRVs, l.ResourceVersion) {
				s.markLocked()
			}
		}
		s.recomputeLocked()
		return
	}
	id := ""
	if l.Spec.HolderIdentity != nil {
		id = *l.Spec.HolderIdentity
	}
	if id == "" || id == s.opts.Identity || l.Name != s.opts.Group+"-"+id {
		// Released, ours under another name, or not a member's Lease.
		return
	}
	if deleted {
		delete(s.members, id)
		s.recomputeLocked()
		return
	}
	m := s.members[id]
	if m == nil {
		m = &member{}
		s.members[id] = m
	}
	if m.rv != l.ResourceVersion {
		// Expiry is judged by when this replica saw the Lease change, not
		// by the holder's renewTime: clocks of different machines need not
		// agree (client-go leaderelection's observedTime).
		m.rv, m.seenAt = l.ResourceVersion, time.Now()
	}
	m.dur = time.Second
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d > 1 {
		m.dur = time.Duration(*d) * time.Second
	}
	prev := m.view
	m.view = l.Annotations[viewAnnotation]
	if s.marked != "" && s.marked == s.published {
		m.acked = m.view == s.published && m.rv != m.markRV
	}
	if m.view != prev && m.view == s.target.id {
		// It moved to our view after we did, or before our write lands:
		// our next write is its ack; make it soon.
		s.ackWrite = true
		poke(s.wakeWriter)
	}
	s.recomputeLocked()
}

// markLocked records that the watch has passed our publication of
// published: acks count from here.
func (s *Shard) markLocked() {
	s.marked = s.published
	for _, m := range s.members {
		m.acked, m.markRV = false, m.rv
	}
}

// loop re-evaluates the membership when a Lease may have expired or the
// renew deadline may have passed.
func (s *Shard) loop(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.mu.Lock()
		next := s.recomputeLocked()
		s.mu.Unlock()
		t.Reset(time.Until(next))
		select {
		case <-ctx.Done():
			return
		case <-s.wakeLoop:
		case <-t.C:
		}
	}
}

// recomputeLocked brings target, shrinks and grown up to date with what has
// been observed, and returns when it must run again (the next expiry).
func (s *Shard) recomputeLocked() time.Time {
	now := time.Now()
	next := now.Add(time.Hour)
	selfDeadline := s.lastRenew.Add(s.opts.RenewDeadline)
	selfLive := !s.lastRenew.IsZero() && now.Before(selfDeadline) && !s.stopping
	if selfLive && selfDeadline.Before(next) {
		next = selfDeadline
	}
	if !selfLive && (s.grown != nil || s.marked != "") {
		if s.grown != nil && !s.stopping {
			s.logger.Info("renew deadline passed: owning nothing until the Lease is renewed and a handover completes",
				"renewDeadline", s.opts.RenewDeadline)
		}
		// Our Lease may have expired for the others: nothing we published
		// before counts any more.
		s.grown, s.shrinks = nil, nil
		s.marked, s.published, s.pubRVs = "", "", nil
		s.storeLocked()
		s.cancelInflight()
	}
	ids := []string{s.opts.Identity}
	for id, m := range s.members {
		if exp := m.seenAt.Add(m.dur); m.live(now) {
			ids = append(ids, id)
			if exp.Before(next) {
				next = exp
			}
		}
	}
	if v := newView(ids); v.id != s.target.id {
		s.logger.V(2).Info("membership changed", "members", len(v.members), "view", v.id)
		s.target = v
		if s.grown != nil {
			// Drop at once what the new view gives to others.
			s.shrinks = append(s.shrinks, v)
			s.storeLocked()
		}
		s.refreshSelectorLocked() // before the gain below: widen first
		poke(s.wakeWriter)
	}
	if selfLive && s.leasesSynced && s.published == s.target.id && s.marked == s.published && s.ackedLocked(now) &&
		(s.grown == nil || s.grown.id != s.target.id || len(s.shrinks) > 0) && s.relistedLocked(now, &next) {
		v := s.target
		s.grown, s.shrinks = &v, nil
		s.storeLocked()
		s.logger.V(2).Info("handover complete: acting on the new membership", "members", len(v.members), "view", v.id)
		select {
		case <-s.synced:
		default:
			close(s.synced)
		}
	}
	return next
}

// ackedLocked reports whether every other member of target has published
// target after our mark (members that expired have left target already).
func (s *Shard) ackedLocked(now time.Time) bool {
	for _, id := range s.target.members {
		if id == s.opts.Identity {
			continue
		}
		m := s.members[id]
		if m == nil || !m.live(now) || !m.acked || m.view != s.target.id {
			return false
		}
	}
	return true
}

// storeLocked publishes the assignment for Owns and tells the filters.
func (s *Shard) storeLocked() {
	s.refreshLocked()
	close(s.changed)
	s.changed = make(chan struct{})
	poke(s.wakeReplay)
	poke(s.wakeWriter) // a drain may now be complete, or a write due
}

// refreshLocked publishes the assignment for Owns, valid until the renew
// deadline of the last successful write.
func (s *Shard) refreshLocked() {
	s.asg.Store(&assignment{self: s.opts.Identity, byUID: s.opts.ByUID, grown: s.grown, shrinks: slices.Clone(s.shrinks),
		until: s.lastRenew.Add(s.opts.RenewDeadline)})
	s.refreshSelectorLocked()
}
