package snapshot

import "time"

// Pod holds the parts of a pod's spec and status that triage reads.
type Pod struct {
	Namespace         string            `json:"namespace"`
	Name              string            `json:"name"`
	UID               string            `json:"uid,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	CreatedAt         time.Time         `json:"createdAt,omitzero"`
	NodeName          string            `json:"nodeName,omitempty"`
	SchedulerName     string            `json:"schedulerName,omitempty"`
	PriorityClassName string            `json:"priorityClassName,omitempty"`
	Priority          *int32            `json:"priority,omitempty"`
	PreemptionPolicy  string            `json:"preemptionPolicy,omitempty"`
	NodeSelector      map[string]string `json:"nodeSelector,omitempty"`
	// RequiredNodeAffinity is requiredDuringSchedulingIgnoredDuringExecution:
	// the terms are ORed, the requirements inside a term ANDed.
	RequiredNodeAffinity []NodeSelectorTerm `json:"requiredNodeAffinity,omitempty"`
	// AffinitySummary names the pod (anti-)affinity and topology spread
	// rules in words; they are shown, not evaluated.
	AffinitySummary []string     `json:"affinitySummary,omitempty"`
	Tolerations     []Toleration `json:"tolerations,omitempty"`
	Containers      []Container  `json:"containers"`
	InitContainers  []Container  `json:"initContainers,omitempty"`
	Volumes         []Volume     `json:"volumes,omitempty"`
	ResourceClaims  []PodClaim   `json:"resourceClaims,omitempty"`
	Owner           *OwnerRef    `json:"owner,omitempty"`
	Phase           string       `json:"phase"`
	Reason          string       `json:"reason,omitempty"` // Evicted, ...
	Message         string       `json:"message,omitempty"`
	QOSClass        string       `json:"qosClass,omitempty"`
	Conditions      []Condition  `json:"conditions,omitempty"`
	StartTime       *time.Time   `json:"startTime,omitempty"`
	// IP and HostIP are status.podIP and status.hostIP, as kubectl shows
	// them.
	IP     string `json:"ip,omitempty"`
	HostIP string `json:"hostIP,omitempty"`
}

// NodeSelectorTerm is one ORed term of a required node affinity.
type NodeSelectorTerm struct {
	MatchExpressions []Requirement `json:"matchExpressions,omitempty"`
	MatchFields      []Requirement `json:"matchFields,omitempty"`
}

// Requirement is one label (or field) requirement: In, NotIn, Exists,
// DoesNotExist, Gt or Lt.
type Requirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// Toleration mirrors core/v1 Toleration.
type Toleration struct {
	Key      string `json:"key,omitempty"`
	Operator string `json:"operator,omitempty"` // Equal (default) or Exists
	Value    string `json:"value,omitempty"`
	Effect   string `json:"effect,omitempty"` // "" matches every effect
	// Seconds is tolerationSeconds: how long a NoExecute taint is
	// tolerated before eviction.
	Seconds *int64 `json:"tolerationSeconds,omitempty"`
}

// Container merges a container's spec (resources) with its status.
type Container struct {
	Name         string         `json:"name"`
	Image        string         `json:"image,omitempty"`
	Requests     ResourceList   `json:"requests,omitempty"`
	Limits       ResourceList   `json:"limits,omitempty"`
	Ready        bool           `json:"ready"`
	Started      *bool          `json:"started,omitempty"`
	RestartCount int32          `json:"restartCount"`
	State        ContainerState `json:"state,omitzero"`
	LastState    ContainerState `json:"lastState,omitzero"`
	// Restartable marks a sidecar (an init container with restartPolicy
	// Always), which keeps its requests for the pod's whole life.
	Restartable bool `json:"restartable,omitempty"`
}

// ContainerState is the one state a container is in: waiting, running or
// terminated (Kind), with the kubelet's reason and message.
type ContainerState struct {
	Kind       string     `json:"kind,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	Message    string     `json:"message,omitempty"`
	ExitCode   int32      `json:"exitCode,omitempty"`
	Signal     int32      `json:"signal,omitempty"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// Volume is one pod volume; only claims are followed up.
type Volume struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // persistentVolumeClaim, ephemeral, configMap, secret, emptyDir, ...
	// ClaimName is the PVC a persistentVolumeClaim or ephemeral volume uses.
	ClaimName string `json:"claimName,omitempty"`
}

// PodClaim is one entry of spec.resourceClaims with the claim it resolved
// to (status.resourceClaimStatuses for claims made from templates).
type PodClaim struct {
	Name              string `json:"name"`
	ResourceClaimName string `json:"resourceClaimName,omitempty"`
	TemplateName      string `json:"templateName,omitempty"`
}

// OwnerRef is the controller of an object.
type OwnerRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// Condition is a status condition of a pod, node or workload.
type Condition struct {
	Type               string     `json:"type"`
	Status             string     `json:"status"`
	Reason             string     `json:"reason,omitempty"`
	Message            string     `json:"message,omitempty"`
	LastTransitionTime *time.Time `json:"lastTransitionTime,omitempty"`
	// LastHeartbeatTime is set on node conditions: when the kubelet last
	// reported them (a stale one is how a dead kubelet shows).
	LastHeartbeatTime *time.Time `json:"lastHeartbeatTime,omitempty"`
}

// FindCondition returns the condition of the given type.
func FindCondition(cs []Condition, typ string) (Condition, bool) {
	for _, c := range cs {
		if c.Type == typ {
			return c, true
		}
	}
	return Condition{}, false
}

// Requests returns what the scheduler counts for the pod: the sum of the
// app containers and sidecars, or the largest init container if that is
// more (the rule of resourcehelper.PodRequests, without overhead).
func (p *Pod) Requests() ResourceList {
	sum := ResourceList{}
	for _, c := range p.Containers {
		sum.Add(c.Requests)
	}
	sidecars := ResourceList{}
	initMax := ResourceList{}
	for _, c := range p.InitContainers {
		if c.Restartable {
			sidecars.Add(c.Requests)
			sum.Add(c.Requests)
			continue
		}
		// A regular init container runs next to the sidecars started
		// before it.
		need := ResourceList{}
		need.Add(sidecars)
		need.Add(c.Requests)
		initMax.Max(need)
	}
	sum.Max(initMax)
	return sum
}

// AllContainers lists init and app containers, init first, as kubectl
// does.
func (p *Pod) AllContainers() []Container {
	return append(append([]Container{}, p.InitContainers...), p.Containers...)
}

// Scheduled reports whether the pod is bound to a node.
func (p *Pod) Scheduled() bool { return p.NodeName != "" }
