package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// auditPolicy records who read what at Metadata level (never bodies), which
// is enough for tests to prove the cluster reader never asked for Secrets.
// The API server's own loopback traffic is left out to keep the log small.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["system:apiserver"]
- level: Metadata
`

type apiServer struct {
	url        string
	caFile     string
	adminToken string
	errs       <-chan error
}

// startAPIServer runs kube-apiserver in this process through its app
// package, configured by the same flags an operator would pass.
func startAPIServer(ctx context.Context, dir, etcdURL string) (*apiServer, error) {
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	tokenFile := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(token+",kubeharness-admin,kubeharness-admin,system:masters\n"), 0o600); err != nil {
		return nil, err
	}
	saKey, err := writeSigningKey(filepath.Join(dir, "sa.key"))
	if err != nil {
		return nil, err
	}
	policyFile := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policyFile, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := listener.Addr().(*net.TCPAddr).Port

	s := options.NewServerRunOptions()
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// No Endpoints reconciler: it would publish 127.0.0.1 as the
		// kubernetes Service endpoint, which validation refuses.
		"--endpoint-reconciler-type=none",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + filepath.Join(dir, "pki"),
		"--authorization-mode=RBAC",
		"--token-auth-file=" + tokenFile,
		"--service-account-issuer=https://kubeharness.invalid",
		"--service-account-key-file=" + saKey,
		"--service-account-signing-key-file=" + saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		// Without a controller-manager no token controller fills in
		// ServiceAccounts, so this admission plugin would refuse every pod.
		"--disable-admission-plugins=ServiceAccount",
		"--audit-policy-file=" + policyFile,
		"--audit-log-path=" + filepath.Join(dir, "audit.log"),
		"--audit-log-mode=blocking",
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	s.SecureServing.Listener = listener
	if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, err
	}
	// The loopback clients would otherwise log the API server's own
	// deprecation warnings back at it.
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	completed, err := s.Complete(ctx)
	if err != nil {
		return nil, err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	errs := make(chan error, 1)
	go func() { errs <- app.Run(ctx, completed) }()

	return &apiServer{
		url:        fmt.Sprintf("https://127.0.0.1:%d", port),
		caFile:     completed.SecureServing.ServerCert.CertKey.CertFile,
		adminToken: token,
		errs:       errs,
	}, nil
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// writeSigningKey makes a fresh key for ServiceAccount tokens, so that tests
// can request a token for the read-only ServiceAccount through TokenRequest.
func writeSigningKey(path string) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", err
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	return path, os.WriteFile(path, pemBytes, 0o600)
}
