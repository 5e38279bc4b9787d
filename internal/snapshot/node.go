package snapshot

import "time"

// Node holds what triage reads of a node. Requested is the sum of the
// requests of the non-terminated pods bound to it, read with a field
// selector per node; RequestedKnown is false when those pods were not read
// (too many candidate nodes, or the read failed), and then Free is unknown.
type Node struct {
	Name           string            `json:"name"`
	Labels         map[string]string `json:"labels,omitempty"`
	Taints         []Taint           `json:"taints,omitempty"`
	Unschedulable  bool              `json:"unschedulable,omitempty"`
	Capacity       ResourceList      `json:"capacity,omitempty"`
	Allocatable    ResourceList      `json:"allocatable,omitempty"`
	Requested      ResourceList      `json:"requested,omitempty"`
	RequestedKnown bool              `json:"requestedKnown,omitempty"`
	PodCount       int               `json:"podCount,omitempty"`
	Conditions     []Condition       `json:"conditions,omitempty"`
	KubeletVersion string            `json:"kubeletVersion,omitempty"`
	OSImage        string            `json:"osImage,omitempty"`
	KernelVersion  string            `json:"kernelVersion,omitempty"`
	CreatedAt      time.Time         `json:"createdAt,omitzero"`
	// The node's addresses, architecture and container runtime, as kubectl
	// get nodes -o wide and describe node show them.
	InternalIP       string `json:"internalIP,omitempty"`
	ExternalIP       string `json:"externalIP,omitempty"`
	Architecture     string `json:"architecture,omitempty"`
	ContainerRuntime string `json:"containerRuntime,omitempty"`
}

// Taint mirrors core/v1 Taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// String renders a taint as kubectl taint takes it: key=value:Effect.
func (t Taint) String() string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	return s + ":" + t.Effect
}

// Free is allocatable minus requested for one resource; ok is false when
// the pods on the node were not read.
func (n *Node) Free(resource string) (Quantity, bool) {
	if !n.RequestedKnown {
		return Quantity{}, false
	}
	return NewQuantity(n.Allocatable[resource].Value() - n.Requested[resource].Value()), true
}

// Labels that GPU nodes carry: GPU Feature Discovery's and Node Feature
// Discovery's PCI vendor label for NVIDIA (vendor id 10de).
const (
	LabelGPUPresent = "nvidia.com/gpu.present"
	LabelGPUProduct = "nvidia.com/gpu.product"
	LabelGPUCount   = "nvidia.com/gpu.count"
	LabelMIGConfig  = "nvidia.com/mig.config"
	LabelMIGStrat   = "nvidia.com/mig.strategy"
	LabelNFDNvidia  = "feature.node.kubernetes.io/pci-10de.present"
)

// HasGPULabels reports whether the node's labels say it has NVIDIA GPUs,
// whatever its allocatable says.
func (n *Node) HasGPULabels() bool {
	return n.Labels[LabelGPUPresent] == "true" || n.Labels[LabelNFDNvidia] == "true" || n.Labels[LabelGPUProduct] != ""
}

// GPUResources lists the GPU resources the node advertises with a non-zero
// allocatable count.
func (n *Node) GPUResources() []string {
	var out []string
	for _, name := range n.Allocatable.Names() {
		if IsGPUResource(name) && n.Allocatable[name].Value() > 0 {
			out = append(out, name)
		}
	}
	return out
}

// IsGPUNode reports whether the node has GPUs by its labels, capacity or
// allocatable.
func (n *Node) IsGPUNode() bool {
	if n.HasGPULabels() || len(n.GPUResources()) > 0 {
		return true
	}
	for name, q := range n.Capacity {
		if IsGPUResource(name) && q.Value() > 0 {
			return true
		}
	}
	return false
}

// Ready reports the node's Ready condition; ok is false when it has none.
func (n *Node) Ready() (ready, ok bool) {
	c, ok := FindCondition(n.Conditions, "Ready")
	return c.Status == "True", ok
}

// Node returns the node with the given name.
func (s *Snapshot) Node(name string) (*Node, bool) {
	for i := range s.Nodes {
		if s.Nodes[i].Name == name {
			return &s.Nodes[i], true
		}
	}
	return nil, false
}
