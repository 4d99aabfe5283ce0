package kubeapiserver

import (
	"context"
	"encoding/pem"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	certutil "k8s.io/client-go/util/cert"
)

// startEtcd starts a single-member etcd whose data and client socket are in
// s.dir (mode 0700): only this user can reach it.
func (s *Server) startEtcd(ctx context.Context) error {
	cfg := embed.NewConfig()
	cfg.Name = "kubeapiserver"
	cfg.Dir = filepath.Join(s.dir, "etcd")
	// Ready in tens of milliseconds instead of ~600 ms; no fsync for
	// throwaway data.
	cfg.TickMs = 10
	cfg.ElectionMs = 100
	cfg.UnsafeNoFsync = true
	cfg.SnapshotCount = 100000
	cfg.QuotaBackendBytes = 4 << 30
	// etcd logs spurious errors on a fast single-member start and at
	// shutdown: only fatal ones are shown.
	s.etcdLevel = zap.NewAtomicLevelAt(zapcore.FatalLevel)
	lg := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.Lock(os.Stderr), s.etcdLevel))
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(lg)
	cfg.Logger = "zap"
	// Clients on a unix socket in the private directory. The peer URL (a
	// single-member cluster still has one) cannot be a socket path; it is
	// TLS on loopback demanding a client certificate from a CA whose key is
	// thrown away, so no one can connect to it.
	peerTLS, err := writePeerTLS(s.dir)
	if err != nil {
		return err
	}
	cfg.PeerTLSInfo = peerTLS
	peerPort, err := freePort()
	if err != nil {
		return err
	}
	lc := url.URL{Scheme: "unix", Path: filepath.Join(s.dir, "etcd.sock")}
	lp := url.URL{Scheme: "https", Host: "127.0.0.1:" + strconv.Itoa(peerPort)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{lc}, []url.URL{lc}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{lp}, []url.URL{lp}
	cfg.InitialCluster = cfg.Name + "=" + lp.String()

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	s.etcd = e
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		return fmt.Errorf("etcd failed while starting: %w", err)
	case <-ctx.Done():
		return fmt.Errorf("waiting for etcd: %w", context.Cause(ctx))
	}
	s.etcdURL = "unix://" + e.Clients[0].Addr().String()
	return nil
}

// writePeerTLS writes a serving certificate for 127.0.0.1 and the CA that
// signed it into dir, and returns etcd peer TLS settings that require client
// certificates from that CA. The CA's key is not kept: no peer can ever
// present one.
func writePeerTLS(dir string) (transport.TLSInfo, error) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		return transport.TLSInfo{}, fmt.Errorf("generating etcd's peer certificate: %w", err)
	}
	// certPEM is the certificate followed by its CA.
	_, ca := pem.Decode(certPEM)
	info := transport.TLSInfo{
		CertFile:       filepath.Join(dir, "etcd-peer.crt"),
		KeyFile:        filepath.Join(dir, "etcd-peer.key"),
		TrustedCAFile:  filepath.Join(dir, "etcd-peer-ca.crt"),
		ClientCertAuth: true,
	}
	for path, data := range map[string][]byte{info.CertFile: certPEM, info.KeyFile: keyPEM, info.TrustedCAFile: ca} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return transport.TLSInfo{}, fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return info, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
