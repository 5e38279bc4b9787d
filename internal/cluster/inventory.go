package cluster

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// InventoryOptions bound one cluster-wide inventory for the gap checks.
type InventoryOptions struct {
	// MaxObjects bounds each kind; a kind cut short is marked Truncated,
	// and checks that found nothing in it report an error, not a pass.
	MaxObjects int
	// NodeSelector, a label selector, limits the nodes read (one pool).
	NodeSelector string
	// Timeout bounds the whole inventory; each request still has the
	// Reader's ReadTimeout.
	Timeout time.Duration
}

const (
	defaultMaxObjects       = 5000
	defaultInventoryTimeout = 60 * time.Second
	// pageSize is the number of objects one list request asks for; large
	// kinds are read in pages so no single response is huge.
	pageSize = 500
)

// inventoryRead is the state of one inventory: the reads of each kind.
type inventoryRead struct {
	r     *Reader
	ctx   context.Context
	max   int
	inv   *inventory.Inventory
	reads map[string]*inventory.KindRead
}

// Inventory reads, read-only, what the gap checks need across the cluster:
// nodes, namespaces, admission webhooks, PriorityClasses, PDBs,
// Deployments, StatefulSets, DaemonSets, unfinished Jobs, non-terminated
// pods, ResourceQuotas, Services, EndpointSlices, Ingresses,
// HorizontalPodAutoscalers, and Karpenter NodePools and EC2NodeClasses when
// those APIs are served. It never reads Secrets or ConfigMaps. Namespaced
// kinds are read per namespace of the Reader's allow-list when it has one.
// A failed read is recorded in Reads with the permission it needed; the
// error is only for a context that ended before anything could be read.
func (r *Reader) Inventory(ctx context.Context, opts InventoryOptions) (*inventory.Inventory, error) {
	if opts.MaxObjects <= 0 {
		opts.MaxObjects = defaultMaxObjects
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultInventoryTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	inv := &inventory.Inventory{Version: inventory.Version, Kind: inventory.Kind, CollectedAt: time.Now().UTC(),
		Scope: inventory.Scope{Namespaces: r.opts.Namespaces, NodeSelector: opts.NodeSelector}}
	ir := &inventoryRead{r: r, ctx: ctx, max: opts.MaxObjects, inv: inv, reads: map[string]*inventory.KindRead{}}
	if v, err := r.client.Discovery().ServerVersion(); err == nil {
		inv.ServerVersion = v.GitVersion
	}
	ir.nodes(opts.NodeSelector)
	ir.namespaces()
	ir.webhooks()
	ir.priorityClasses()
	ir.disruptionBudgets()
	ir.workloads()
	ir.pods()
	ir.quotas()
	ir.karpenter()
	ir.traffic()
	for k := range inventory.Kinds {
		if rd := ir.reads[k]; rd != nil {
			inv.Reads = append(inv.Reads, *rd)
		}
	}
	sortReads(inv.Reads)
	if err := ctx.Err(); err != nil && len(inv.Nodes) == 0 && len(inv.Pods) == 0 {
		return inv, err
	}
	return inv, nil
}

// read returns the KindRead of a kind, creating it.
func (ir *inventoryRead) read(kind string) *inventory.KindRead {
	rd := ir.reads[kind]
	if rd == nil {
		rd = &inventory.KindRead{Kind: kind}
		ir.reads[kind] = rd
	}
	return rd
}

// page is one list response: its items and the continue token.
type page[T any] struct {
	items []T
	next  string
}

// listAll lists one kind in one namespace ("" for all or cluster-scoped)
// page by page, each page with its own timeout, until the kind's object
// limit; a failure is recorded on the kind and ends its read.
func listAll[T any](ir *inventoryRead, kind, what string, p snapshot.Permission, list func(ctx context.Context, o metav1.ListOptions) (page[T], error)) []T {
	rd := ir.read(kind)
	var out []T
	cont := ""
	for {
		if rd.Count >= ir.max {
			rd.Truncated = true
			return out
		}
		var pg page[T]
		ctx, cancel := context.WithTimeout(ir.ctx, ir.r.opts.ReadTimeout)
		pg, err := list(ctx, metav1.ListOptions{Limit: int64(min(pageSize, ir.max-rd.Count)), Continue: cont})
		cancel()
		if err != nil {
			rd.Errors = append(rd.Errors, readError(what, p, err))
			return out
		}
		out = append(out, pg.items...)
		rd.Count += len(pg.items)
		if pg.next == "" {
			return out
		}
		cont = pg.next
	}
}

// namespacesToRead is the Reader's allow-list, or "" for all namespaces.
func (ir *inventoryRead) namespacesToRead() []string {
	if len(ir.r.opts.Namespaces) > 0 {
		return ir.r.opts.Namespaces
	}
	return []string{""}
}

// inNamespace words a read for evidence: "list pods" or "list pods in
// namespace team-a".
func inNamespace(what, ns string) string {
	if ns == "" {
		return what
	}
	return what + " in namespace " + ns
}
