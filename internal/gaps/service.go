package gaps

import (
	"casebook/internal/inventory"
	"casebook/internal/snapshot"
	"context"
	"errors"
	"fmt"
	"io"
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
	checks  func() *Set
	collect Collector
	ttl     time.Duration
	limits  Limits
	now     func() time.Time

	mu       sync.Mutex // one collection at a time; the others wait for its result
	cached   *Report
	cachedAt time.Time
	cacheFor *Set
}

// ServiceOptions configure a Service. Zero values take the defaults.
type ServiceOptions struct {
	// Checks returns the current library's compiled checks (the loaded
	// content's); a reload hands out a new Set, which drops the cache.
	Checks func() *Set
	// Collect reads the cluster; nil means none is configured.
	Collect Collector
	TTL     time.Duration // default 1 minute
	Limits  Limits
}

// ErrNoChecks is returned while no library (and so no check) is loaded.
var ErrNoChecks = errors.New("gaps: no library is loaded yet")

// NewService returns a Service over the checks o.Checks hands out.
func NewService(o ServiceOptions) *Service {
	if o.TTL <= 0 {
		o.TTL = time.Minute
	}
	return &Service{checks: o.Checks, collect: o.Collect, ttl: o.TTL, limits: o.Limits, now: time.Now}
}

// Live reports whether a cluster is configured.
func (s *Service) Live() bool { return s.collect != nil }

// TTL is how long a live result is reused.
func (s *Service) TTL() time.Duration { return s.ttl }

// current returns the checks of the loaded library.
func (s *Service) current() (*Set, error) {
	var set *Set
	if s.checks != nil {
		set = s.checks()
	}
	if set == nil {
		return nil, ErrNoChecks
	}
	return set, nil
}

// Run checks the configured cluster, reusing a result younger than the TTL
// for the same library.
func (s *Service) Run(ctx context.Context) (*Report, error) {
	if s.collect == nil {
		return nil, ErrNoCluster
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set, err := s.current()
	if err != nil {
		return nil, err
	}
	if s.cached != nil && s.cacheFor == set && s.now().Sub(s.cachedAt) < s.ttl {
		return s.cached, nil
	}
	inv, err := s.collect(ctx)
	if err != nil {
		if !errors.Is(err, snapshot.ErrForbidden) && !errors.Is(err, snapshot.ErrNamespaceNotAllowed) {
			err = fmt.Errorf("%w: %w", snapshot.ErrUnavailable, err)
		}
		return nil, fmt.Errorf("gaps: %w", err)
	}
	rep := set.Run(ctx, inv, s.limits)
	rep.Source = "the configured cluster"
	s.cached, s.cachedAt, s.cacheFor = rep, s.now(), set
	return rep, nil
}

// RunFile checks an inventory file (casebook gaps --save, or the page's
// upload); it is decoded strictly and never cached.
func (s *Service) RunFile(ctx context.Context, name string, r io.Reader) (*Report, error) {
	inv, err := inventory.Decode(r)
	if err != nil {
		return nil, err
	}
	set, err := s.current()
	if err != nil {
		return nil, err
	}
	rep := set.Run(ctx, inv, s.limits)
	rep.Source = name
	return rep, nil
}
