// Package live is live triage as one service: it validates what is asked
// (a namespace and a pod or workload), admits the caller (the access
// policy, the namespace allow-list, the rate limiter), reads the cluster
// through the read-only reader within a time bound, and walks the triage
// trees over what it read. It is built once in cmd/server and used by the
// web pages, the MCP tools and the CLI, so each door only translates its
// request into a call and the error into its own form.
package live

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"casebook/internal/access"
	"casebook/internal/i18n"
	"casebook/internal/probe"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// Reader reads a cluster read-only; *cluster.Reader is one. Its errors
// wrap the snapshot.Err* sentinels.
type Reader interface {
	Collect(ctx context.Context, namespace, target string) (*snapshot.Snapshot, error)
	Scan(ctx context.Context, namespace string) (*snapshot.Scan, error)
}

// Metrics counts failed reads by kind; nil records nothing.
type Metrics interface {
	ClusterReadError(kind string)
}

// Options configure the service. A nil Reader means live triage is off.
type Options struct {
	Reader Reader
	// Namespaces is the allow-list (--namespaces); empty allows any.
	Namespaces []string
	// Timeout bounds one collection; default 10 s.
	Timeout time.Duration
	Policy  access.Policy
	// Limiter is the portal's one limiter; nil admits every call (the
	// CLI, a stdio MCP session: one user on their own kubeconfig).
	Limiter *access.Limiter
	Metrics Metrics
	// Off says why live triage is off, for the pages that offer it.
	Off i18n.Msg
}

// Errors of the requests themselves; the cluster's are snapshot.Err*.
var (
	// ErrOff: no cluster is configured.
	ErrOff error = &i18n.Error{Msg: i18n.M("error.live_off")}
	// ErrInvalid: the namespace or target is not a Kubernetes name.
	ErrInvalid = errors.New("invalid live triage request")
)

// Service is live triage for every door.
type Service struct{ o Options }

// New returns the service.
func New(o Options) *Service {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	return &Service{o: o}
}

// Enabled reports whether a cluster is configured.
func (s *Service) Enabled() bool { return s != nil && s.o.Reader != nil }

// Namespaces is the allow-list, empty when any namespace may be read.
func (s *Service) Namespaces() []string {
	if s == nil {
		return nil
	}
	return s.o.Namespaces
}

// Off says why live triage is off, as a message each door renders in its
// reader's language.
func (s *Service) Off() i18n.Msg {
	if s == nil || s.o.Off.IsZero() {
		return i18n.M("error.live_off")
	}
	return s.o.Off
}

// Collect reads one target ("POD" or "KIND/NAME") for the caller.
func (s *Service) Collect(ctx context.Context, c access.Caller, ns, target string) (*snapshot.Snapshot, error) {
	if target == "" {
		return nil, i18n.Errorf(ErrInvalid, "live.no_target")
	}
	if err := s.admit(c, ns, target); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	snap, err := s.o.Reader.Collect(ctx, ns, target)
	return snap, s.observe(err)
}

// Scan reads every troubled pod of a namespace for the caller.
func (s *Service) Scan(ctx context.Context, c access.Caller, ns string) (*snapshot.Scan, error) {
	if err := s.admit(c, ns, ""); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	sc, err := s.o.Reader.Scan(ctx, ns)
	return sc, s.observe(err)
}

// Triage collects a target and walks cat's trees over it.
func (s *Service) Triage(ctx context.Context, c access.Caller, cat *triage.Catalog, ns, target string) (*probe.Report, error) {
	snap, err := s.Collect(ctx, c, ns, target)
	if err != nil {
		return nil, err
	}
	return probe.Triage(cat, snap)
}

// admit checks, in order: live triage is on, the names are valid, the
// caller may read the cluster, the namespace is allowed, and the caller's
// budget. The allow-list is named only to callers who passed the policy.
func (s *Service) admit(c access.Caller, ns, target string) error {
	if !s.Enabled() {
		return ErrOff
	}
	if err := Validate(ns, target); err != nil {
		return err
	}
	if err := s.o.Policy.LiveTriage(c); err != nil {
		return err
	}
	if len(s.o.Namespaces) > 0 && !slices.Contains(s.o.Namespaces, ns) {
		return s.observe(snapshot.NamespaceNotAllowed(ns, s.o.Namespaces))
	}
	return s.o.Limiter.Take(c, 1)
}

// observe counts a failed read under a bounded set of kinds.
func (s *Service) observe(err error) error {
	if err == nil || s.o.Metrics == nil {
		return err
	}
	kind := "other"
	switch {
	case errors.Is(err, snapshot.ErrNamespaceNotAllowed):
		kind = "namespace"
	case errors.Is(err, snapshot.ErrForbidden):
		kind = "forbidden"
	case errors.Is(err, snapshot.ErrNotFound):
		kind = "notfound"
	case errors.Is(err, snapshot.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		kind = "unavailable"
	}
	s.o.Metrics.ClusterReadError(kind)
	return err
}

// Kubernetes names: a namespace is a DNS label, a pod or workload a DNS
// subdomain.
var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
)

// Validate checks a namespace and an optional target: a pod name, or
// deployment|replicaset|statefulset|job|cronjob|service|ingress|hpa|pvc/NAME.
func Validate(ns, target string) error {
	if !dnsLabel.MatchString(ns) {
		return i18n.Errorf(ErrInvalid, "live.bad_namespace", "namespace", i18n.Quote(ns))
	}
	if target == "" {
		return nil
	}
	name := target
	if kind, n, ok := strings.Cut(target, "/"); ok {
		switch strings.ToLower(kind) {
		case "pod", "deployment", "replicaset", "statefulset", "job", "cronjob", "service", "ingress", "hpa", "pvc":
		default:
			return i18n.Errorf(ErrInvalid, "live.bad_target", "target", i18n.Quote(target))
		}
		name = n
	}
	if !dnsSubdomain.MatchString(name) {
		return i18n.Errorf(ErrInvalid, "live.bad_name", "name", i18n.Quote(name))
	}
	return nil
}
