package fleet

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// KubeconfigDir is a Provider of the clusters whose kubeconfig files are in
// a directory: one cluster per file, named by the file's name without its
// extension ("prod-eu.kubeconfig" is cluster "prod-eu"; a mounted Secret's
// key "prod-eu" too). It reads the directory when Run starts and every
// Interval after: a file added is engaged, a file removed is disengaged, a
// file whose content changed (a rotated credential) is engaged again, which
// replaces the cluster without losing its keys (see Fleet.Engage).
//
// Files are read through symlinks (a Secret or ConfigMap volume's files
// are); names starting with "." and directories are skipped. A file that
// is not a valid kubeconfig is logged once per content and not engaged; if
// its cluster was engaged, it stays engaged with its last valid
// kubeconfig. Two files with one name (a.yaml, a.kubeconfig): the first in
// lexical order is used, the other is logged. Run fails if the directory
// cannot be read at its first scan (a mistake in the program's set-up);
// later read errors are logged and the clusters stay as they were. When ctx
// ends, Run returns nil and leaves its clusters engaged: the fleet's Run
// stops them.
type KubeconfigDir struct {
	// Dir is the directory. Required.
	Dir string
	// Interval between reads of Dir; 0 means 10s.
	Interval time.Duration
	// Configure, when not nil, edits each cluster's Endpoint before it is
	// engaged (a QPS, a user agent, per-cluster factory options).
	Configure func(name string, ep *Endpoint)
}

// Run implements Provider.
func (d KubeconfigDir) Run(ctx context.Context, e Engager) error {
	if d.Dir == "" {
		return errors.New("kubeconfig dir: no Dir")
	}
	interval := d.Interval
	if interval <= 0 {
		interval = 10 * time.Second
	}
	s := dirScan{d: d, e: e, known: map[string][sha256.Size]byte{}, bad: map[string][sha256.Size]byte{}}
	if err := s.scan(ctx); err != nil {
		return err
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := s.scan(ctx); err != nil {
			klog.FromContext(ctx).Error(err, "Reading kubeconfig directory", "dir", d.Dir)
		}
	}
}

// dirScan is KubeconfigDir's state between reads: the content engaged per
// cluster, and the invalid content already logged.
type dirScan struct {
	d     KubeconfigDir
	e     Engager
	known map[string][sha256.Size]byte
	bad   map[string][sha256.Size]byte
}

// scan reads the directory once and engages, re-engages and disengages
// clusters to match it.
func (s *dirScan) scan(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	entries, err := os.ReadDir(s.d.Dir)
	if err != nil {
		return fmt.Errorf("kubeconfig dir: %w", err)
	}
	seen := map[string]bool{}
	for _, ent := range entries { // sorted by file name
		file := ent.Name()
		if strings.HasPrefix(file, ".") {
			continue
		}
		path := filepath.Join(s.d.Dir, file)
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			continue
		}
		name := strings.TrimSuffix(file, filepath.Ext(file))
		if name == "" {
			continue
		}
		if seen[name] {
			logger.Info("Two kubeconfig files for one cluster; using the first", "cluster", name, "file", path)
			continue
		}
		seen[name] = true
		b, err := os.ReadFile(path)
		if err != nil {
			logger.Error(err, "Reading kubeconfig", "cluster", name, "file", path)
			continue
		}
		sum := sha256.Sum256(b)
		if old, ok := s.known[name]; ok && old == sum {
			continue
		}
		if bad, ok := s.bad[name]; ok && bad == sum {
			continue
		}
		cfg, err := clientcmd.RESTConfigFromKubeConfig(b)
		if err != nil {
			s.bad[name] = sum
			// The error names what is wrong, never the credentials.
			logger.Error(err, "Invalid kubeconfig, not engaged", "cluster", name, "file", path)
			continue
		}
		delete(s.bad, name)
		ep := Endpoint{Config: cfg}
		if s.d.Configure != nil {
			s.d.Configure(name, &ep)
		}
		if err := s.e.Engage(name, ep); err != nil {
			if errors.Is(err, ErrStopped) {
				return nil
			}
			logger.Error(err, "Engaging cluster", "cluster", name, "file", path)
			continue
		}
		s.known[name] = sum
	}
	for name := range s.known {
		if !seen[name] {
			s.e.Disengage(name)
			delete(s.known, name)
		}
	}
	for name := range s.bad {
		if !seen[name] {
			delete(s.bad, name)
		}
	}
	return nil
}
