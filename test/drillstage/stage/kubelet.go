package stage

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// kubelet serves container logs at the kubelet's /containerLogs path, so
// the API server's pods/log proxy (kubectl logs, and the reader's log
// reads) returns the scenario's logs. The harness's API server has no
// kubelet CA configured, so it does not verify this server's certificate,
// as with a kubelet serving a self-signed one.
type kubelet struct {
	srv  *http.Server
	port int
	mu   sync.Mutex
	logs []containerLog
}

func startKubelet(logs []containerLog) (*kubelet, error) {
	cert, err := selfSigned()
	if err != nil {
		return nil, err
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		return nil, err
	}
	k := &kubelet{port: ln.Addr().(*net.TCPAddr).Port, logs: logs}
	k.srv = &http.Server{Handler: http.HandlerFunc(k.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = k.srv.Serve(ln) }()
	return k, nil
}

func (k *kubelet) Close() { _ = k.srv.Close() }

// setLogs replaces the logs served, once staging has named the pods of
// logs given by label selector.
func (k *kubelet) setLogs(logs []containerLog) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.logs = logs
}

func (k *kubelet) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/containerLogs/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 3 {
		http.NotFound(w, r)
		return
	}
	ns, pod, container := parts[0], parts[1], parts[2]
	previous := r.URL.Query().Get("previous") == "true"
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, l := range k.logs {
		if l.Namespace == ns && l.Pod == pod && l.Container == container && l.Previous == previous {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte(tail(l.Text, r.URL.Query().Get("tailLines"))))
			return
		}
	}
	// A container the scenario gives no log printed nothing.
	w.Header().Set("Content-Type", "text/plain")
}

func tail(text, lines string) string {
	var n int
	if _, err := fmt.Sscanf(lines, "%d", &n); err != nil || n <= 0 {
		return text
	}
	all := strings.SplitAfter(strings.TrimRight(text, "\n")+"\n", "\n")
	if len(all) > 0 && all[len(all)-1] == "" {
		all = all[:len(all)-1]
	}
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return strings.Join(all, "")
}

func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "drillstage-kubelet"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
