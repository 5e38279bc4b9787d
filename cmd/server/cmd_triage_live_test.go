package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTriageLiveFromSnapshot(t *testing.T) {
	file := "../../internal/probe/testdata/taint.json"
	var out, errOut bytes.Buffer
	if err := runTriageLive(context.Background(), []string{"--snapshot", file}, &out, &errOut); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	for _, want := range []string{
		"team-a/llm-0",
		"route:     pending/untolerated-taint",
		"playbook:  pod-pending#cause-c-untolerated-taint",
		"had untolerated taint(s)",
		"node/gpu-1 spec.taints: nvidia.com/gpu=present:NoSchedule",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if err := runTriageLive(context.Background(), []string{"--snapshot", file, "--json"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Route string
		Steps []struct{ Probe string }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Route != "pending/untolerated-taint" || len(rep.Steps) != 2 {
		t.Fatalf("json: %v %+v\n%s", err, rep, out.String())
	}
}

func TestTriageLiveAsksWhatItCannotRead(t *testing.T) {
	var out, errOut bytes.Buffer
	err := runTriageLive(context.Background(), []string{"--snapshot", "../../internal/probe/testdata/gpu-lost.json"}, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"answer yourself: Does the device plugin run", "--read-logs", "continue in the wizard: /triage?tree=root&a=symptom~gpu-missing"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestTriageLiveRejectsBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"version":1,"target":{"namespace":"a","name":"b"},"nodes":[{"name":"n","allocatable":{"cpu":"many"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--snapshot", bad}, `bad quantity "many"`},
		{[]string{"pod-a"}, "-n NAMESPACE is required"},
		{[]string{"-n", "a", "--scan", "pod-a"}, "--scan takes no pod"},
		{[]string{"-n", "a"}, "name one pod"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		err := runTriageLive(context.Background(), tt.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want %q", tt.args, err, tt.want)
		}
	}
}
