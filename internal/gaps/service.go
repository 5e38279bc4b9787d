package gaps

import (
	"casebook/internal/inventory"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"
)

// ErrNoCluster is returned by Service.Run when no cluster is configured.
var ErrNoCluster = errors.New("gaps: no cluster is configured")

// Collector reads a cluster's inventory; cluster.Reader adapts to it.
type Collector func(ctx context.Context) (*inventory.Inventory, error)

// Service runs the current library's checks for the portal and the MCP
// tools: against the configured cluster, with the result cached for a
// short time so page loads do not each read the whole cluster, or against
// an uploaded inventory file.
type Service struct {
	fsys    fs.FS
	version func() string
	collect Collector
	ttl     time.Duration
	limits  Limits
	now     func() time.Time

	mu       sync.Mutex // one collection at a time; the others wait for its result
	set      *Set
	setFor   string
	cached   *Report
	cachedAt time.Time
	cacheFor string
}

// ServiceOptions configure a Service. Zero values take the defaults.
type ServiceOptions struct {
	// Version names the library's content (its hash); checks are reloaded
	// and the cache dropped when it changes.
	Version func() string
	// Collect reads the cluster; nil means none is configured.
	Collect Collector
	TTL     time.Duration // default 1 minute
	Limits  Limits
}

// NewService returns a Service over the checks of the library at fsys.
func NewService(fsys fs.FS, o ServiceOptions) *Service {
	if o.Version == nil {
		o.Version = func() string { return "" }
	}
	if o.TTL <= 0 {
		o.TTL = time.Minute
	}
	return &Service{fsys: fsys, version: o.Version, collect: o.Collect, ttl: o.TTL, limits: o.Limits, now: time.Now}
}

// Live reports whether a cluster is configured.
func (s *Service) Live() bool { return s.collect != nil }

// TTL is how long a live result is reused.
func (s *Service) TTL() time.Duration { return s.ttl }

// checks returns the compiled checks of the current library; s.mu held.
func (s *Service) checks() (*Set, error) {
	v := s.version()
	if s.set == nil || s.setFor != v {
		set, problems := Load(s.fsys)
		if len(problems) > 0 && len(set.Checks) == 0 {
			return nil, fmt.Errorf("gaps: no check loaded; first problem: %s", problems[0])
		}
		s.set, s.setFor = set, v
	}
	return s.set, nil
}

// Checks returns the current library's checks.
func (s *Service) Checks() (*Set, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checks()
}

// ChecksFor lists the checks that cite an incident; none when the checks
// do not load.
func (s *Service) ChecksFor(incident string) []*Check {
	set, err := s.Checks()
	if err != nil {
		return nil
	}
	return set.For(incident)
}

// Run checks the configured cluster, reusing a result younger than the TTL
// for the same library.
func (s *Service) Run(ctx context.Context) (*Report, error) {
	if s.collect == nil {
		return nil, ErrNoCluster
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set, err := s.checks()
	if err != nil {
		return nil, err
	}
	if s.cached != nil && s.cacheFor == s.setFor && s.now().Sub(s.cachedAt) < s.ttl {
		return s.cached, nil
	}
	inv, err := s.collect(ctx)
	if err != nil {
		return nil, fmt.Errorf("gaps: read the cluster: %w", err)
	}
	rep := set.Run(ctx, inv, s.limits)
	rep.Source = "the configured cluster"
	s.cached, s.cachedAt, s.cacheFor = rep, s.now(), s.setFor
	return rep, nil
}

// RunFile checks an inventory file (casebook gaps --save, or the page's
// upload); it is decoded strictly and never cached.
func (s *Service) RunFile(ctx context.Context, name string, r io.Reader) (*Report, error) {
	inv, err := inventory.Decode(r)
	if err != nil {
		return nil, err
	}
	set, err := s.Checks()
	if err != nil {
		return nil, err
	}
	rep := set.Run(ctx, inv, s.limits)
	rep.Source = name
	return rep, nil
}
