package triage

import "casebook/internal/i18n"

// Evidence is one line of text that supports an answer or a route: the
// signal that matched, the 1-based line number in the pasted text (0 when the
// evidence does not come from a paste) and the line itself.
type Evidence struct {
	Signal string `json:"signal"`
	LineNo int    `json:"line_no,omitempty"`
	Text   string `json:"line"`
}

// Answer is what a probe found out about a question without asking a person.
// Value is one of the probe's Values (the id of the question's choice); when
// Known is false the probe could not tell and the question is asked.
// Note says in a sentence how the value was found, for the breadcrumbs, in
// English; NoteMsg is the same sentence as a catalogue message, which pages
// render in their own language.
type Answer struct {
	Value    string
	Evidence []Evidence
	Known    bool
	Note     string
	NoteMsg  i18n.Msg
}

// Prober answers questions from evidence gathered elsewhere, typically a
// read-only snapshot of a live cluster. The engine consults it for every
// question that names a probe; an explicit answer in the walk state always
// wins over a probe's. Implementations return Answer{Known: false} for names
// they do not handle.
type Prober interface {
	Probe(name string) Answer
}

// ProbeSpec documents one probe: the question it answers and the values it
// may return. Values are exactly the ids of that question's choices, so a
// probe's answer can be fed back into the walk unchanged. Lint checks that
// every probe a tree names is listed here with the same values.
type ProbeSpec struct {
	Name     string
	Question string // id of the question node that names this probe
	Meaning  string
	Values   []ProbeValue
}

// ProbeValue is one possible value of a probe and what it means.
type ProbeValue struct {
	Value   string
	Meaning string
}

// Probes lists every probe the trees in library/triage use. The cluster
// reader implements them over a snapshot; anything it cannot decide it
// returns as unknown so the person is asked instead. Where a probe reads
// events or logs, running Catalog.Classify over that text and taking
// Result.Answers for the question is a valid implementation.
var Probes = []ProbeSpec{
	{
		Name: "workload-state", Question: "workload-kind",
		Meaning: "The controller that gave up: a Job's Failed condition, or a Deployment's Progressing condition and its ReplicaSets' FailedCreate events.",
		Values: []ProbeValue{
			{"job-failed", "A Job has condition Failed (BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy)."},
			{"rollout-stuck", "A Deployment has Progressing=False (ProgressDeadlineExceeded), its ReplicaSet records FailedCreate, or its new pods never turn Ready."},
		},
	},
	{
		Name: "traffic-path", Question: "traffic-reason",
		Meaning: "Where traffic stops: a Service's selector against the pods and EndpointSlices, an Ingress's backends and class, the NetworkPolicies that select the pods.",
		Values: []ProbeValue{
			{"no-endpoints", "The Service's EndpointSlices hold no ready endpoint: its selector matches no pod, or none of them is Ready."},
			{"ingress", "An Ingress names a Service that does not exist or has no endpoints, an IngressClass no controller serves, or a TLS Secret that is missing."},
			{"policy", "Never returned by a snapshot: whether a policy drops the traffic needs a connection test."},
		},
	},
	{
		Name: "api-refusal", Question: "refusal-reason",
		Meaning: "Why the API server refused: a webhook configuration against its backing Service's endpoints, a certificate error, an RBAC denial in the controller's events.",
		Values: []ProbeValue{
			{"webhook", "A failed calling webhook event, or a fail-closed webhook whose Service has no ready endpoint or does not exist."},
			{"certificate", "An x509 error in the events: certificate expired or signed by unknown authority."},
			{"rbac", "A forbidden error naming a user or ServiceAccount and a verb it lacks."},
		},
	},
	{
		Name: "storage-state", Question: "disk-kind",
		Meaning: "Whether a pod's volume fails to attach or mount (events, VolumeAttachments) or its node is short of disk (DiskPressure, ephemeral-storage evictions).",
		Values: []ProbeValue{
			{"attach-mount", "FailedAttachVolume or FailedMount events, or a VolumeAttachment that is not attached."},
			{"disk-pressure", "The node has DiskPressure, or the pod was evicted for ephemeral-storage."},
		},
	},
	{
		Name: "autoscaling-state", Question: "scaling-kind",
		Meaning: "An HPA's conditions and events, or the node autoscaler's events on a Pending pod.",
		Values: []ProbeValue{
			{"hpa", "The HPA has ScalingActive=False, AbleToScale=False or ScalingLimited=True, or FailedGetResourceMetric events."},
			{"node-scale-up", "A Pending pod has NotTriggerScaleUp or Karpenter launch-failure events."},
		},
	},
	{
		Name: "pod-symptom", Question: "symptom",
		Meaning: "The state of the pod being triaged, from its phase, conditions and container statuses.",
		Values: []ProbeValue{
			{"pending", "Phase Pending and condition PodScheduled=False (not yet on a node)."},
			{"gpu-missing", "The pod requests a GPU resource and the GPU nodes it targets advertise none in status.allocatable."},
			{"restarts", "A container restarted, waits with an error reason (CrashLoopBackOff, ErrImagePull, ...), was OOMKilled, or the pod was Evicted."},
			{"slow", "Never returned by a snapshot: slowness needs a person or metrics."},
			{"probe-failure", "The pod is Running but a container is not Ready, or was killed by a failed liveness or startup probe, and its Unhealthy events say which probe failed."},
			{"node-not-ready", "The pod's node is NotReady or Unknown."},
			{"dns", "Never returned by a snapshot: name resolution failures show in logs, not in pod status."},
			{"nccl", "Never returned by a snapshot: collective failures show in the training job's logs."},
			{"control-plane", "Never returned by a snapshot: a snapshot that could be read says little about API server overload."},
			{"workload", "The target is a Job or CronJob whose Job failed, or a Deployment whose rollout is stuck."},
			{"traffic", "The target is a Service with no ready endpoint or an Ingress with a missing backend or class."},
			{"api-refused", "The pod's controller reports a refusal by an admission webhook, a certificate or RBAC."},
			{"storage", "The target is a PersistentVolumeClaim whose volume does not attach or mount, or the pod's node reports DiskPressure."},
			{"autoscaling", "The target is a HorizontalPodAutoscaler that cannot read its metrics or is capped."},
		},
	},
	{
		Name: "scheduler-message", Question: "pending-reason",
		Meaning: "The reason to act on in the newest FailedScheduling event (or the ReplicaSet's ReplicaFailure condition).",
		Values: []ProbeValue{
			{"insufficient", "Insufficient <resource> or Too many pods on the nodes the pod is meant for."},
			{"selector", "Every node fails node affinity / nodeSelector (didn't match Pod's node affinity/selector)."},
			{"taint", "The nodes the pod is meant for carry a taint it does not tolerate."},
			{"quota", "The pod was never created: the controller reports exceeded quota."},
			{"dra", "A DRA ResourceClaim is not allocated (cannot allocate all claims, device class missing, ...)."},
			{"unschedulable", "The nodes the pod is meant for are cordoned (node(s) were unschedulable)."},
			{"volume", "Volume binding fails (unbound immediate PersistentVolumeClaims, volume node affinity conflict, ...)."},
			{"scheduled", "The pod is already bound to a node; its containers are waiting (ContainerCreating, ErrImagePull, ...)."},
		},
	},
	{
		Name: "preemption-expected", Question: "pending-preemption",
		Meaning: "Whether the pod has a priority above zero that should let it preempt, and the event reports preemption found no victims.",
		Values: []ProbeValue{
			{"yes", "spec.priority > 0, preemptionPolicy is not Never, and the event says No preemption victims found for incoming pod."},
			{"no", "Default priority, preemptionPolicy Never, or preemption was not attempted."},
		},
	},
	{
		Name: "gpu-allocatable", Question: "pending-gpu-present",
		Meaning: "Whether the nodes the pod targets advertise the extended resource it requests (for example nvidia.com/gpu) in status.allocatable.",
		Values: []ProbeValue{
			{"yes", "The resource is advertised (non-zero) on the targeted nodes; it is used up by other pods."},
			{"no", "The resource is missing or zero on nodes that have GPUs (labels nvidia.com/gpu.present or pci-10de): their GPU stack does not advertise it."},
			{"nowhere", "No node of the cluster advertises the resource or carries GPU labels: there is no GPU capacity to wait for, and the fix is a GPU node pool, not the driver."},
			{"other-name", "The GPU nodes advertise their GPUs under another resource name (nvidia.com/gpu against nvidia.com/mig-<profile>): a MIG strategy or layout the pod does not match."},
			{"not-gpu", "The pod is short of cpu, memory, ephemeral-storage or pods, not of an extended resource."},
		},
	},
	{
		Name: "gpu-driver", Question: "gpu-driver",
		Meaning: "Whether the NVIDIA kernel driver works on the node: driver daemonset pod Ready, driver validation passed, nvidia-smi succeeds.",
		Values: []ProbeValue{
			{"ok", "The driver is loaded and nvidia-smi lists the GPUs."},
			{"failing", "The driver pod is not Ready, the installer failed, or nvidia-smi cannot talk to the driver."},
		},
	},
	{
		Name: "gpu-toolkit", Question: "gpu-toolkit",
		Meaning: "Whether the NVIDIA Container Toolkit lets containers see the GPUs: toolkit daemonset Ready, runtime handler nvidia configured, toolkit validation passed.",
		Values: []ProbeValue{
			{"ok", "Containers started with the nvidia runtime see the GPUs."},
			{"failing", "The toolkit pod is not Ready, the runtime class is missing, or nvidia-container-cli errors."},
		},
	},
	{
		Name: "device-plugin", Question: "gpu-device-plugin",
		Meaning: "Whether the NVIDIA device plugin runs on the node and registered its devices with the kubelet.",
		Values: []ProbeValue{
			{"ok", "The plugin pod is Running and its log shows devices registered."},
			{"failing", "No plugin pod on the node, or its log shows Failed to initialize NVML, No devices found, or Incompatible strategy."},
		},
	},
	{
		Name: "gpu-resource-name", Question: "gpu-resource-name",
		Meaning: "Whether the resource name the pod requests appears in the node's allocatable and the GPU Operator ClusterPolicy is ready.",
		Values: []ProbeValue{
			{"match", "The node advertises the requested name (nvidia.com/gpu or the nvidia.com/mig-<profile> asked for) and ClusterPolicy is ready."},
			{"mismatch", "The names differ (for example MIG strategy changed) or ClusterPolicy is notReady."},
		},
	},
	{
		Name: "gpu-node-health", Question: "gpu-node-health",
		Meaning: "Node health as the kubelet and vendor agents report it: Ready, no pressure conditions, AcceleratedHardwareReady not False, no XID events.",
		Values: []ProbeValue{
			{"healthy", "Every condition is as expected."},
			{"unhealthy", "NotReady, a pressure condition, AcceleratedHardwareReady=False, or XID/ECC errors on the node."},
		},
	},
	{
		Name: "container-state", Question: "restart-reason",
		Meaning: "The state and last state of the failing container, and the pod's status reason.",
		Values: []ProbeValue{
			{"oomkilled", "Last State Terminated with Reason OOMKilled."},
			{"evicted", "Pod status Failed with Reason Evicted."},
			{"image-pull", "Waiting with ErrImagePull, ImagePullBackOff, InvalidImageName or ErrImageNeverPull."},
			{"crashloop", "Waiting with CrashLoopBackOff, Last State Terminated with Error or another exit code."},
			{"config-error", "Waiting with CreateContainerConfigError or CreateContainerError: the kubelet cannot build the container (a Secret, ConfigMap or key not found)."},
			{"volume-mount", "Waiting in ContainerCreating with FailedMount or FailedAttachVolume events."},
			{"sandbox-network", "Waiting in ContainerCreating with FailedCreatePodSandBox events from the CNI that cannot assign an address."},
		},
	},
	{
		Name: "previous-log", Question: "crash-log",
		Meaning: "What the last lines of the previous container's log (kubectl logs --previous) show.",
		Values: []ProbeValue{
			{"cuda-oom", "CUDA out of memory, torch.cuda.OutOfMemoryError, or vLLM found no memory for cache blocks."},
			{"gpu-fault", "An XID, ECC or fallen-off-the-bus error: the GPU itself is failing."},
			{"gpu-unavailable", "The container sees no GPU: no CUDA-capable device, libcuda or NVML not found."},
			{"probe", "The kubelet killed the container after failed liveness or startup probes (a Killing event says so); the log shows no crash."},
			{"app", "An application error unrelated to the GPU."},
		},
	},
	{
		Name: "node-ready-condition", Question: "node-ready-reason",
		Meaning: "The node's Ready condition (status, reason, message) and its pressure conditions and events.",
		Values: []ProbeValue{
			{"stopped-posting", "Ready Unknown, reason NodeStatusUnknown: Kubelet stopped posting node status."},
			{"runtime", "Ready False, KubeletNotReady, with container runtime is down or PLEG is not healthy."},
			{"network", "Ready False, KubeletNotReady, with container runtime network not ready (NetworkPluginNotReady)."},
			{"resources", "A pressure condition True or a SystemOOM event on a NotReady node."},
		},
	},
	{
		Name: "probe-failure", Question: "probe-kind",
		Meaning: "Which probe fails, from the pod's Unhealthy and Killing events and its containers' readiness.",
		Values: []ProbeValue{
			{"readiness", "Readiness probe failed events; the container runs but is not Ready, with no probe restarts."},
			{"liveness", "Liveness probe failed events, or a Killing event saying failed liveness probe, will be restarted."},
			{"startup", "Startup probe failed events, or a Killing event saying failed startup probe."},
		},
	},
	{
		Name: "cpu-throttling", Question: "slow-throttled",
		Meaning: "Whether the workload's containers spend more than a quarter of their CFS periods throttled (or CPUThrottlingHigh fires for them).",
		Values: []ProbeValue{
			{"yes", "Throttled periods / periods above 0.25 over the last 15 minutes."},
			{"no", "Below that, or no CPU limit set."},
		},
	},
	{
		Name: "llm-stage", Question: "llm-stage",
		Meaning: "Where the time of a slow model-server request goes, from vLLM metrics and request traces.",
		Values: []ProbeValue{
			{"cold-start", "Slowness only right after a rollout or a scale-up from zero: model download, load, warm-up."},
			{"queue", "Requests wait: vllm:num_requests_waiting grows and time to first token rises."},
			{"gpu-busy", "The GPU is saturated: utilisation near 100% and inter-token latency up, queue short."},
			{"dependency", "Time goes before or around the model: vector search, database, external API."},
		},
	},
	{
		Name: "kv-cache-usage", Question: "llm-kv-cache",
		Meaning: "Whether the model server's KV cache is full (vllm:gpu_cache_usage_perc or kv_cache_usage_perc near 1, requests preempted).",
		Values: []ProbeValue{
			{"high", "Cache usage above 0.9 or preemptions counted."},
			{"normal", "Cache has room; requests queue for batch slots instead."},
		},
	},
}
