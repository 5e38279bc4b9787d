// Package inventory is the model of a cluster-wide, read-only inventory:
// what the gap checks (internal/gaps) evaluate their CEL expressions over.
// The cluster reader (internal/cluster) fills one, and a saved inventory
// file can be checked later on a machine that never sees the cluster. Its
// value types (quantities, taints, conditions) are the snapshot package's,
// so a node reads the same way in triage and in the gap checks.
package inventory

import (
	"time"

	"casebook/internal/snapshot"
)

// Version is the format version written into every inventory file;
// Decode refuses others.
const Version = 1

// Kind marks a file as a cluster inventory rather than a triage
// snapshot, so neither decoder mistakes one for the other.
const Kind = "Inventory"

// Inventory is a read-only, cluster-wide picture of the objects the gap
// checks (internal/gaps) look at: nodes, admission webhooks, workloads and
// their pods, quotas and Karpenter's node pools. Unlike a Snapshot it is
// not about one pod. It holds no Secret and no ConfigMap, and of a
// container it keeps only its name, image and resources, so the file can
// be handed to another team.
//
// The JSON field names are also the names the checks' CEL expressions use,
// so renaming one is a breaking change for library/checks.
type Inventory struct {
	Version       int       `json:"version"`
	Kind          string    `json:"kind"`
	CollectedAt   time.Time `json:"collectedAt"`
	ServerVersion string    `json:"serverVersion,omitempty"`
	// Scope is what the reader was limited to, when it was.
	Scope Scope `json:"scope,omitzero"`

	Nodes                []Node                   `json:"nodes"`
	Namespaces           []Namespace              `json:"namespaces"`
	Webhooks             []Webhook                `json:"webhooks"`
	PriorityClasses      []snapshot.PriorityClass `json:"priorityClasses"`
	PodDisruptionBudgets []DisruptionBudget       `json:"podDisruptionBudgets"`
	Deployments          []Workload               `json:"deployments"`
	StatefulSets         []Workload               `json:"statefulSets"`
	DaemonSets           []Workload               `json:"daemonSets"`
	Jobs                 []Workload               `json:"jobs"`
	Pods                 []Pod                    `json:"pods"`
	ResourceQuotas       []NamespaceQuota         `json:"resourceQuotas"`
	NodePools            []NodePool               `json:"nodePools"`
	NodeClasses          []NodeClass              `json:"nodeClasses"`
	// Traffic and autoscaling: Services, the EndpointSlices that say which
	// of their endpoints are ready, Ingresses and HorizontalPodAutoscalers.
	Services                 []Service                 `json:"services"`
	EndpointSlices           []EndpointSlice           `json:"endpointSlices"`
	Ingresses                []Ingress                 `json:"ingresses"`
	HorizontalPodAutoscalers []HorizontalPodAutoscaler `json:"horizontalPodAutoscalers"`

	// Reads says, per kind, how its read went: how many objects, whether
	// the object limit cut it short, whether its API is served at all, and
	// what failed. A check that needs a kind whose read failed reports an
	// error instead of passing.
	Reads []KindRead `json:"reads"`
}

// Scope is what one inventory was limited to: an allow-list of
// namespaces for namespaced kinds, and a label selector for nodes.
type Scope struct {
	Namespaces   []string `json:"namespaces,omitempty"`
	NodeSelector string   `json:"nodeSelector,omitempty"`
}

// KindRead is the outcome of reading one kind.
type KindRead struct {
	Kind      string               `json:"kind"` // a key of Kinds
	Count     int                  `json:"count"`
	Truncated bool                 `json:"truncated,omitempty"`
	NotServed bool                 `json:"notServed,omitempty"` // optional API (Karpenter) absent
	Errors    []snapshot.ReadError `json:"errors,omitempty"`
}

// Kinds lists the kinds an inventory holds, by their JSON name,
// with the permission reading each needs. Checks name these kinds.
var Kinds = map[string]snapshot.Permission{
	"nodes":                    {Verb: "list", Resource: "nodes"},
	"namespaces":               {Verb: "list", Resource: "namespaces"},
	"webhooks":                 {Verb: "list", Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations,mutatingwebhookconfigurations"},
	"priorityClasses":          {Verb: "list", Group: "scheduling.k8s.io", Resource: "priorityclasses"},
	"podDisruptionBudgets":     {Verb: "list", Group: "policy", Resource: "poddisruptionbudgets"},
	"deployments":              {Verb: "list", Group: "apps", Resource: "deployments"},
	"statefulSets":             {Verb: "list", Group: "apps", Resource: "statefulsets"},
	"daemonSets":               {Verb: "list", Group: "apps", Resource: "daemonsets"},
	"jobs":                     {Verb: "list", Group: "batch", Resource: "jobs"},
	"pods":                     {Verb: "list", Resource: "pods"},
	"resourceQuotas":           {Verb: "list", Resource: "resourcequotas"},
	"nodePools":                {Verb: "list", Group: "karpenter.sh", Resource: "nodepools"},
	"nodeClasses":              {Verb: "list", Group: "karpenter.k8s.aws", Resource: "ec2nodeclasses"},
	"services":                 {Verb: "list", Resource: "services"},
	"endpointSlices":           {Verb: "list", Group: "discovery.k8s.io", Resource: "endpointslices"},
	"ingresses":                {Verb: "list", Group: "networking.k8s.io", Resource: "ingresses"},
	"horizontalPodAutoscalers": {Verb: "list", Group: "autoscaling", Resource: "horizontalpodautoscalers"},
}

// Read returns how the read of a kind went; ok is false when the
// inventory does not say (an older or hand-made file).
func (inv *Inventory) Read(kind string) (KindRead, bool) {
	for _, r := range inv.Reads {
		if r.Kind == kind {
			return r, true
		}
	}
	return KindRead{}, false
}

// Node is a node as the gap checks see it.
type Node struct {
	Name                    string                `json:"name"`
	Labels                  map[string]string     `json:"labels"`
	Taints                  []snapshot.Taint      `json:"taints"`
	Unschedulable           bool                  `json:"unschedulable,omitempty"`
	Capacity                snapshot.ResourceList `json:"capacity"`
	Allocatable             snapshot.ResourceList `json:"allocatable"`
	Conditions              []snapshot.Condition  `json:"conditions"`
	KubeletVersion          string                `json:"kubeletVersion,omitempty"`
	OSImage                 string                `json:"osImage,omitempty"`
	KernelVersion           string                `json:"kernelVersion,omitempty"`
	ContainerRuntimeVersion string                `json:"containerRuntimeVersion,omitempty"`
	CreatedAt               time.Time             `json:"createdAt,omitzero"`
}

// Namespace is a namespace's name and labels, which webhook namespace
// selectors are matched against.
type Namespace struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}

// LabelSelector mirrors metav1.LabelSelector. A nil selector in Kubernetes
// means "everything" for webhooks; the reader writes an empty one then.
type LabelSelector struct {
	MatchLabels      map[string]string      `json:"matchLabels"`
	MatchExpressions []snapshot.Requirement `json:"matchExpressions"`
}

// Matches reports whether the selector selects a set of labels, with
// metav1.LabelSelectorAsSelector's rules: every matchLabels pair and every
// expression must hold, an empty selector selects everything, and an
// expression the API would refuse (In or NotIn without values, Exists with
// values, an unknown operator) selects nothing. internal/cluster checks
// this against the real helper.
func (sel LabelSelector) Matches(labels map[string]string) bool {
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range sel.MatchExpressions {
		v, has := labels[r.Key]
		in := false
		for _, want := range r.Values {
			in = in || (has && v == want)
		}
		switch {
		case r.Operator == "In" && len(r.Values) > 0 && in:
		case r.Operator == "NotIn" && len(r.Values) > 0 && !in:
		case r.Operator == "Exists" && len(r.Values) == 0 && has:
		case r.Operator == "DoesNotExist" && len(r.Values) == 0 && !has:
		default:
			return false
		}
	}
	return true
}

// Webhook is one webhook of a Validating- or MutatingWebhookConfiguration,
// flattened: the configuration's kind and name are on every webhook.
type Webhook struct {
	ConfigKind        string        `json:"configKind"` // ValidatingWebhookConfiguration or MutatingWebhookConfiguration
	ConfigName        string        `json:"configName"`
	Name              string        `json:"name"`
	FailurePolicy     string        `json:"failurePolicy"` // Fail or Ignore; the API's default (Fail) is filled in
	TimeoutSeconds    int32         `json:"timeoutSeconds"`
	NamespaceSelector LabelSelector `json:"namespaceSelector"`
	ObjectSelector    LabelSelector `json:"objectSelector"`
	Rules             []WebhookRule `json:"rules"`
	// Service is namespace/name of the backend, or URL's host for an
	// external one.
	Service string `json:"service,omitempty"`
	// CABundleNotAfter is the earliest expiry among the certificates of
	// the caBundle (the CA the API server trusts for this webhook); zero
	// when there is no caBundle.
	CABundleNotAfter time.Time `json:"caBundleNotAfter,omitzero"`
	CABundleSubject  string    `json:"caBundleSubject,omitempty"`
}

// WebhookRule is one rule of a webhook: what it intercepts.
type WebhookRule struct {
	Operations []string `json:"operations"`
	APIGroups  []string `json:"apiGroups"`
	Resources  []string `json:"resources"`
	Scope      string   `json:"scope"` // Cluster, Namespaced or * (the default)
}

// DisruptionBudget is a PodDisruptionBudget with what its status says.
type DisruptionBudget struct {
	Namespace          string        `json:"namespace"`
	Name               string        `json:"name"`
	Selector           LabelSelector `json:"selector"`
	MinAvailable       string        `json:"minAvailable,omitempty"`
	MaxUnavailable     string        `json:"maxUnavailable,omitempty"`
	DisruptionsAllowed int32         `json:"disruptionsAllowed"`
	ExpectedPods       int32         `json:"expectedPods"`
}

// Workload is a Deployment, StatefulSet, DaemonSet or Job with its pod
// template. Replicas is the desired count (desiredNumberScheduled for a
// DaemonSet, parallelism for a Job), ReadyReplicas the ready count.
type Workload struct {
	Kind          string            `json:"kind"`
	Namespace     string            `json:"namespace"`
	Name          string            `json:"name"`
	Labels        map[string]string `json:"labels"`
	Replicas      int32             `json:"replicas"`
	ReadyReplicas int32             `json:"readyReplicas"`
	Selector      LabelSelector     `json:"selector"`
	Template      PodTemplate       `json:"template"`
	// GPUComponent is the NVIDIA GPU stack component a DaemonSet is
	// (driver, toolkit, device-plugin, other), "" for anything else.
	GPUComponent string `json:"gpuComponent,omitempty"`
	// FeatureGates is the value of a --feature-gates argument or a
	// FEATURE_GATES variable of its containers (Karpenter's NodeRepair
	// is switched on there); nothing else of args or env is kept.
	FeatureGates string `json:"featureGates,omitempty"`
	// Jobs only: 0 means unset.
	ActiveDeadlineSeconds int64 `json:"activeDeadlineSeconds,omitempty"`
	BackoffLimit          int32 `json:"backoffLimit,omitempty"`
}

// PodTemplate is what of a pod spec the checks read.
type PodTemplate struct {
	Labels            map[string]string           `json:"labels"`
	NodeSelector      map[string]string           `json:"nodeSelector"`
	NodeAffinity      []snapshot.NodeSelectorTerm `json:"nodeAffinity"` // required terms, ORed
	Tolerations       []snapshot.Toleration       `json:"tolerations"`
	PriorityClassName string                      `json:"priorityClassName,omitempty"`
	Containers        []ContainerSpec             `json:"containers"`
	InitContainers    []ContainerSpec             `json:"initContainers"`
}

// ContainerSpec is a container's name, image and resources.
type ContainerSpec struct {
	Name     string                `json:"name"`
	Image    string                `json:"image,omitempty"`
	Requests snapshot.ResourceList `json:"requests"`
	Limits   snapshot.ResourceList `json:"limits"`
}

// Pod is a non-terminated pod.
type Pod struct {
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Labels    map[string]string `json:"labels"`
	// Owner is the controller as Kind/name, with a ReplicaSet made by a
	// Deployment reported as that Deployment; "" for a bare pod.
	Owner             string      `json:"owner,omitempty"`
	NodeName          string      `json:"nodeName,omitempty"`
	Phase             string      `json:"phase"`
	Ready             bool        `json:"ready"`
	PriorityClassName string      `json:"priorityClassName,omitempty"`
	Spec              PodTemplate `json:"spec"`
	// GPUComponent is the GPU stack component of the DaemonSet that owns
	// the pod, as on Workload.
	GPUComponent string `json:"gpuComponent,omitempty"`
}

// NamespaceQuota is a ResourceQuota with its namespace.
type NamespaceQuota struct {
	Namespace string                `json:"namespace"`
	Name      string                `json:"name"`
	Hard      snapshot.ResourceList `json:"hard"`
	Used      snapshot.ResourceList `json:"used"`
}

// NodePool is a Karpenter NodePool (karpenter.sh).
type NodePool struct {
	Name         string                 `json:"name"`
	Labels       map[string]string      `json:"labels"` // spec.template.metadata.labels
	Taints       []snapshot.Taint       `json:"taints"`
	Requirements []snapshot.Requirement `json:"requirements"`
	NodeClass    string                 `json:"nodeClass,omitempty"` // Kind/name of spec.template.spec.nodeClassRef
}

// NodeClass is a Karpenter EC2NodeClass (karpenter.k8s.aws).
type NodeClass struct {
	Name      string   `json:"name"`
	AMIFamily string   `json:"amiFamily,omitempty"`
	AMIAlias  []string `json:"amiAliases"` // amiSelectorTerms[].alias, e.g. bottlerocket@latest
}

// Service is a Service as the gap checks see it: whom its selector picks.
type Service struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Type      string `json:"type"` // ClusterIP, NodePort, LoadBalancer or ExternalName
	// Selector is spec.selector; empty for a Service whose endpoints are
	// managed by hand or by another controller.
	Selector map[string]string `json:"selector"`
}

// EndpointSlice is one EndpointSlice, counted: how many endpoints it holds
// and how many of them are ready.
type EndpointSlice struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Service   string `json:"service"` // the kubernetes.io/service-name label
	Endpoints int32  `json:"endpoints"`
	Ready     int32  `json:"ready"`
}

// Ingress is an Ingress with the Services its rules and default backend
// send traffic to. TLS Secrets are named, never read.
type Ingress struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	ClassName string `json:"className,omitempty"`
	// Backends are the names of the Services the Ingress routes to, each
	// once (resource backends are left out).
	Backends   []string `json:"backends"`
	TLSSecrets []string `json:"tlsSecrets"`
}

// HorizontalPodAutoscaler is an HPA with its status conditions, which say
// whether it can read its metrics (ScalingActive) and scale its target.
type HorizontalPodAutoscaler struct {
	Namespace       string               `json:"namespace"`
	Name            string               `json:"name"`
	Target          string               `json:"target"` // Kind/name of scaleTargetRef
	MinReplicas     int32                `json:"minReplicas"`
	MaxReplicas     int32                `json:"maxReplicas"`
	CurrentReplicas int32                `json:"currentReplicas"`
	DesiredReplicas int32                `json:"desiredReplicas"`
	Conditions      []snapshot.Condition `json:"conditions"`
}
