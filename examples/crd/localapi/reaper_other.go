//go:build !unix

package localapi

// reaper is a no-op where there is no /bin/sh: Stop alone removes the
// directories.
type reaper struct{}

func startReaper(...string) (*reaper, error) { return &reaper{}, nil }

func (*reaper) stop() error { return nil }
