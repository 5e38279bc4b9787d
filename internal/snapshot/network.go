package snapshot

// Service is a Service target: its selector, how many pods of its
// namespace the selector matches, the endpoints its EndpointSlices hold,
// and, when it matches none, the labels the namespace's pods do carry.
type Service struct {
	Name     string            `json:"name"`
	Type     string            `json:"type,omitempty"`
	Selector map[string]string `json:"selector,omitempty"`
	// MatchingPods counts the namespace's pods the selector matches.
	MatchingPods int `json:"matchingPods"`
	// Slices names the EndpointSlices of the Service; Ready and NotReady
	// count their endpoints by the ready condition.
	Slices   []string `json:"slices,omitempty"`
	Ready    int      `json:"readyEndpoints"`
	NotReady int      `json:"notReadyEndpoints,omitempty"`
	// PodLabels are a few pods of the namespace with their labels, so a
	// selector that matches nothing can be set beside what exists.
	PodLabels []PodLabels `json:"podLabels,omitempty"`
}

// PodLabels is one pod's name and labels.
type PodLabels struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
}

// NoEndpoints reports a Service with a selector and no ready endpoint.
// A Service without a selector has its endpoints managed by hand.
func (s *Service) NoEndpoints() bool {
	return s != nil && len(s.Selector) > 0 && s.Ready == 0
}

// Ingress is an Ingress target: its class, its backends and the TLS
// Secrets it names (named only; Casebook never reads Secrets).
type Ingress struct {
	Name string `json:"name"`
	// Class is spec.ingressClassName; ClassMissing marks a class no
	// IngressClass object defines.
	Class        string    `json:"class,omitempty"`
	ClassMissing bool      `json:"classMissing,omitempty"`
	Backends     []Backend `json:"backends,omitempty"`
	TLSSecrets   []string  `json:"tlsSecrets,omitempty"`
}

// Backend is one Service an Ingress rule (or its default backend) sends
// traffic to; Missing marks a Service that does not exist.
type Backend struct {
	Host    string `json:"host,omitempty"`
	Path    string `json:"path,omitempty"`
	Service string `json:"service"`
	Port    string `json:"port,omitempty"`
	Missing bool   `json:"missing,omitempty"`
	// Ready counts the ready endpoints of the Service's EndpointSlices.
	Ready int `json:"readyEndpoints"`
}

// Broken reports an Ingress with a backend that cannot serve or a class
// that does not exist.
func (i *Ingress) Broken() bool {
	if i == nil {
		return false
	}
	for _, b := range i.Backends {
		if b.Missing || b.Ready == 0 {
			return true
		}
	}
	return i.ClassMissing
}

// HPA is a HorizontalPodAutoscaler target.
type HPA struct {
	Name            string      `json:"name"`
	Target          string      `json:"target"` // deployment/web
	MinReplicas     int32       `json:"minReplicas,omitempty"`
	MaxReplicas     int32       `json:"maxReplicas"`
	CurrentReplicas int32       `json:"currentReplicas"`
	DesiredReplicas int32       `json:"desiredReplicas"`
	Conditions      []Condition `json:"conditions,omitempty"`
}

// Stuck returns the condition that keeps the HPA from scaling:
// ScalingActive or AbleToScale False.
func (h *HPA) Stuck() (Condition, bool) {
	if h == nil {
		return Condition{}, false
	}
	for _, t := range []string{"ScalingActive", "AbleToScale"} {
		if c, ok := FindCondition(h.Conditions, t); ok && c.Status == "False" {
			return c, true
		}
	}
	return Condition{}, false
}

// Webhook is one admission webhook (of a Validating- or
// MutatingWebhookConfiguration) that a refusal names, with the state of
// the Service behind it.
type Webhook struct {
	ConfigKind    string `json:"configKind"`
	Config        string `json:"config"`
	Name          string `json:"name"`
	FailurePolicy string `json:"failurePolicy"`
	// Service is namespace/name of the backing Service, empty for a URL.
	Service        string `json:"service,omitempty"`
	ServiceMissing bool   `json:"serviceMissing,omitempty"`
	Ready          int    `json:"readyEndpoints"`
}

// VolumeAttachment is the attach state of a PersistentVolume on a node.
type VolumeAttachment struct {
	Name        string `json:"name"`
	PV          string `json:"pv"`
	Node        string `json:"node"`
	Attached    bool   `json:"attached"`
	AttachError string `json:"attachError,omitempty"`
}
