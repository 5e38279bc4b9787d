package gaps

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// The CEL types are declared from the Go structs of inventory.Inventory,
// with their JSON names, so a check reads fields exactly as they appear in
// a saved inventory file, and a field the inventory never carries fails to
// compile instead of evaluating to nothing.
var (
	quantityType  = cel.ObjectType("snapshot.Quantity")
	resourcesType = cel.MapType(cel.StringType, quantityType)
	podType       = cel.ObjectType("inventory.Pod")
	nodeType      = cel.ObjectType("inventory.Node")
	selectorType  = cel.ObjectType("inventory.LabelSelector")
	templateType  = cel.ObjectType("inventory.PodTemplate")
	labelsType    = cel.MapType(cel.StringType, cel.StringType)
)

// kindTypes maps each inventory kind to the CEL type of one of its objects,
// read from the Inventory struct so the two cannot drift apart.
var kindTypes = func() map[string]*cel.Type {
	out := map[string]*cel.Type{}
	t := reflect.TypeFor[inventory.Inventory]()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Slice || f.Name == "Reads" {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out[name] = cel.ObjectType(f.Type.Elem().String())
	}
	return out
}()

var (
	baseEnvOnce sync.Once
	baseEnv     *cel.Env
	baseEnvErr  error
)

// newEnv returns the environment every check compiles in: the inventory
// types, the variables inventory, now, podsByNode, podsByOwner,
// podsByNamespace and slicesByService, CEL's
// string, list, set and optional extensions, and the helpers below. It is
// built once; each check extends it with `object` when it has `each`.
func newEnv() (*cel.Env, error) {
	baseEnvOnce.Do(func() {
		baseEnv, baseEnvErr = cel.NewEnv(
			ext.NativeTypes(reflect.TypeFor[inventory.Inventory](), ext.ParseStructTag("json")),
			cel.OptionalTypes(),
			ext.Strings(), ext.Lists(), ext.Sets(), ext.Bindings(),
			cel.Variable("inventory", cel.ObjectType("inventory.Inventory")),
			// now is when the inventory was collected, so a saved file is
			// judged as of the day it was read.
			cel.Variable("now", cel.TimestampType),
			// podsByNode and podsByOwner index inventory.pods by nodeName
			// and by "namespace/Kind/name" of the owner, so a check over
			// every node or workload need not scan every pod each time.
			cel.Variable("podsByNode", cel.MapType(cel.StringType, cel.ListType(podType))),
			cel.Variable("podsByOwner", cel.MapType(cel.StringType, cel.ListType(podType))),
			// podsByNamespace and slicesByService index pods by namespace
			// and EndpointSlices by "namespace/service", so a check over
			// every Service need not scan every pod and slice each time.
			cel.Variable("podsByNamespace", cel.MapType(cel.StringType, cel.ListType(podType))),
			cel.Variable("slicesByService", cel.MapType(cel.StringType, cel.ListType(cel.ObjectType("inventory.EndpointSlice")))),
			cel.Function("value", cel.MemberOverload("quantity_value", []*cel.Type{quantityType}, cel.DoubleType,
				cel.UnaryBinding(quantityValue))),
			cel.Function("amount", cel.MemberOverload("resources_amount", []*cel.Type{resourcesType, cel.StringType}, cel.DoubleType,
				cel.BinaryBinding(resourceAmount))),
			cel.Function("selects", cel.MemberOverload("selector_selects_labels", []*cel.Type{selectorType, labelsType}, cel.BoolType,
				cel.BinaryBinding(selectorMatches))),
			cel.Function("isGPU", cel.MemberOverload("node_is_gpu", []*cel.Type{nodeType}, cel.BoolType,
				cel.UnaryBinding(nodeIsGPU))),
			cel.Function("pool", cel.MemberOverload("node_pool", []*cel.Type{nodeType}, cel.StringType,
				cel.UnaryBinding(nodePool))),
			cel.Function("untolerated", cel.MemberOverload("template_untolerated_node", []*cel.Type{templateType, nodeType},
				cel.ListType(cel.StringType), cel.BinaryBinding(untoleratedTaints))),
			cel.Function("placesOn", cel.MemberOverload("template_places_on_node", []*cel.Type{templateType, nodeType},
				cel.BoolType, cel.BinaryBinding(placesOn))),
		)
	})
	return baseEnv, baseEnvErr
}

// native unwraps a CEL value into the Go value it adapts.
func native[T any](v ref.Val) (T, error) {
	switch x := v.Value().(type) {
	case T:
		return x, nil
	case *T:
		return *x, nil
	}
	var zero T
	out, err := v.ConvertToNative(reflect.TypeFor[T]())
	if err != nil {
		return zero, err
	}
	t, ok := out.(T)
	if !ok {
		return zero, fmt.Errorf("not a %T", zero)
	}
	return t, nil
}

// quantityValue is q.value(): a quantity in base units (bytes, cores, devices).
func quantityValue(v ref.Val) ref.Val {
	q, err := native[snapshot.Quantity](v)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	return types.Double(q.Value())
}

// resourceAmount is resources.amount("nvidia.com/gpu"): the quantity in
// base units, 0 when the resource is absent, which is what Kubernetes
// means by an absent resource.
func resourceAmount(m, name ref.Val) ref.Val {
	mapper, ok := m.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(m)
	}
	v, found := mapper.Find(name)
	if !found {
		return types.Double(0)
	}
	return quantityValue(v)
}

// selectorMatches is selector.selects(labels), with metav1.LabelSelector's
// rules: every matchLabels pair and every expression must hold; an empty
// selector matches everything.
func selectorMatches(s, l ref.Val) ref.Val {
	sel, err := native[inventory.LabelSelector](s)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	labels, err := native[map[string]string](l)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	return types.Bool(sel.Matches(labels))
}

func nodeIsGPU(v ref.Val) ref.Val {
	n, err := native[inventory.Node](v)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	return types.Bool(IsGPUNode(&n))
}

// IsGPUNode reports whether a node has GPUs by its labels (GPU Feature
// Discovery, Node Feature Discovery) or by its capacity, as the triage
// probes judge it (snapshot.Node.IsGPUNode).
func IsGPUNode(n *inventory.Node) bool {
	tn := snapshot.Node{Labels: n.Labels, Capacity: n.Capacity, Allocatable: n.Allocatable}
	return tn.IsGPUNode()
}

// poolLabels name a node's pool on Karpenter, EKS, GKE and AKS, in that
// order of preference.
var poolLabels = []string{"karpenter.sh/nodepool", "eks.amazonaws.com/nodegroup", "cloud.google.com/gke-nodepool", "kubernetes.azure.com/agentpool", "agentpool"}

func nodePool(v ref.Val) ref.Val {
	n, err := native[inventory.Node](v)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	return types.String(NodePool(&n))
}

// NodePool is the pool a node belongs to by the first pool label it
// carries, "" when it carries none.
func NodePool(n *inventory.Node) string {
	for _, l := range poolLabels {
		if v := n.Labels[l]; v != "" {
			return v
		}
	}
	return ""
}

// untoleratedTaints is template.untolerated(node): the node's NoSchedule and
// NoExecute taints that the pod template does not tolerate, as key=value:Effect,
// with the scheduler's toleration rules (snapshot.Toleration.Tolerates).
func untoleratedTaints(t, n ref.Val) ref.Val {
	tmpl, err := native[inventory.PodTemplate](t)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	node, err := native[inventory.Node](n)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	var out []string
	for _, taint := range snapshot.UntoleratedTaints(node.Taints, tmpl.Tolerations) {
		out = append(out, taint.String())
	}
	return types.NewStringList(types.DefaultTypeAdapter, out)
}

// placesOn is template.placesOn(node): whether the template's nodeSelector
// and required node affinity let its pods onto the node (taints aside), as
// a DaemonSet decides which nodes to run on.
func placesOn(t, n ref.Val) ref.Val {
	tmpl, err := native[inventory.PodTemplate](t)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	node, err := native[inventory.Node](n)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	p := snapshot.Pod{NodeSelector: tmpl.NodeSelector, RequiredNodeAffinity: tmpl.NodeAffinity}
	return types.Bool(p.MatchesNode(&snapshot.Node{Name: node.Name, Labels: node.Labels}))
}
