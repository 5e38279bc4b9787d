package cluster

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

var (
	nodePoolGVR  = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	nodeClassGVR = schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}
)

// karpenter reads Karpenter's NodePools and EC2NodeClasses when discovery
// says their APIs are served; a cluster without Karpenter has none, which
// is not an error.
func (ir *inventoryRead) karpenter() {
	for _, pool := range ir.custom("nodePools", nodePoolGVR) {
		np := inventory.NodePool{Name: pool.GetName(), Labels: map[string]string{}}
		if l, ok, _ := unstructured.NestedStringMap(pool.Object, "spec", "template", "metadata", "labels"); ok {
			np.Labels = l
		}
		spec, _, _ := unstructured.NestedMap(pool.Object, "spec", "template", "spec")
		if ts, ok, _ := unstructured.NestedSlice(spec, "taints"); ok {
			for _, t := range ts {
				m, _ := t.(map[string]any)
				np.Taints = append(np.Taints, snapshot.Taint{Key: str(m["key"]), Value: str(m["value"]), Effect: str(m["effect"])})
			}
		}
		if rs, ok, _ := unstructured.NestedSlice(spec, "requirements"); ok {
			for _, r := range rs {
				m, _ := r.(map[string]any)
				req := snapshot.Requirement{Key: str(m["key"]), Operator: str(m["operator"])}
				vs, _ := m["values"].([]any)
				for _, v := range vs {
					req.Values = append(req.Values, str(v))
				}
				np.Requirements = append(np.Requirements, req)
			}
		}
		if ref, ok, _ := unstructured.NestedStringMap(spec, "nodeClassRef"); ok && ref["name"] != "" {
			np.NodeClass = ref["kind"] + "/" + ref["name"]
		}
		ir.inv.NodePools = append(ir.inv.NodePools, np)
	}
	for _, nc := range ir.custom("nodeClasses", nodeClassGVR) {
		out := inventory.NodeClass{Name: nc.GetName()}
		out.AMIFamily, _, _ = unstructured.NestedString(nc.Object, "spec", "amiFamily")
		terms, _, _ := unstructured.NestedSlice(nc.Object, "spec", "amiSelectorTerms")
		for _, t := range terms {
			m, _ := t.(map[string]any)
			if a := str(m["alias"]); a != "" {
				out.AMIAlias = append(out.AMIAlias, a)
			}
		}
		ir.inv.NodeClasses = append(ir.inv.NodeClasses, out)
	}
}

// custom lists a cluster-scoped custom resource if its API is served.
func (ir *inventoryRead) custom(kind string, gvr schema.GroupVersionResource) []unstructured.Unstructured {
	rd := ir.read(kind)
	gv := gvr.GroupVersion().String()
	if _, err := ir.r.client.Discovery().ServerResourcesForGroupVersion(gv); err != nil {
		if apierrors.IsNotFound(err) {
			rd.NotServed = true
		} else {
			rd.Errors = append(rd.Errors, readError("discover "+gv, perm("get", "", "/apis/"+gv, ""), err))
		}
		return nil
	}
	return listAll(ir, kind, "list "+gvr.Resource+"."+gvr.Group, perm("list", gvr.Group, gvr.Resource, ""),
		func(ctx context.Context, o metav1.ListOptions) (page[unstructured.Unstructured], error) {
			l, err := ir.r.dynamic.Resource(gvr).List(ctx, o)
			if err != nil {
				return page[unstructured.Unstructured]{}, err
			}
			return page[unstructured.Unstructured]{l.Items, l.GetContinue()}, nil
		})
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
