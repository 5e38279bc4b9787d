package gaps

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// Limits bound one run. Zero values take the defaults.
type Limits struct {
	// CheckTimeout bounds one check's evaluation over the whole inventory.
	CheckTimeout time.Duration
	// MaxObjects bounds how many objects of its kind one check evaluates;
	// a check cut short that found nothing is an error, not a pass.
	MaxObjects int
	// MaxListed bounds the objects a result lists; Count still counts all.
	MaxListed int
}

func (l Limits) withDefaults() Limits {
	if l.CheckTimeout <= 0 {
		l.CheckTimeout = 5 * time.Second
	}
	if l.MaxObjects <= 0 {
		l.MaxObjects = 20000
	}
	if l.MaxListed <= 0 {
		l.MaxListed = 50
	}
	return l
}

// Run evaluates every check of the set over an inventory. It never fails
// as a whole: a check that cannot be evaluated (a read it needs failed, an
// expression errs, the time limit passes) is a result with status error.
func (s *Set) Run(ctx context.Context, inv *inventory.Inventory, lim Limits) *Report {
	lim = lim.withDefaults()
	rep := &Report{CollectedAt: inv.CollectedAt, ServerVersion: inv.ServerVersion, Scope: inv.Scope}
	vars := variables(inv)
	for _, c := range s.Checks {
		start := time.Now()
		r := c.run(ctx, inv, vars, lim)
		r.Took = time.Since(start)
		rep.Results = append(rep.Results, r)
	}
	rep.sort()
	return rep
}

// variables are the activation shared by every check of a run.
func variables(inv *inventory.Inventory) map[string]any {
	byNode := map[string][]inventory.Pod{}
	byOwner := map[string][]inventory.Pod{}
	byNamespace := map[string][]inventory.Pod{}
	byService := map[string][]inventory.EndpointSlice{}
	for _, e := range inv.EndpointSlices {
		k := e.Namespace + "/" + e.Service
		byService[k] = append(byService[k], e)
	}
	for _, p := range inv.Pods {
		byNamespace[p.Namespace] = append(byNamespace[p.Namespace], p)
		if p.NodeName != "" {
			byNode[p.NodeName] = append(byNode[p.NodeName], p)
		}
		if p.Owner != "" {
			k := p.Namespace + "/" + p.Owner
			byOwner[k] = append(byOwner[k], p)
		}
	}
	return map[string]any{"inventory": inv, "now": inv.CollectedAt, "podsByNode": byNode, "podsByOwner": byOwner,
		"podsByNamespace": byNamespace, "slicesByService": byService}
}

func (c *Check) result() Result {
	return Result{ID: c.ID, Title: c.Title, Severity: c.Severity, Incidents: c.Incidents, Playbooks: c.Playbooks,
		Fix: c.Fix, Path: c.Path, TitleKo: c.TitleKo, FixKo: c.FixKo}
}

func (c *Check) run(ctx context.Context, inv *inventory.Inventory, vars map[string]any, lim Limits) Result {
	r := c.result()
	if msg := readProblem(inv, c.Kinds); msg != "" {
		r.Status, r.Error = StatusError, msg
		return r
	}
	var partial []string
	for _, k := range c.Kinds {
		if rd, _ := inv.Read(k); rd.Truncated {
			partial = append(partial, fmt.Sprintf("%s stopped at the object limit (%d read)", k, rd.Count))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, lim.CheckTimeout)
	defer cancel()
	found, err := c.evaluate(ctx, inv, vars, lim, &partial)
	if err != nil {
		r.Status, r.Error = StatusError, err.Error()
		return r
	}
	r.Count = len(found)
	r.Partial = strings.Join(partial, "; ")
	switch {
	case len(found) > 0:
		r.Status = StatusFound
		r.Objects = found[:min(len(found), lim.MaxListed)]
		r.Message = c.message(found)
		if c.MessageKo != "" {
			r.MessageKo = fillMessage(c.MessageKo, found, " 외 %d개")
		}
	case len(partial) > 0:
		// Nothing found in part of the cluster proves nothing about the rest.
		r.Status, r.Error = StatusError, "incomplete: "+r.Partial+"; raise the object limit"
	default:
		r.Status = StatusPassed
	}
	return r
}

// readProblem says why a check cannot trust the inventory: a read it
// needs failed, or the inventory does not say it was made.
func readProblem(inv *inventory.Inventory, kinds []string) string {
	var msgs []string
	for _, k := range kinds {
		rd, ok := inv.Read(k)
		if !ok {
			msgs = append(msgs, "the inventory does not say whether "+k+" were read")
			continue
		}
		for _, e := range rd.Errors {
			if e.Kind == snapshot.ReadForbidden {
				msgs = append(msgs, "missing permission "+e.Permission.String())
			} else {
				msgs = append(msgs, fmt.Sprintf("could not %s (%s): %s", e.What, e.Kind, e.Message))
			}
		}
	}
	return strings.Join(msgs, "; ")
}

// evaluate returns the objects the check found, in inventory order.
func (c *Check) evaluate(ctx context.Context, inv *inventory.Inventory, vars map[string]any, lim Limits, partial *[]string) ([]Finding, error) {
	if c.Each == "" {
		if c.condition != nil {
			ok, err := evalBool(ctx, c.condition, vars)
			if err != nil || !ok {
				return nil, wrapEval("condition", "", err)
			}
		}
		v, _, err := c.objects.ContextEval(ctx, vars)
		if err != nil {
			return nil, wrapEval("objects", "", err)
		}
		names, err := v.ConvertToNative(reflect.TypeFor[[]string]())
		if err != nil {
			return nil, wrapEval("objects", "", err)
		}
		var out []Finding
		for _, n := range names.([]string) {
			out = append(out, Finding{Object: n})
		}
		return out, nil
	}
	list := kindSlice(inv, c.Each)
	if n := list.Len(); n > lim.MaxObjects {
		*partial = append(*partial, fmt.Sprintf("evaluated the first %d of %d %s", lim.MaxObjects, n, c.Each))
	}
	act := make(map[string]any, len(vars)+1)
	for k, v := range vars {
		act[k] = v
	}
	var out []Finding
	for i := range min(list.Len(), lim.MaxObjects) {
		obj := list.Index(i).Addr().Interface()
		act["object"] = obj
		ok, err := evalBool(ctx, c.condition, act)
		if err != nil {
			return nil, wrapEval("condition", objectRef(c.Each, obj), err)
		}
		if !ok {
			continue
		}
		f := Finding{Object: objectRef(c.Each, obj)}
		if c.detail != nil {
			v, _, err := c.detail.ContextEval(ctx, act)
			if err != nil {
				return nil, wrapEval("detail", f.Object, err)
			}
			f.Detail, _ = v.Value().(string)
		}
		out = append(out, f)
	}
	return out, nil
}

func evalBool(ctx context.Context, prg cel.Program, vars map[string]any) (bool, error) {
	v, _, err := prg.ContextEval(ctx, vars)
	if err != nil {
		return false, err
	}
	b, ok := v.(types.Bool)
	if !ok {
		return false, fmt.Errorf("condition gave %v, not a bool", v)
	}
	return bool(b), nil
}

func wrapEval(field, object string, err error) error {
	if err == nil {
		return nil
	}
	// cel wraps an interrupted evaluation with the context's cause.
	if errors.Is(err, context.DeadlineExceeded) {
		err = errors.New("the check's time limit passed")
	}
	if object != "" {
		return fmt.Errorf("%s on %s: %v", field, object, err)
	}
	return fmt.Errorf("%s: %v", field, err)
}

// kindSlice returns the inventory's slice for a kind, found by JSON name.
func kindSlice(inv *inventory.Inventory, kind string) reflect.Value {
	v := reflect.ValueOf(inv).Elem()
	t := v.Type()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == kind {
			return v.Field(i)
		}
	}
	return reflect.ValueOf([]struct{}{})
}

// message fills the check's message template.
func (c *Check) message(found []Finding) string {
	return fillMessage(c.Message, found, " and %d more")
}

// fillMessage fills {count} and {objects} (the first five, then how many
// more, worded by more) in a message of either language.
func fillMessage(tmpl string, found []Finding, more string) string {
	names := make([]string, 0, 5)
	for _, f := range found[:min(len(found), 5)] {
		names = append(names, f.Object)
	}
	objs := strings.Join(names, ", ")
	if len(found) > 5 {
		objs += fmt.Sprintf(more, len(found)-5)
	}
	return strings.NewReplacer("{count}", fmt.Sprint(len(found)), "{objects}", objs).Replace(tmpl)
}

func (r *Report) sort() {
	rank := map[Status]int{StatusFound: 0, StatusError: 1, StatusPassed: 2}
	sort.SliceStable(r.Results, func(i, j int) bool {
		a, b := r.Results[i], r.Results[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if rank[a.Status] != rank[b.Status] {
			return rank[a.Status] < rank[b.Status]
		}
		return a.ID < b.ID
	})
}
