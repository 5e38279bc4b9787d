package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planted is an inventory read from the API server harness by the live
// test's planted cluster (casebook gaps --save): twenty-three gaps, one check
// that passes.
const planted = "../../internal/gaps/testdata/planted.json"

func TestGapsFromSnapshot(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"gaps", "--snapshot", planted, "--fail-on", "high", "--base-url", "https://casebook.example/"}, os.Getenv, nil, &out, &errOut)
	var code exitCode
	if !errors.As(err, &code) || code != 1 {
		t.Fatalf("err = %v, want exit status 1 for findings at high; stderr %s", err, errOut.String())
	}
	text := out.String()
	for _, want := range []string{
		"23 found, 0 errors, 16 passed",
		"CRITICAL\n\n  [found] webhook-fail-intercepts-kube-system",
		"[found] single-control-plane-node: The cluster runs on a single control-plane node",
		"incident: IL-0138 https://casebook.example/incidents/IL-0138",
		"playbook: https://casebook.example/playbooks/gpu-missing#layer-3-device-plugin",
		"fix: Run three control-plane nodes",
		"passed: gpu-resource-not-advertised, webhook-backend-not-ready",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "CRITICAL") > strings.Index(text, "HIGH") || strings.Index(text, "HIGH") > strings.Index(text, "MEDIUM") {
		t.Error("severities are not worst first")
	}
}

func TestGapsJSONAndGate(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runGaps(context.Background(), []string{"--snapshot", planted, "--json", "--fail-on", "critical"}, &out, &errOut); err == nil {
		t.Fatal("a critical finding must fail --fail-on critical")
	}
	var rep struct {
		Results []struct{ ID, Status, Severity string }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Results) != 39 || rep.Results[0].Severity != "critical" {
		t.Fatalf("json: %v %+v", err, rep)
	}
	// Without --fail-on the report never fails the command.
	out.Reset()
	if err := runGaps(context.Background(), []string{"--snapshot", planted}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
}

func TestGapsRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	triageSnap := filepath.Join(dir, "s.json")
	if err := os.WriteFile(triageSnap, []byte(`{"version":1,"target":{"namespace":"a","name":"b"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--snapshot", triageSnap}, `"kind" is "", want "Inventory"`},
		{[]string{"--snapshot", planted, "--fail-on", "urgent"}, `severity "urgent"`},
		{[]string{"--snapshot", planted, "extra"}, `unexpected argument "extra"`},
	} {
		var out, errOut bytes.Buffer
		err := runGaps(context.Background(), tc.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}
