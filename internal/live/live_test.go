package live

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"casebook/internal/access"
	"casebook/internal/snapshot"
)

// reader stands in for the cluster reader with its real errors: a reader
// configured with the allow-list ml refuses other namespaces, one pod
// exists, "denied" is refused by RBAC and "slow" times out.
type reader struct{ reads int }

func (r *reader) Collect(ctx context.Context, ns, target string) (*snapshot.Snapshot, error) {
	r.reads++
	switch {
	case target == "trainer-0", strings.Contains(target, "/"):
		return &snapshot.Snapshot{Version: snapshot.Version, Target: snapshot.Target{Namespace: ns, Kind: "Pod", Name: target}}, nil
	case target == "denied":
		return nil, fmt.Errorf("%w: could not get pod %s/%s; grant get pods in namespace %s", snapshot.ErrForbidden, ns, target, ns)
	case target == "slow":
		<-ctx.Done()
		return nil, fmt.Errorf("%w: could not get pod %s/%s (timeout)", snapshot.ErrUnavailable, ns, target)
	}
	return nil, fmt.Errorf("%w: pod %s/%s", snapshot.ErrNotFound, ns, target)
}

func (r *reader) Scan(context.Context, string) (*snapshot.Scan, error) {
	r.reads++
	return &snapshot.Scan{Version: snapshot.Version}, nil
}

type counter map[string]int

func (c counter) ClusterReadError(kind string) { c[kind]++ }

type admitCase struct {
	who         access.Caller
	ns, target  string
	want        error
	msg         string
	readsTarget bool
}

func TestAdmitAndRead(t *testing.T) {
	r := &reader{}
	m := counter{}
	s := New(Options{Reader: r, Namespaces: []string{"ml"}, Timeout: 50 * time.Millisecond, Metrics: m,
		Policy: access.Policy{Header: "X-Email", Users: []string{"sre@example.com"}}, Limiter: access.NewLimiter(600)})
	sre, eve := access.Caller{Identity: "sre@example.com"}, access.Caller{Identity: "eve@elsewhere.org"}
	tests := []admitCase{
		{sre, "ml", "trainer-0", nil, "", true},
		{sre, "Bad_NS", "x", ErrInvalid, `namespace "Bad_NS" is not a Kubernetes namespace name`, false},
		{sre, "ml", "secret/db", ErrInvalid, `target "secret/db"`, false},
		{sre, "ml", "../etc", ErrInvalid, `target "../etc"`, false},
		{sre, "ml", "Trainer_0", ErrInvalid, `"Trainer_0" is not a Kubernetes object name`, false},
		{eve, "ml", "trainer-0", access.ErrDenied, "live triage is limited to allow-listed users", false},
		// Refused before the cluster is read, with the words every door shows.
		{sre, "kube-system", "coredns-0", snapshot.ErrNamespaceNotAllowed,
			`namespace not open to live triage: "kube-system" is outside the allowed namespaces (ml)`, false},
		// eve is not told which namespaces exist.
		{eve, "kube-system", "coredns-0", access.ErrDenied, "allow-listed", false},
		{sre, "ml", "gone-0", snapshot.ErrNotFound, "not found in the cluster: pod ml/gone-0", true},
		{sre, "ml", "denied", snapshot.ErrForbidden, "grant get pods in namespace ml", true},
		{sre, "ml", "slow", snapshot.ErrUnavailable, "the cluster could not be read", true},
		{sre, "ml", "networkpolicy/deny-all", ErrInvalid, `target "networkpolicy/deny-all"`, false},
		{sre, "ml", "configmap/app", ErrInvalid, `target "configmap/app"`, false},
	}
	// Every kind of target is read in an allowed namespace and refused,
	// unread, outside it.
	for _, target := range []string{"deployment/web", "job/export", "cronjob/nightly", "service/checkout", "ingress/shop", "hpa/api", "pvc/data"} {
		tests = append(tests, admitCase{sre, "ml", target, nil, "", true}, admitCase{sre, "kube-system", target, snapshot.ErrNamespaceNotAllowed, `"kube-system" is outside the allowed namespaces (ml)`, false})
	}
	for _, tt := range tests {
		t.Run(tt.ns+"/"+tt.target+" as "+tt.who.Identity, func(t *testing.T) {
			before := r.reads
			_, err := s.Collect(context.Background(), tt.who, tt.ns, tt.target)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
			} else if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %v saying %q", err, tt.want, tt.msg)
			}
			if read := r.reads > before; read != tt.readsTarget {
				t.Errorf("cluster read: %v, want %v", read, tt.readsTarget)
			}
		})
	}
	if m["namespace"] != 8 || m["notfound"] != 1 || m["forbidden"] != 1 || m["unavailable"] != 1 {
		t.Errorf("read errors counted %v", m)
	}
}

func TestOffAndLimited(t *testing.T) {
	var off *Service
	if off.Enabled() || !errors.Is(func() error {
		_, err := New(Options{}).Collect(context.Background(), access.Caller{}, "ml", "x")
		return err
	}(), ErrOff) {
		t.Error("a service without a reader must be off and say so")
	}
	r := &reader{}
	s := New(Options{Reader: r, Limiter: access.NewLimiter(6)})
	who := access.Caller{Addr: "192.0.2.1:5000"}
	if _, err := s.Scan(context.Background(), who, "ml"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Collect(context.Background(), access.Caller{Addr: "192.0.2.1:6000"}, "ml", "trainer-0"); !errors.Is(err, access.ErrLimited) {
		t.Fatalf("second read from the same host within the burst: %v, want ErrLimited", err)
	}
	for _, target := range []string{"service/checkout", "ingress/shop", "hpa/api", "cronjob/nightly", "pvc/data"} {
		if _, err := s.Collect(context.Background(), who, "ml", target); !errors.Is(err, access.ErrLimited) {
			t.Errorf("%s from the same host within the burst: %v, want ErrLimited", target, err)
		}
	}
	if r.reads != 1 {
		t.Errorf("%d cluster reads, want 1: a limited call must not read", r.reads)
	}
}
