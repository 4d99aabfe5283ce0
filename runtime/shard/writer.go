package shard

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// writer creates and renews the Lease, and publishes a new view once no
// reconcile of a key the view gives away is still running.
func (s *Shard) writer(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	renewDue := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			renewDue = true
		case <-s.wakeWriter:
		}
		s.mu.Lock()
		want, pub, ack := s.target.id, s.published, s.ackWrite
		s.mu.Unlock()
		publish := want != pub && s.idleExceptOwned()
		if !renewDue && !publish && !ack {
			continue
		}
		if !publish {
			want = pub
		}
		if err := s.write(ctx, want); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.lastErr.Store(&err)
			s.logger.Error(err, "renewing the Lease failed", "lease", s.leaseName)
		} else {
			s.lastErr.Store(nil)
			renewDue = false
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(s.opts.RetryPeriod)
		poke(s.wakeLoop)
	}
}

// write writes the Lease carrying view id want. A write that fails may still
// have reached the server, so published is set before it is sent.
func (s *Shard) write(ctx context.Context, want string) error {
	start := time.Now()
	s.mu.Lock()
	if want != s.published {
		s.published, s.pubRVs, s.marked = want, nil, ""
	}
	base := s.lease
	deadline := s.lastRenew.Add(s.opts.RenewDeadline)
	s.ackWrite = false
	s.mu.Unlock()
	if base == nil || !deadline.After(start) {
		deadline = start.Add(s.opts.RenewDeadline)
	}
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	got, err := s.put(wctx, base, want, start)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lease, s.lastRenew = got, start
	s.refreshLocked() // Owns is valid until the new deadline
	if s.published == want {
		s.pubRVs = append(s.pubRVs, got.ResourceVersion)
		if s.marked != s.published && s.selfSeenRV == got.ResourceVersion {
			s.markLocked()
		}
	}
	s.recomputeLocked()
	return nil
}

// put creates or updates the Lease from base (nil: unknown).
func (s *Shard) put(ctx context.Context, base *coordinationv1.Lease, view string, now time.Time) (*coordinationv1.Lease, error) {
	c := s.opts.Leases
	for attempt := 0; ; attempt++ {
		if base == nil {
			cur, err := c.Get(ctx, s.leaseName)
			switch {
			case isNotFound(err):
				created, err := c.Create(ctx, s.desired(nil, view, now))
				if isAlreadyExists(err) && attempt == 0 {
					continue
				}
				return created, err
			case err != nil:
				return nil, err
			}
			base = cur
		}
		updated, err := c.Update(ctx, s.desired(base, view, now))
		if (isConflict(err) || isNotFound(err)) && attempt == 0 {
			base = nil // read it again (or create it) once
			continue
		}
		return updated, err
	}
}

// desired is the Lease this replica writes, from base (nil: a new one).
func (s *Shard) desired(base *coordinationv1.Lease, view string, now time.Time) *coordinationv1.Lease {
	l := new(coordinationv1.Lease)
	if base != nil {
		l = base.DeepCopy()
	}
	l.Name = s.leaseName
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[GroupLabel] = s.opts.Group
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[viewAnnotation] = view
	id := s.opts.Identity
	dur := int32(s.opts.LeaseDuration / time.Second)
	mt := metaMicroTime(now)
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != id || base == nil {
		l.Spec.AcquireTime = &mt
	}
	l.Spec.HolderIdentity = &id
	l.Spec.LeaseDurationSeconds = &dur
	l.Spec.RenewTime = &mt
	return l
}
