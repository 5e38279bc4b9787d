// Package snapshot is the model of what Casebook read from a cluster for
// one triage, as plain JSON-serialisable structs, and its strict decoding.
// It imports nothing from Kubernetes: the cluster reader (internal/cluster)
// fills a Snapshot, the probes (internal/probe) answer the wizard from it,
// and a Snapshot saved as JSON can be triaged later on a machine that never
// sees the cluster. The few Kubernetes rules the probes need (quantities,
// toleration and node-affinity matching) are implemented here over these
// plain types; internal/cluster checks them against the real helpers of
// k8s.io/api and k8s.io/component-helpers case by case.
package snapshot

import "time"

// Version is the format version written into every snapshot file. Decode
// refuses other versions rather than guessing at renamed fields.
const Version = 1

// Snapshot is everything collected for one pod (or one workload whose pods
// were never created). Lists hold only what bears on that pod: its events,
// the nodes it could run on, its namespace's quotas, and the GPU stack.
type Snapshot struct {
	Version     int       `json:"version"`
	CollectedAt time.Time `json:"collectedAt"`
	// ServerVersion is the API server's gitVersion, for the reader.
	ServerVersion string `json:"serverVersion,omitempty"`
	Target        Target `json:"target"`

	Pod    *Pod    `json:"pod,omitempty"`
	Events []Event `json:"events,omitempty"`
	// Owners is the controller chain, nearest first (ReplicaSet, then
	// Deployment). For a target whose pods were refused (quota) it is the
	// only thing there is.
	Owners         []Owner         `json:"owners,omitempty"`
	Nodes          []Node          `json:"nodes,omitempty"`
	Quotas         []Quota         `json:"quotas,omitempty"`
	PriorityClass  *PriorityClass  `json:"priorityClass,omitempty"`
	PVCs           []PVC           `json:"pvcs,omitempty"`
	StorageClasses []StorageClass  `json:"storageClasses,omitempty"`
	ResourceClaims []ResourceClaim `json:"resourceClaims,omitempty"`
	DeviceClasses  []DeviceClass   `json:"deviceClasses,omitempty"`
	// DriverSlices, per driver the device classes name, what its
	// ResourceSlices offer.
	DriverSlices  []DriverSlices  `json:"driverSlices,omitempty"`
	DaemonSets    []DaemonSet     `json:"gpuDaemonSets,omitempty"`
	ClusterPolicy *ClusterPolicy  `json:"clusterPolicy,omitempty"`
	Logs          []ContainerLog  `json:"logs,omitempty"`
	APIs          map[string]bool `json:"apis,omitempty"`
	// The targets other than pods and workloads, and what bears on them:
	// the webhooks a refusal names, the attachments of the pod's volumes.
	Service           *Service           `json:"service,omitempty"`
	Ingress           *Ingress           `json:"ingress,omitempty"`
	HPA               *HPA               `json:"hpa,omitempty"`
	Webhooks          []Webhook          `json:"webhooks,omitempty"`
	VolumeAttachments []VolumeAttachment `json:"volumeAttachments,omitempty"`
	ReadErrors        []ReadError        `json:"readErrors,omitempty"`
}

// Target names what was asked about: a pod, or a workload (kind and name)
// when the question is why it has no pods.
type Target struct {
	Namespace string `json:"namespace"`
	Kind      string `json:"kind"` // Pod, Deployment, ReplicaSet, StatefulSet, Job, CronJob, Service, Ingress, HorizontalPodAutoscaler, PersistentVolumeClaim
	Name      string `json:"name"`
}

// String renders the target the way kubectl names objects.
func (t Target) String() string {
	if t.Kind == "" || t.Kind == "Pod" {
		return t.Namespace + "/" + t.Name
	}
	return t.Namespace + "/" + t.Kind + "/" + t.Name
}

// Scan is the result of scanning a namespace: one snapshot per troubled pod
// or workload, and what could not be read while looking for them.
type Scan struct {
	Version     int         `json:"version"`
	CollectedAt time.Time   `json:"collectedAt"`
	Namespace   string      `json:"namespace"`
	Snapshots   []Snapshot  `json:"snapshots"`
	Truncated   bool        `json:"truncated,omitempty"`
	ReadErrors  []ReadError `json:"readErrors,omitempty"`
}

// ReadError is one read that failed. A probe that needed it answers
// unknown, and the wizard asks the person instead, naming the permission
// that would have let Casebook answer.
type ReadError struct {
	What       string     `json:"what"` // "list nodes", "get pod team-a/llm-0"
	Kind       string     `json:"kind"` // see the ReadError* constants
	Permission Permission `json:"permission"`
	Message    string     `json:"message,omitempty"`
}

// Kinds of ReadError.
const (
	ReadForbidden   = "forbidden"
	ReadTimeout     = "timeout"
	ReadUnavailable = "unavailable" // API not served, or the server not reachable
	ReadNotFound    = "notfound"
	ReadOther       = "error"
)

// Permission is the RBAC rule a read needs, so a Forbidden read can say
// exactly what to grant.
type Permission struct {
	Verb      string `json:"verb"`
	Group     string `json:"group"` // "" is the core group
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"` // "" for cluster-scoped or all namespaces
}

// String renders the permission as a person would grant it:
// "list nodes" or "list resourcequotas in namespace team-a".
func (p Permission) String() string {
	res := p.Resource
	if p.Group != "" {
		res += "." + p.Group
	}
	s := p.Verb + " " + res
	if p.Namespace != "" {
		s += " in namespace " + p.Namespace
	}
	return s
}

// ReadFailed returns the first recorded failure of a read whose What has
// the given prefix, so a probe can say why it does not know.
func (s *Snapshot) ReadFailed(prefix string) (ReadError, bool) {
	for _, e := range s.ReadErrors {
		if len(e.What) >= len(prefix) && e.What[:len(prefix)] == prefix {
			return e, true
		}
	}
	return ReadError{}, false
}
