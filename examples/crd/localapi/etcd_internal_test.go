package localapi

import (
	"context"
	"crypto/tls"
	"os"
	"strings"
	"testing"
	"time"
)

// etcd is reachable only through unix sockets in a directory of mode 0700:
// nothing of it listens on TCP, where anyone on the machine could connect.
func TestEtcdListensOnPrivateUnixSocketsOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if _, err := os.Stat(s.sockDir); !os.IsNotExist(err) {
			t.Errorf("socket directory %s left after Stop (%v)", s.sockDir, err)
		}
	}()
	if !strings.HasPrefix(s.etcdURL, "unix://") {
		t.Errorf("etcd client URL %s, want a unix socket", s.etcdURL)
	}
	for _, l := range s.etcd.Clients {
		if n := l.Addr().Network(); n != "unix" {
			t.Errorf("etcd client listener on %s %s, want unix", n, l.Addr())
		}
	}
	// The peer port is TLS and wants a client certificate nobody can have.
	for _, u := range s.etcd.Config().ListenPeerUrls {
		conn, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true})
		if err == nil {
			// TLS 1.3 reports a missing client certificate on the first read.
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, err = conn.Read(make([]byte, 1))
			conn.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("etcd peer %s without a client certificate: err = %v, want a certificate error", u.Host, err)
		}
	}
	fi, err := os.Stat(s.sockDir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("socket directory mode %v, want 0700", perm)
	}
}
