package triage

import (
	"os"
	"strings"
	"testing"
)

// TestSchedulerReading: a scheduler line with several reasons is one
// diagnosis naming each reason with its node count, the filter that acts
// first leading.
func TestSchedulerReading(t *testing.T) {
	c := loadReal(t)
	data, err := os.ReadFile("testdata/pastes/false-01-vllm-probe-settings-and-preemption-tail.txt")
	if err != nil {
		t.Fatal(err)
	}
	res := c.Classify(string(data))
	rd := res.Scheduler
	if rd == nil {
		t.Fatal("no scheduler reading")
	}
	want := []SchedulerReason{
		{Count: 4, Reason: "node(s) had untolerated taint {nvidia.com/gpu: present}", Route: "pending/untolerated-taint", Filter: "TaintToleration"},
		{Count: 2, Reason: "Insufficient nvidia.com/gpu", Route: "pending/insufficient-resources", Filter: "NodeResourcesFit"},
	}
	if rd.Total != 6 || len(rd.Reasons) != len(want) {
		t.Fatalf("reading %+v", rd)
	}
	for i, w := range want {
		if rd.Reasons[i] != w {
			t.Errorf("reason %d = %+v, want %+v", i, rd.Reasons[i], w)
		}
	}
	// A single reason is its own route; there is nothing to read together.
	if r := c.Classify("0/3 nodes are available: 3 Insufficient cpu."); r.Scheduler != nil {
		t.Errorf("one reason read as several: %+v", r.Scheduler)
	}
}

func TestReadContext(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       *Context
	}{
		{"describe pod", "Name:         vllm-0\nNamespace:    llm-serving\nNode:         gpu-node-7/10.0.3.4\nContainers:\n  vllm:\n    Image: x\n  sidecar:\n",
			&Context{Pod: "vllm-0", Namespace: "llm-serving", Node: "gpu-node-7", Container: "vllm"}},
		{"pending pod", "Name: web-1\nNamespace: shop\nNode: <none>\n", &Context{Pod: "web-1", Namespace: "shop"}},
		{"describe node", "Name:               gpu-node-7\nRoles:              <none>\nTaints:             nvidia.com/gpu=present:NoSchedule\n", nil},
		{"events table", "LAST SEEN   TYPE      REASON             OBJECT              MESSAGE\n41s  Warning  FailedScheduling  pod/batch-7c9f  0/3 nodes are available", &Context{Pod: "batch-7c9f"}},
		{"kubelet log", `E1204 10:00:00 pod_workers.go:1298] "Error syncing pod" pod="llm/vllm-0" podUID="1"`, &Context{Pod: "vllm-0", Namespace: "llm"}},
		{"not a name", "Name: x;rm -rf /\nNamespace: $(id)\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ReadContext(strings.Split(tc.text, "\n"))
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	c := &Context{Pod: "vllm-0", Namespace: "llm-serving", Node: "gpu-node-7"}
	if got := c.Fill("kubectl describe pod <pod> -n <namespace>; kubectl describe node <gpu-node> <container>"); got != "kubectl describe pod vllm-0 -n llm-serving; kubectl describe node gpu-node-7 <container>" {
		t.Errorf("Fill = %q", got)
	}
}
