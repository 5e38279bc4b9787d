package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"casebook/internal/drill"
	"casebook/internal/kubectl"
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
// evidence live triage found under commands whose output shows it. The
// scenario is one whose pod is placed by name (an OOM-killed worker): the
// harness is shared, and a pod left to the scheduler, or one that needs a
// GPU, would meet the nodes and GPU stacks other tests leave behind.
func TestDrillRecordOnHarness(t *testing.T) {
	kc := harnessKubeconfig(t)
	raw, err := os.ReadFile("../../test/drillstage/scenarios/call-worker-oom.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Fresh names for this run: the harness keeps what earlier runs made.
	suffix := "-" + strings.ToLower(strings.ReplaceAll(time.Now().Format("150405.000"), ".", ""))
	text := string(raw)
	for _, r := range [][2]string{{"namespace: voice", "namespace: voice" + suffix}, {"{name: voice}", "{name: voice" + suffix + "}"},
		{"ip-10-20-14-201.us-west-2.compute.internal", "ip-10-20-14-201" + suffix}} {
		text = strings.ReplaceAll(text, r[0], r[1])
	}
	sc, err := stage.Parse("call-worker-oom.yaml", []byte(text), time.Now())
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
	out, err := drillCLI(t, "", "record", "--kubeconfig", kc, "-n", sc.Namespace, sc.Target, "--route", sc.Route, "--id", "oom-recorded", "--dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "live triage routes the recording to memory/oomkilled, as expected") {
		t.Errorf("record output:\n%s", out)
	}
	f, err := os.Open(filepath.Join(dir, "oom-recorded"+drill.SnapshotSuffix))
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := snapshot.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := snaps[0]
	if s.Pod == nil || s.Pod.Name != "call-worker-8d7f6c5b4-5lq9v" || s.Pod.Namespace != "voice"+suffix || len(s.Owners) != 2 || s.Owners[1].Kind != "Deployment" {
		t.Errorf("recording: pod %+v owners %+v", s.Pod, s.Owners)
	}
	if !slices.ContainsFunc(s.Nodes, func(n snapshot.Node) bool { return n.Name == "ip-10-20-14-201"+suffix }) {
		t.Errorf("recording: nodes %+v, want this run's node among them", s.Nodes)
	}
	// What kubectl would show of the pod comes from the recording.
	if _, out, err := kubectl.Exec(&s, "describe pod call-worker-8d7f6c5b4-5lq9v"); err != nil || !strings.Contains(out, "Reason:       OOMKilled") || !strings.Contains(out, "Exit Code:    137") {
		t.Errorf("describe pod on the recording: %v\n%s", err, out)
	}
	skel, err := os.ReadFile(filepath.Join(dir, "oom-recorded.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"route: memory/oomkilled", "command: describe pod call-worker-8d7f6c5b4-5lq9v"} {
		if !strings.Contains(string(skel), want) {
			t.Errorf("skeleton lacks %q:\n%s", want, skel)
		}
	}
	// A second recording keeps the drill file a person has been filling in.
	out, err = drillCLI(t, "", "record", "--kubeconfig", kc, "-n", sc.Namespace, sc.Target, "--route", sc.Route, "--id", "oom-recorded", "--dir", dir)
	if err != nil || !strings.Contains(out, "kept "+filepath.Join(dir, "oom-recorded.yaml")) {
		t.Errorf("second record: %v\n%s", err, out)
	}
}
