package cluster_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// harnessEnv names the admin kubeconfig of the API server harness
// (scripts/kubeharness.sh start prints it).
const harnessEnv = "CASEBOOK_KUBEHARNESS_KUBECONFIG"

// harness returns the admin config, skipping the test outside CI when no
// harness runs, and failing it in CI, where a missing harness is a broken
// pipeline rather than a developer's choice.
func harness(t *testing.T) (*rest.Config, string) {
	t.Helper()
	path := os.Getenv(harnessEnv)
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must start the API server harness (see test/kubeharness/README.md)", harnessEnv)
		}
		t.Skipf("%s is not set; start the harness with scripts/kubeharness.sh start to run the live-cluster tests", harnessEnv)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("harness kubeconfig %s: %v", path, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg, path
}

// runID keeps this run's namespaces and nodes apart from earlier runs on
// the same harness: without a controller-manager nothing is ever deleted.
func runID(t *testing.T) string {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// applyRBAC creates the objects of deploy/rbac-readonly.yaml, exactly as
// shipped, and returns the ClusterRole for tests that take a rule away.
func applyRBAC(t *testing.T, ctx context.Context, c kubernetes.Interface) *rbacv1.ClusterRole {
	t.Helper()
	f, err := os.Open("../../deploy/rbac-readonly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLReader(bufioReader(f))
	var role *rbacv1.ClusterRole
	for {
		doc, err := dec.Read()
		if errors.Is(err, errEOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(stripComments(string(doc))) == "" {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("rbac-readonly.yaml: %v", err)
		}
		switch o := obj.(type) {
		case *corev1.Namespace:
			_, err = c.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ServiceAccount:
			_, err = c.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			if o.Name == "casebook-readonly" {
				role = o
			}
			_, err = c.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				// Another run on the same harness may have applied an
				// older version of the file.
				_, err = c.RbacV1().ClusterRoles().Update(ctx, o, metav1.UpdateOptions{})
			}
		case *rbacv1.ClusterRoleBinding:
			_, err = c.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		default:
			t.Fatalf("rbac-readonly.yaml: unexpected %T", obj)
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("apply %T: %v", obj, err)
		}
	}
	if role == nil {
		t.Fatal("rbac-readonly.yaml has no casebook-readonly ClusterRole")
	}
	return role
}

// tokenConfig returns a config that authenticates as a ServiceAccount
// through a TokenRequest, with none of the admin's credentials.
func tokenConfig(t *testing.T, ctx context.Context, admin *rest.Config, c kubernetes.Interface, ns, sa string) *rest.Config {
	t.Helper()
	exp := int64(3600)
	tok, err := c.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s/%s: %v", ns, sa, err)
	}
	return &rest.Config{Host: admin.Host, TLSClientConfig: rest.TLSClientConfig{CAFile: admin.CAFile, CAData: admin.CAData}, BearerToken: tok.Status.Token}
}

// recorder remembers every request the cluster reader sends.
type recorder struct {
	mu    sync.Mutex
	paths []string
}

func (r *recorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		r.mu.Lock()
		r.paths = append(r.paths, req.Method+" "+req.URL.Path+"?"+req.URL.RawQuery)
		r.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.paths...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, timeout time.Duration, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		ok, err := cond()
		if ok {
			return
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s (last error: %v)", what, last)
}
