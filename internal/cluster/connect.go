// Package cluster reads a live cluster, read-only, into a snapshot.Snapshot
// for triage. It is the only package that imports k8s.io/*. Every read has
// its own short timeout and one collection is bounded as a whole, so a slow
// or unreachable cluster never hangs a page; a read that fails is recorded
// in the snapshot (with the permission it needed) instead of failing the
// triage, and the wizard asks the person that question instead.
//
// It never reads Secrets, never reads ConfigMaps, and reads container logs
// only with Options.ReadLogs.
package cluster

import (
	"casebook/internal/snapshot"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options configure a Reader. Zero values take the defaults below.
type Options struct {
	// Kubeconfig and Context select the cluster as kubectl does: an
	// explicit file, else $KUBECONFIG, else ~/.kube/config, else the
	// in-cluster service account.
	Kubeconfig string
	Context    string
	// Namespaces, when set, is the only namespaces a triage may target
	// (the portal's allow-list).
	Namespaces []string
	// ReadLogs allows reading the tail of previous container logs and of
	// device plugin pods; it needs get pods/log.
	ReadLogs bool
	// ReadTimeout bounds each request; CollectTimeout one whole triage.
	ReadTimeout    time.Duration
	CollectTimeout time.Duration
	// MaxNodes bounds the nodes whose pods are listed (one field-selected
	// list per node) to compute free capacity.
	MaxNodes int
	// MaxScan bounds the troubled pods a namespace scan collects.
	MaxScan int
	// WrapTransport wraps the HTTP transport; tests use it to record every
	// request path.
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

const (
	defaultReadTimeout    = 5 * time.Second
	defaultCollectTimeout = 30 * time.Second
	defaultMaxNodes       = 16
	defaultMaxScan        = 20
)

func (o Options) withDefaults() Options {
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = defaultReadTimeout
	}
	if o.CollectTimeout <= 0 {
		o.CollectTimeout = defaultCollectTimeout
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = defaultMaxNodes
	}
	if o.MaxScan <= 0 {
		o.MaxScan = defaultMaxScan
	}
	return o
}

// Reader reads one cluster. It is safe for concurrent use.
type Reader struct {
	client  kubernetes.Interface
	dynamic dynamic.Interface
	opts    Options
}

// Connect builds a Reader through client-go's standard loading rules. It
// does not contact the cluster; the first collection does.
func Connect(opts Options) (*Reader, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if opts.Kubeconfig != "" {
		rules.ExplicitPath = opts.Kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: opts.Context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		// The error names the file or context, never its contents.
		return nil, fmt.Errorf("cluster: load kubeconfig: %w", err)
	}
	return NewReader(cfg, opts)
}

// NewReader builds a Reader from a rest.Config.
func NewReader(cfg *rest.Config, opts Options) (*Reader, error) {
	opts = opts.withDefaults()
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "casebook-triage"
	cfg.Timeout = opts.ReadTimeout
	// One triage makes a few dozen requests; client-side throttling at
	// the default 5 QPS would spend the collection budget waiting.
	cfg.QPS, cfg.Burst = 50, 100
	if opts.WrapTransport != nil {
		cfg.Wrap(opts.WrapTransport)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: dynamic client: %w", err)
	}
	return &Reader{client: client, dynamic: dyn, opts: opts}, nil
}

// allowed refuses a namespace outside Options.Namespaces before anything
// is read; the error wraps snapshot.ErrNamespaceNotAllowed.
func (r *Reader) allowed(ns string) error {
	if ns == "" {
		return errors.New("cluster: a namespace is required")
	}
	if len(r.opts.Namespaces) > 0 && !slices.Contains(r.opts.Namespaces, ns) {
		return snapshot.NamespaceNotAllowed(ns, r.opts.Namespaces)
	}
	return nil
}
