package gaps

import (
	"strings"
	"time"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// Status is how a check came out.
type Status string

// Statuses. An error is never a pass: the check could not tell.
const (
	StatusFound  Status = "found"
	StatusPassed Status = "passed"
	StatusError  Status = "error"
)

// Report is the outcome of every check over one inventory, worst first.
type Report struct {
	CollectedAt   time.Time       `json:"collectedAt"`
	ServerVersion string          `json:"serverVersion,omitempty"`
	Scope         inventory.Scope `json:"scope,omitzero"`
	// Source says where the inventory came from: "cluster" or a file name.
	Source  string   `json:"source,omitempty"`
	Results []Result `json:"results"`
}

// Result is one check's outcome.
type Result struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Severity  Severity  `json:"severity"`
	Status    Status    `json:"status"`
	Message   string    `json:"message,omitempty"`
	Count     int       `json:"count,omitempty"`
	Objects   []Finding `json:"objects,omitempty"`
	Error     string    `json:"error,omitempty"`
	Partial   string    `json:"partial,omitempty"`
	Incidents []string  `json:"incidents"`
	Playbooks []string  `json:"playbooks,omitempty"`
	Fix       string    `json:"fix"`
	// TitleKo, MessageKo and FixKo are the Korean twins, when the check
	// has them; MessageKo is filled like Message.
	TitleKo   string        `json:"title_ko,omitempty"`
	MessageKo string        `json:"message_ko,omitempty"`
	FixKo     string        `json:"fix_ko,omitempty"`
	Path      string        `json:"path"`
	Took      time.Duration `json:"tookNs"`
}

// Finding is one object a check found, with what is wrong with it.
type Finding struct {
	Object string `json:"object"`
	Detail string `json:"detail,omitempty"`
}

// Counts returns how many checks found something, passed and erred.
func (r *Report) Counts() (found, passed, errs int) {
	for _, res := range r.Results {
		switch res.Status {
		case StatusFound:
			found++
		case StatusPassed:
			passed++
		case StatusError:
			errs++
		}
	}
	return found, passed, errs
}

// FailsAt reports whether the report should fail a CI job gated at a
// severity: a finding at or above it, or a check at or above it that could
// not tell (an error), since it may hide one.
func (r *Report) FailsAt(sev Severity) bool {
	for _, res := range r.Results {
		if res.Severity >= sev && res.Status != StatusPassed {
			return true
		}
	}
	return false
}

// Result returns a check's result.
func (r *Report) Result(id string) (Result, bool) {
	for _, res := range r.Results {
		if res.ID == id {
			return res, true
		}
	}
	return Result{}, false
}

// objectRef names an object the way triage evidence does
// (snapshot.ObjectRef): "namespace kind/name", or "kind/name".
func objectRef(kind string, obj any) string {
	ref := func(k, ns, name string) string {
		return snapshot.ObjectRef{Kind: k, Namespace: ns, Name: name}.String()
	}
	switch o := obj.(type) {
	case *inventory.Node:
		return ref("Node", "", o.Name)
	case *inventory.Namespace:
		return ref("Namespace", "", o.Name)
	case *inventory.Webhook:
		return ref(o.ConfigKind, "", o.ConfigName) + " webhook " + o.Name
	case *snapshot.PriorityClass:
		return ref("PriorityClass", "", o.Name)
	case *inventory.DisruptionBudget:
		return ref("PodDisruptionBudget", o.Namespace, o.Name)
	case *inventory.Workload:
		return ref(o.Kind, o.Namespace, o.Name)
	case *inventory.Pod:
		return ref("Pod", o.Namespace, o.Name)
	case *inventory.NamespaceQuota:
		return ref("ResourceQuota", o.Namespace, o.Name)
	case *inventory.NodePool:
		return ref("NodePool", "", o.Name)
	case *inventory.NodeClass:
		return ref("EC2NodeClass", "", o.Name)
	case *inventory.Service:
		return ref("Service", o.Namespace, o.Name)
	case *inventory.EndpointSlice:
		return ref("EndpointSlice", o.Namespace, o.Name)
	case *inventory.Ingress:
		return ref("Ingress", o.Namespace, o.Name)
	case *inventory.HorizontalPodAutoscaler:
		return ref("HorizontalPodAutoscaler", o.Namespace, o.Name)
	}
	return strings.TrimSuffix(kind, "s")
}
