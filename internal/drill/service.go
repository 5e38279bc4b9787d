package drill

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
)

// Service holds the drills of the current library for the portal, the
// CLI and the MCP tools, reloading them when the library's content
// changes.
type Service struct {
	fsys    fs.FS
	version func() string

	mu     sync.Mutex
	set    *Set
	setFor string
}

// NewService returns a Service over the drills of the library at fsys;
// version names the library's content (its hash), nil for a library that
// never changes.
func NewService(fsys fs.FS, version func() string) *Service {
	if version == nil {
		version = func() string { return "" }
	}
	return &Service{fsys: fsys, version: version}
}

// Set returns the current library's drills. Drills with problems are left
// out (lint reports them); an error means none loaded while some exist.
func (s *Service) Set() (*Set, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.version()
	if s.set == nil || s.setFor != v {
		set, problems := Load(s.fsys)
		if len(set.Drills) == 0 && len(problems) > 0 {
			return nil, fmt.Errorf("drill: no drill loaded; first problem: %s", problems[0])
		}
		s.set, s.setFor = set, v
	}
	return s.set, nil
}

// Drill returns one drill of the current library.
func (s *Service) Drill(id string) (*Drill, error) {
	set, err := s.Set()
	if err != nil {
		return nil, err
	}
	d, ok := set.Drill(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return d, nil
}

// ErrNotFound is a drill id the library does not have.
var ErrNotFound = errors.New("drill: no such drill")
