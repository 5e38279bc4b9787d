package mcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/drill"
	"casebook/internal/mcp"
	deflib "casebook/library"
)

func drillSession(t *testing.T, withDrills bool) *sdk.ClientSession {
	t.Helper()
	opts := mcp.Options{Log: quiet}
	if withDrills {
		opts.Drills = drill.NewService(deflib.FS, nil)
	}
	ct, st := sdk.NewInMemoryTransports()
	if _, err := mcp.NewServer(loader(t), opts).Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	return connect(t, ct)
}

// TestDrillTools runs a tabletop exercise the way an assistant would: list
// the drills, take one's brief, and run the participant's commands on the
// recording.
func TestDrillTools(t *testing.T) {
	cs := drillSession(t, true)

	var list mcp.DrillsOutput
	decode(t, call(t, cs, "list_drills", `{"family": "scheduling"}`), &list)
	if len(list.Drills) == 0 {
		t.Fatal("no scheduling drills")
	}
	for _, d := range list.Drills {
		if d.Family != "scheduling" || d.URL != "/drills/"+d.ID || len(d.Incidents) == 0 {
			t.Errorf("drill %+v", d)
		}
	}

	var brief mcp.DrillBriefOutput
	decode(t, call(t, cs, "get_drill_brief", `{"id": "gpu-pool-taint", "commands": [
		"kubectl describe pod glue-finetune-4xk2p", "kubectl delete pod glue-finetune-4xk2p", "kubectl get quota"]}`), &brief)
	if brief.Start.Text == "" || len(brief.Hints) < 2 || brief.Namespace != "nlp-train" {
		t.Errorf("brief: %+v", brief)
	}
	f := brief.Facilitator
	if f.Route != "pending/untolerated-taint" || f.LiveRoute != "pending/untolerated-taint" || f.Decoy == nil || f.Decoy.Route != "pending/resource-quota" {
		t.Errorf("facilitator key: %+v", f)
	}
	if f.Playbook != "/playbooks/pod-pending#cause-c-untolerated-taint" || len(f.Evidence) != 2 {
		t.Errorf("playbook %q, %d evidence", f.Playbook, len(f.Evidence))
	}
	if len(brief.Outputs) != 3 {
		t.Fatalf("%d outputs", len(brief.Outputs))
	}
	if o := brief.Outputs[0]; !strings.Contains(o.Output, "2 node(s) had untolerated taint(s)") || o.Command != "kubectl describe pod glue-finetune-4xk2p -n nlp-train" {
		t.Errorf("describe pod: %+v", o)
	}
	if o := brief.Outputs[1]; o.Output != "" || !strings.Contains(o.Error, "read-only") {
		t.Errorf("a write: %+v", o)
	}
	if o := brief.Outputs[2]; !strings.Contains(o.Output, "requests.nvidia.com/gpu: 7/8") {
		t.Errorf("quota: %+v", o)
	}
	if len(brief.Incidents) == 0 || brief.Incidents[0].ID != "IL-0245" || brief.Incidents[0].Title == "" {
		t.Errorf("incidents %+v", brief.Incidents)
	}

	var ko mcp.DrillBriefOutput
	decode(t, call(t, cs, "get_drill_brief", `{"id": "gpu-pool-taint", "lang": "ko"}`), &ko)
	if !strings.Contains(ko.Title, "새 GPU 노드 풀") || !strings.Contains(ko.Start.Text, "Pending") {
		t.Errorf("Korean brief: %q / %q", ko.Title, ko.Start.Text)
	}

	for _, args := range []string{`{"id": "no-such-drill"}`, `{"id": "gpu-pool-taint", "lang": "fr"}`} {
		if res := call(t, cs, "get_drill_brief", args); !res.IsError {
			t.Errorf("get_drill_brief(%s) did not fail", args)
		}
	}
}

func TestDrillToolsOnlyWithDrills(t *testing.T) {
	res, err := drillSession(t, false).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if slices.Contains([]string{"list_drills", "get_drill_brief"}, tool.Name) {
			t.Errorf("%s offered without drills", tool.Name)
		}
	}
}
