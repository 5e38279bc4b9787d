package snapshot

import "time"

// Event is one core/v1 (or events.k8s.io) event about an object triage
// cares about: the pod, its PVCs, its owners.
type Event struct {
	Type      string    `json:"type"` // Normal or Warning
	Reason    string    `json:"reason"`
	Message   string    `json:"message"`
	Object    ObjectRef `json:"object"`
	Source    string    `json:"source,omitempty"` // default-scheduler, kubelet, replicaset-controller
	Count     int32     `json:"count,omitempty"`
	FirstTime time.Time `json:"firstTime,omitzero"`
	LastTime  time.Time `json:"lastTime,omitzero"`
}

// ObjectRef names an object in evidence and events.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String renders the reference as kubectl names objects: kind/name, with
// the namespace in front when there is one.
func (o ObjectRef) String() string {
	s := lowerKind(o.Kind) + "/" + o.Name
	if o.Namespace != "" {
		s = o.Namespace + " " + s
	}
	return s
}

func lowerKind(k string) string {
	b := []byte(k)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Owner is one controller in the pod's owner chain.
type Owner struct {
	Kind          string      `json:"kind"`
	Namespace     string      `json:"namespace"`
	Name          string      `json:"name"`
	Replicas      *int32      `json:"replicas,omitempty"`
	ReadyReplicas int32       `json:"readyReplicas,omitempty"`
	Conditions    []Condition `json:"conditions,omitempty"`
	// CreatedAt and the status counts below let a recording be shown as
	// kubectl get and describe show the workload (the drill runner).
	CreatedAt         time.Time `json:"createdAt,omitzero"`
	CurrentReplicas   int32     `json:"currentReplicas,omitempty"`
	UpdatedReplicas   int32     `json:"updatedReplicas,omitempty"`
	AvailableReplicas int32     `json:"availableReplicas,omitempty"`
}

// Quota is one ResourceQuota of the pod's namespace.
type Quota struct {
	Name      string       `json:"name"`
	Hard      ResourceList `json:"hard,omitempty"`
	Used      ResourceList `json:"used,omitempty"`
	CreatedAt time.Time    `json:"createdAt,omitzero"`
}

// PriorityClass is the pod's priority class.
type PriorityClass struct {
	Name             string `json:"name"`
	Value            int32  `json:"value"`
	PreemptionPolicy string `json:"preemptionPolicy,omitempty"`
	GlobalDefault    bool   `json:"globalDefault,omitempty"`
}

// PVC is one PersistentVolumeClaim the pod mounts; Missing marks a claim
// the pod names that does not exist.
type PVC struct {
	Name             string   `json:"name"`
	Phase            string   `json:"phase,omitempty"`
	StorageClassName *string  `json:"storageClassName,omitempty"`
	VolumeName       string   `json:"volumeName,omitempty"`
	AccessModes      []string `json:"accessModes,omitempty"`
	Request          string   `json:"request,omitempty"`
	Missing          bool     `json:"missing,omitempty"`
	// Capacity is status.capacity[storage] of a bound claim.
	Capacity  string    `json:"capacity,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
}

// StorageClass is a class a PVC names.
type StorageClass struct {
	Name              string `json:"name"`
	Provisioner       string `json:"provisioner"`
	VolumeBindingMode string `json:"volumeBindingMode,omitempty"`
	Default           bool   `json:"default,omitempty"`
	Missing           bool   `json:"missing,omitempty"`
}

// ResourceClaim is a DRA claim of the pod.
type ResourceClaim struct {
	Name        string          `json:"name"`
	Requests    []DeviceRequest `json:"requests,omitempty"`
	Allocated   bool            `json:"allocated"`
	ReservedFor []string        `json:"reservedFor,omitempty"`
	Missing     bool            `json:"missing,omitempty"`
}

// DeviceRequest is one request of a claim.
type DeviceRequest struct {
	Name            string `json:"name"`
	DeviceClassName string `json:"deviceClassName,omitempty"`
	Count           int64  `json:"count,omitempty"`
}

// DeviceClass is a DRA DeviceClass a claim names; Missing marks one that
// does not exist.
type DeviceClass struct {
	Name    string `json:"name"`
	Missing bool   `json:"missing,omitempty"`
	// Drivers are the DRA drivers its selectors name
	// (device.driver == "gpu.nvidia.com"); empty when they name none.
	Drivers []string `json:"drivers,omitempty"`
}

// DriverSlices sums up the ResourceSlices one DRA driver publishes: where
// its kubelet plugin runs and how many devices it offers. A driver with
// none has no plugin running, and no claim for its devices can be
// allocated.
type DriverSlices struct {
	Driver  string   `json:"driver"`
	Slices  int      `json:"slices"`
	Devices int      `json:"devices"`
	Nodes   []string `json:"nodes,omitempty"`
}

// DaemonSet is an NVIDIA GPU stack DaemonSet (driver, container toolkit,
// device plugin, validators) with the pods it runs.
type DaemonSet struct {
	Namespace              string            `json:"namespace"`
	Name                   string            `json:"name"`
	Component              string            `json:"component"` // see the Component* constants
	Labels                 map[string]string `json:"labels,omitempty"`
	NodeSelector           map[string]string `json:"nodeSelector,omitempty"`
	DesiredNumberScheduled int32             `json:"desired"`
	NumberReady            int32             `json:"ready"`
	NumberUnavailable      int32             `json:"unavailable,omitempty"`
	// CurrentNumberScheduled, UpdatedNumberScheduled, NumberAvailable and
	// CreatedAt complete kubectl get daemonsets for the drill runner.
	CurrentNumberScheduled int32      `json:"current,omitempty"`
	UpdatedNumberScheduled int32      `json:"updated,omitempty"`
	NumberAvailable        int32      `json:"available,omitempty"`
	CreatedAt              time.Time  `json:"createdAt,omitzero"`
	Pods                   []PodBrief `json:"pods,omitempty"`
	PodsKnown              bool       `json:"podsKnown,omitempty"`
}

// GPU stack components a DaemonSet can be.
const (
	ComponentDriver       = "driver"
	ComponentToolkit      = "toolkit"
	ComponentDevicePlugin = "device-plugin"
	ComponentOther        = "other"
)

// PodBrief is a pod of a GPU stack DaemonSet: where it runs and whether it
// is Ready, with the reason of a container that is not.
type PodBrief struct {
	Name         string `json:"name"`
	NodeName     string `json:"nodeName,omitempty"`
	Phase        string `json:"phase"`
	Ready        bool   `json:"ready"`
	Reason       string `json:"reason,omitempty"` // CrashLoopBackOff, Init:0/1, ...
	Message      string `json:"message,omitempty"`
	RestartCount int32  `json:"restartCount,omitempty"`
	// Containers and ReadyContainers count the app containers, and
	// CreatedAt is the pod's creation, for kubectl get pods.
	Containers      int       `json:"containers,omitempty"`
	ReadyContainers int       `json:"readyContainers,omitempty"`
	CreatedAt       time.Time `json:"createdAt,omitzero"`
	// IP and LastRestartAt (the newest container's last termination)
	// complete kubectl get pods -o wide and its "9 (3m ago)" restarts.
	IP            string    `json:"ip,omitempty"`
	LastRestartAt time.Time `json:"lastRestartAt,omitzero"`
}

// ClusterPolicy is the GPU Operator's ClusterPolicy state.
type ClusterPolicy struct {
	Name  string `json:"name"`
	State string `json:"state"` // ready, notReady, ignored
}

// ContainerLog is the tail of a container's previous log, read only with
// the ReadLogs option.
type ContainerLog struct {
	Pod       string `json:"pod"`
	Container string `json:"container"`
	Previous  bool   `json:"previous"`
	Tail      string `json:"tail"`
}
