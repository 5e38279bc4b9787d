// Package stage applies a drill scenario to a Kubernetes API server: the
// objects, then what kubelets would write, and serves container logs as a
// kubelet does. test/drillstage wraps it as a command; the recorder's live
// test uses it directly.
package stage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// Scenario is one staged failure: Kubernetes objects to create, in file
// order, and what a kubelet would have written about them.
type Scenario struct {
	docHead
	Drill     string `json:"drill"`
	Namespace string `json:"namespace"`
	Target    string `json:"target"`
	Route     string `json:"route"`
	// Controllers asks for a harness with kube-controller-manager
	// (scripts/drills-record.sh reads it).
	Controllers bool `json:"controllers"`
	// StageTimeout, when longer than drillstage's --timeout, bounds the
	// staging instead: a controller's own deadline (a Deployment's
	// progressDeadlineSeconds) has to pass before the failure exists.
	StageTimeout string `json:"stageTimeout"`

	objects  []runtime.Object
	statuses []podStatus
	logs     []containerLog
	patches  []patch
}

// podStatus is the status a kubelet would report for a pod, named or
// chosen by label (pods a controller created have generated names).
type podStatus struct {
	docHead
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Selector  map[string]string `json:"selector"`
	// All writes the status to every pod the selector matches (a
	// Deployment's replicas), not only the first.
	All bool `json:"all"`
	// Count is how many such pods to wait for (a controller creates
	// them one by one).
	Count  int              `json:"count"`
	Status corev1.PodStatus `json:"status"`
}

// patch changes an object after everything else is staged (a rollout),
// with a JSON merge patch, and waits for an event the change causes.
type patch struct {
	docHead
	Resource  string         `json:"resource"` // deployments.apps, nodes, ...
	Namespace string         `json:"namespace"`
	Name      string         `json:"name"`
	Patch     map[string]any `json:"patch"`
	WaitFor   string         `json:"waitFor"` // an event reason in the namespace, e.g. FailedCreate
	// WaitCondition, TYPE=STATUS, waits until the patched object's status
	// carries that condition (Progressing=False): a controller that
	// records a failure without an event.
	WaitCondition string `json:"waitCondition"`
}

// containerLog is what a container printed, served as a kubelet serves
// logs.
type containerLog struct {
	docHead
	Namespace string            `json:"namespace"`
	Pod       string            `json:"pod"`
	Selector  map[string]string `json:"selector"`
	Container string            `json:"container"`
	Previous  bool              `json:"previous"`
	Text      string            `json:"text"`
}

type docHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// Read reads a scenario file.
func Read(path string, now time.Time) (*Scenario, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, raw, now)
}

// Parse reads a scenario. Timestamps are written relative to the moment of
// staging ({{ago "5m"}}), so a recording looks as it would in the middle of
// an incident.
func Parse(path string, raw []byte, now time.Time) (*Scenario, error) {
	tmpl, err := template.New(path).Funcs(template.FuncMap{
		"ago": func(d string) (string, error) {
			dur, err := parseAgo(d)
			if err != nil {
				return "", err
			}
			return now.Add(-dur).UTC().Format(time.RFC3339), nil
		},
	}).Parse(string(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc := &Scenario{}
	rd := utilyaml.NewYAMLReader(bufio.NewReader(&buf))
	for n := 1; ; n++ {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, n, err)
		}
		if strings.TrimSpace(stripComments(string(doc))) == "" {
			continue
		}
		var head docHead
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, n, err)
		}
		if head.APIVersion == "drillstage/v1" {
			var v any
			switch head.Kind {
			case "Scenario":
				v = sc
			case "PodStatus":
				sc.statuses = append(sc.statuses, podStatus{})
				v = &sc.statuses[len(sc.statuses)-1]
			case "Log":
				sc.logs = append(sc.logs, containerLog{})
				v = &sc.logs[len(sc.logs)-1]
			case "Patch":
				sc.patches = append(sc.patches, patch{})
				v = &sc.patches[len(sc.patches)-1]
			default:
				return nil, fmt.Errorf("%s: document %d: unknown kind %s", path, n, head.Kind)
			}
			if err := yaml.Unmarshal(doc, v, yaml.DisallowUnknownFields); err != nil {
				return nil, fmt.Errorf("%s: document %d (%s): %w", path, n, head.Kind, err)
			}
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, n, err)
		}
		sc.objects = append(sc.objects, obj)
	}
	if sc.Drill == "" || sc.Namespace == "" || sc.Target == "" || sc.Route == "" {
		return nil, fmt.Errorf("%s: the first document is a drillstage/v1 Scenario with drill, namespace, target and route", path)
	}
	for i := range sc.logs {
		if sc.logs[i].Namespace == "" {
			sc.logs[i].Namespace = sc.Namespace
		}
	}
	for i := range sc.statuses {
		if sc.statuses[i].Namespace == "" {
			sc.statuses[i].Namespace = sc.Namespace
		}
	}
	return sc, nil
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && t != "---" {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// parseAgo reads a Go duration, or whole days ("6d") as people write ages.
func parseAgo(d string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(d, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err != nil {
			return 0, fmt.Errorf("age %q: %w", d, err)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(d)
}
