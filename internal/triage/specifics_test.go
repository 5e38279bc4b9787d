package triage

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

func TestPasteSpecifics(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Specifics
	}{
		{
			name: "1.25+ keyed taint beside the control plane's",
			text: `  Warning  FailedScheduling  42s   default-scheduler  0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.`,
			want: Specifics{Taints: []TaintSpec{{Key: "nvidia.com/gpu", Value: "present", NodeCount: 2}}},
		},
		{
			name: "pre-1.25 wording with the comma inside the reason",
			text: `0/4 nodes are available: 4 node(s) had taint {dedicated: gpu-team}, that the pod didn't tolerate.`,
			want: Specifics{Taints: []TaintSpec{{Key: "dedicated", Value: "gpu-team", NodeCount: 4}}},
		},
		{
			name: "the control plane alone is what blocks",
			text: `0/1 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`,
			want: Specifics{Taints: []TaintSpec{{Key: "node-role.kubernetes.io/control-plane", NodeCount: 1}}},
		},
		{
			name: "unkeyed taint says nothing specific",
			text: `0/3 nodes are available: 3 node(s) had untolerated taint(s).`,
			want: Specifics{},
		},
		{
			name: "describe pod: selector and requests summed over containers",
			text: `Name:         train-0
Containers:
  main:
    Requests:
      cpu:             2
      nvidia.com/gpu:  4
  sidecar:
    Requests:
      cpu:     500m
      memory:  128Mi
Node-Selectors:  cloud.google.com/gke-accelerator=nvidia-h100-80gb
                 pool=training
Tolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
Events:
  Warning  FailedScheduling  1m  default-scheduler  0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.`,
			want: Specifics{
				Selectors:  []SelectorSpec{{Key: "cloud.google.com/gke-accelerator", Wanted: "nvidia-h100-80gb", NodeCount: 3}, {Key: "pool", Wanted: "training", NodeCount: 3}},
				Shortfalls: []Shortfall{{Resource: "nvidia.com/gpu", Requested: "4", NodeCount: 2}},
			},
		},
		{
			name: "a selector in describe without a selector reason is not the blocker",
			text: "Node-Selectors:  pool=training\nEvents:\n  0/2 nodes are available: 2 Insufficient cpu.",
			want: Specifics{Shortfalls: []Shortfall{{Resource: "cpu", NodeCount: 2}}},
		},
		{
			name: "Korean words glued to the last reason are not part of the resource",
			text: "증상: GPU Pod가\nFailedScheduling: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu로 Pending",
			want: Specifics{Shortfalls: []Shortfall{{Resource: "nvidia.com/gpu", NodeCount: 4}}},
		},
		{
			name: "a retyped message in lower case with an exclamation mark",
			text: "It always output 0/3 nodes are available: 3 insufficient nvidia.com/gpu!",
			want: Specifics{Shortfalls: []Shortfall{{Resource: "nvidia.com/gpu", NodeCount: 3}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, PasteSpecifics(tt.text)); d != "" {
				t.Errorf("specifics (-want +got):\n%s", d)
			}
		})
	}
}

func TestToleration(t *testing.T) {
	tests := []struct {
		taint TaintSpec
		want  map[string]string
	}{
		{TaintSpec{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}, map[string]string{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}},
		{TaintSpec{Key: "node-role.kubernetes.io/control-plane"}, map[string]string{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}},
		// Values YAML would read as a boolean or a number stay strings.
		{TaintSpec{Key: "gpu", Value: "true", Effect: "NoExecute"}, map[string]string{"key": "gpu", "operator": "Equal", "value": "true", "effect": "NoExecute"}},
		{TaintSpec{Key: "tier", Value: "1.5"}, map[string]string{"key": "tier", "operator": "Equal", "value": "1.5"}},
	}
	for _, tt := range tests {
		t.Run(tt.taint.String(), func(t *testing.T) {
			var got struct {
				Tolerations []map[string]any `yaml:"tolerations"`
			}
			if err := yaml.Unmarshal([]byte(tt.taint.Toleration()), &got); err != nil {
				t.Fatalf("not YAML: %v\n%s", err, tt.taint.Toleration())
			}
			if len(got.Tolerations) != 1 {
				t.Fatalf("%d tolerations", len(got.Tolerations))
			}
			for k, v := range got.Tolerations[0] {
				if s, ok := v.(string); !ok || s != tt.want[k] {
					t.Errorf("%s: %#v, want the string %q", k, v, tt.want[k])
				}
			}
			if len(got.Tolerations[0]) != len(tt.want) {
				t.Errorf("fields %v, want %v", got.Tolerations[0], tt.want)
			}
		})
	}
}

// TestSpecificsOnCorpus reads the real pastes of the corpus: every keyed
// taint a scheduler message names (other than the control plane's beside
// others) and every resource it says is insufficient must come out, and
// nothing the text does not hold may be invented.
func TestSpecificsOnCorpus(t *testing.T) {
	keyed := regexp.MustCompile(`had (?:untolerated )?taints? \{([^:}]*):`)
	short := regexp.MustCompile(`\d+ Insufficient ([A-Za-z0-9./_-]+[A-Za-z0-9_-])`)
	var taints, shorts, withTaint, withShort int
	for _, c := range readCorpus(t) {
		sp := PasteSpecifics(c.Text)
		for _, ts := range sp.Taints {
			if !strings.Contains(c.Text, ts.Key) || ts.NodeCount < 1 {
				t.Errorf("%s: taint %+v is not in the text", c.Name, ts)
			}
		}
		for _, sf := range sp.Shortfalls {
			// Posters retype the message in lower case ("3 insufficient
			// nvidia.com/gpu"), which the scheduler parser accepts too.
			if !strings.Contains(strings.ToLower(c.Text), strings.ToLower("Insufficient "+sf.Resource)) {
				t.Errorf("%s: shortfall %+v is not in the text", c.Name, sf)
			}
		}
		for _, m := range keyed.FindAllStringSubmatch(c.Text, -1) {
			key := strings.TrimSpace(m[1])
			if controlPlaneTaint(key) && len(keyed.FindAllString(c.Text, -1)) > 1 {
				continue
			}
			withTaint++
			found := false
			for _, ts := range sp.Taints {
				found = found || ts.Key == key
			}
			if found {
				taints++
			} else {
				t.Errorf("%s: the text names taint %q, specifics %+v", c.Name, key, sp.Taints)
			}
		}
		for _, m := range short.FindAllStringSubmatch(c.Text, -1) {
			if !isSchedulerLine(lowerASCII(c.Text)) {
				continue
			}
			withShort++
			found := false
			for _, sf := range sp.Shortfalls {
				found = found || sf.Resource == m[1]
			}
			if found {
				shorts++
			} else {
				t.Logf("%s: %q is not read as a shortfall (outside a scheduler message?)", c.Name, m[0])
			}
		}
	}
	t.Logf("corpus: %d/%d keyed taints and %d/%d insufficient resources read", taints, withTaint, shorts, withShort)
	if withTaint == 0 || withShort == 0 {
		t.Error("the corpus has no keyed taint or no insufficient resource: the test proves nothing")
	}
}
