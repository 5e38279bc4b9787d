package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"casebook/internal/drill"
	"casebook/internal/snapshot"
	"casebook/test/drillstage/stage"
)

func drillCLI(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"drill"}, args...), noEnv, strings.NewReader(stdin), &out, &errOut)
	if errOut.Len() > 0 {
		t.Logf("stderr: %s", errOut.String())
	}
	return out.String(), err
}

// TestDrillRunScripted plays a drill at the terminal with scripted input:
// a command, a refused write, a command the recording cannot answer, a
// hint, then the answer and a recovery direction.
func TestDrillRunScripted(t *testing.T) {
	script := strings.Join([]string{
		"kubectl describe pod glue-finetune-4xk2p",
		"kubectl delete pod glue-finetune-4xk2p",
		"kubectl top nodes",
		"hint",
		"kubectl describe node gke-train-gpu-t4-7b2e90d1-2mqs",
		"answer",
		"pending/untolerated-taint",
		"Add a toleration for nvidia.com/gpu to the job template.",
		"",
	}, "\n")
	out, err := drillCLI(t, script, "run", "gpu-pool-taint", "--lang", "en")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Fine-tuning jobs stopped starting after the new GPU pool arrived",
		"2 node(s) had untolerated taint(s)",                    // describe pod, as kubectl prints it
		"this drill is read-only",                               // the refused write
		"error: Metrics API not available",                      // what kubectl says without metrics
		"Hints, one step at a time 1/3",                         // the first hint
		"Taints:             nvidia.com/gpu=present:NoSchedule", // describe node
		"Correct: this is the route the evidence leads to.",
		"Score: 100/100",
		"/playbooks/pod-pending#cause-c-untolerated-taint",
		"IL-0245",
		"Add a toleration for nvidia.com/gpu to the job template.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

func TestDrillRunKorean(t *testing.T) {
	out, err := drillCLI(t, "kubectl get resourcequota\nanswer pending/resource-quota\n\n", "run", "gpu-pool-taint", "--lang", "ko")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"새 GPU 노드 풀이 생긴 뒤", "함정 원인을 따라갔습니다", "requests.nvidia.com/gpu: 7/8", "놓친 증거"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDrillListAndBrief(t *testing.T) {
	out, err := drillCLI(t, "", "list")
	if err != nil {
		t.Fatal(err)
	}
	set, _ := drill.Load(os.DirFS("../../library"))
	for _, d := range set.Drills {
		if !strings.Contains(out, d.ID) {
			t.Errorf("drill list lacks %s", d.ID)
		}
	}
	if strings.Contains(out, "pending/untolerated-taint") {
		t.Error("drill list gives a route away")
	}
	out, err = drillCLI(t, "", "brief", "gpu-pool-taint")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Expected route: pending/untolerated-taint", "The decoy (pending/resource-quota)", "Read the newest", "IL-0245"} {
		if want == "Read the newest" {
			want = "Start from the pod"
		}
		if !strings.Contains(out, want) {
			t.Errorf("brief lacks %q", want)
		}
	}
	if _, err := drillCLI(t, "", "run", "no-such-drill"); err == nil || !strings.Contains(err.Error(), `no drill "no-such-drill"`) {
		t.Errorf("unknown drill: %v", err)
	}
}

// TestDrillRecordOnHarness stages a drill's scenario on the API server
// harness (under names of its own, beside other tests' objects), records
// it with "casebook drill record", and checks the recording: it decodes,
// live triage routes it as the drill expects, and the skeleton names the
// evidence live triage found under commands whose output shows it.
func TestDrillRecordOnHarness(t *testing.T) {
	kc := harnessKubeconfig(t)
	raw, err := os.ReadFile("../../test/drillstage/scenarios/gpu-pool-taint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Fresh names for this run: the harness keeps what earlier runs made.
	suffix := "-" + strings.ToLower(strings.ReplaceAll(time.Now().Format("150405.000"), ".", ""))
	text := string(raw)
	for _, name := range []string{"nlp-train", "gke-train-default-pool-3f9a1c2e-h7kd", "gke-train-gpu-t4-7b2e90d1-2mqs", "gke-train-gpu-t4-7b2e90d1-9vtc"} {
		text = strings.ReplaceAll(text, name, name+suffix)
	}
	sc, err := stage.Parse("gpu-pool-taint.yaml", []byte(text), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	staged, err := stage.Stage(ctx, kc, sc)
	if err != nil {
		t.Fatal(err)
	}
	defer staged.Close()

	dir := t.TempDir()
	out, err := drillCLI(t, "", "record", "--kubeconfig", kc, "-n", sc.Namespace, sc.Target, "--route", sc.Route, "--id", "taint-recorded", "--dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "live triage routes the recording to pending/untolerated-taint, as expected") {
		t.Errorf("record output:\n%s", out)
	}
	f, err := os.Open(filepath.Join(dir, "taint-recorded"+drill.SnapshotSuffix))
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := snapshot.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := snaps[0]
	if s.Pod == nil || s.Pod.Name != "glue-finetune-4xk2p" || len(s.Owners) == 0 || s.Owners[0].Kind != "Job" {
		t.Errorf("recording: pod %+v owners %+v", s.Pod, s.Owners)
	}
	gpuNodes := 0
	for _, n := range s.Nodes {
		if strings.HasSuffix(n.Name, suffix) && n.IsGPUNode() {
			gpuNodes++
		}
	}
	if gpuNodes != 2 {
		t.Errorf("%d of this run's GPU nodes recorded, want 2", gpuNodes)
	}
	skel, err := os.ReadFile(filepath.Join(dir, "taint-recorded.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"route: pending/untolerated-taint", "command: describe pod glue-finetune-4xk2p -n " + sc.Namespace,
		"untolerated taint(s)", "nvidia.com/gpu=present:NoSchedule"} {
		if !strings.Contains(string(skel), want) {
			t.Errorf("skeleton lacks %q:\n%s", want, skel)
		}
	}
	// A second recording keeps the drill file a person has been filling in.
	out, err = drillCLI(t, "", "record", "--kubeconfig", kc, "-n", sc.Namespace, sc.Target, "--route", sc.Route, "--id", "taint-recorded", "--dir", dir)
	if err != nil || !strings.Contains(out, "kept "+filepath.Join(dir, "taint-recorded.yaml")) {
		t.Errorf("second record: %v\n%s", err, out)
	}
}
