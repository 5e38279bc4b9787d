package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"casebook/internal/access"
	"casebook/internal/cluster"
	"casebook/internal/content"
	"casebook/internal/gaps"
)

// checkRestrict refuses a --restrict-layer nobody could read: the
// allow-list decides who sees a restricted layer, and an empty allow-list
// (which lets every signed-in user use live triage) would let nobody.
func checkRestrict(c config) error {
	if len(c.RestrictLayers) == 0 {
		return nil
	}
	if c.AllowUsers == "" && c.AllowDomains == "" {
		return fmt.Errorf("--restrict-layer %s needs --allow-users or --allow-domains: the allow-list names who may read the restricted layers, "+
			"and without one nobody could", strings.Join(c.RestrictLayers, ","))
	}
	return nil
}

// viewGaps runs the gap checks of the library the caller may see: a
// restricted layer's checks (and the incidents and playbooks they cite)
// only for identities on the allow-list. Each view has its own service, so
// a cached result of one never reaches the other.
type viewGaps struct {
	all    *gaps.Service
	public *gaps.Service // nil when no layer is restricted
	policy access.Policy
}

func (v viewGaps) pick(ctx context.Context) *gaps.Service {
	if v.public == nil || v.policy.Allowed(access.IdentityFrom(ctx)) {
		return v.all
	}
	return v.public
}

func (v viewGaps) Live() bool                                    { return v.all.Live() }
func (v viewGaps) TTL() time.Duration                            { return v.all.TTL() }
func (v viewGaps) Run(ctx context.Context) (*gaps.Report, error) { return v.pick(ctx).Run(ctx) }
func (v viewGaps) RunFile(ctx context.Context, name string, r io.Reader) (*gaps.Report, error) {
	return v.pick(ctx).RunFile(ctx, name, r)
}

// portalGaps gives the portal its gap checks, one service per view of the
// library when layers are restricted.
func portalGaps(loader *content.Loader, r *cluster.Reader, p access.Policy) viewGaps {
	v := viewGaps{all: gapsService(loader, r, true), policy: p}
	if len(loader.Restricted()) > 0 {
		v.public = gapsService(loader, r, false)
	}
	return v
}
