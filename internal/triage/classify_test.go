package triage

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseScheduler(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		total int
		want  []reason
	}{
		{
			name:  "current shape with preemption tail",
			lines: []string{"0/6 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/6 nodes are available: 2 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling."},
			total: 6,
			want: []reason{
				{1, "node(s) had untolerated taint(s)", false},
				{2, "Insufficient cpu", false},
				{3, "node(s) didn't match Pod's node affinity/selector", false},
				{2, "No preemption victims found for incoming pod", true},
				{4, "Preemption is not helpful for scheduling", true},
			},
		},
		{
			name:  "old taint wording with a comma inside the reason",
			lines: []string{"0/4 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate, 3 Insufficient memory."},
			total: 4,
			want: []reason{
				{1, "node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate", false},
				{3, "Insufficient memory", false},
			},
		},
		{
			name:  "prefilter message stands for every node",
			lines: []string{"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."},
			total: 3,
			want: []reason{
				{3, "pod has unbound immediate PersistentVolumeClaims", false},
				{3, "Preemption is not helpful for scheduling", true},
			},
		},
		{
			name:  "legacy predicates",
			lines: []string{"No nodes are available that match all of the following predicates:: Insufficient cpu (3), PodToleratesNodeTaints (1)."},
			want:  []reason{{3, "Insufficient cpu", false}, {1, "PodToleratesNodeTaints", false}},
		},
		{
			name:  "wrapped over lines",
			lines: []string{"Warning  FailedScheduling  12s  default-scheduler  0/3 nodes are available:", "  1 node(s) had untolerated taint(s),", "  2 node(s) were unschedulable.", "Normal  Pulled  ok"},
			total: 3,
			want:  []reason{{1, "node(s) had untolerated taint(s)", false}, {2, "node(s) were unschedulable", false}},
		},
		{
			name:  "autoscaler",
			lines: []string{"pod didn't trigger scale-up: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 2 max node group size reached"},
			want:  []reason{{1, "node(s) had untolerated taint {nvidia.com/gpu: present}", false}, {2, "max node group size reached", false}},
		},
		{
			name:  "only the preemption tail",
			lines: []string{"message: 'preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod.'"},
			total: 5,
			want:  []reason{{5, "No preemption victims found for incoming pod", true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := parseScheduler(tt.lines, 0)
			if m.Total != tt.total {
				t.Errorf("total = %d, want %d", m.Total, tt.total)
			}
			if len(m.Reasons) != len(tt.want) {
				t.Fatalf("reasons = %+v\nwant %+v", m.Reasons, tt.want)
			}
			for i := range tt.want {
				if m.Reasons[i] != tt.want[i] {
					t.Errorf("reason %d = %+v, want %+v", i, m.Reasons[i], tt.want[i])
				}
			}
		})
	}
}

// TestClassifyNothing checks that text without a known signal gives an
// honest empty answer, including healthy kubectl output that mentions
// taints and conditions.
func TestClassifyNothing(t *testing.T) {
	c := loadReal(t)
	for _, text := range []string{
		"",
		"hello world",
		"배포 후 사용자 문의가 늘었습니다. 원인을 찾는 중입니다.",
		`Name:         api-7d9f8b-2xk8q
Namespace:    prod
Priority:     0
Status:       Running
QoS Class:    Burstable
Tolerations:  node.kubernetes.io/memory-pressure:NoSchedule op=Exists
              node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
              node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Normal  Scheduled  2m  default-scheduler  Successfully assigned prod/api-7d9f8b-2xk8q to worker-1
  Normal  Pulled     2m  kubelet            Container image "api:1.2" already present on machine
  Normal  Started    2m  kubelet            Started container api`,
		`Conditions:
  MemoryPressure   False   KubeletHasSufficientMemory   kubelet has sufficient memory available
  DiskPressure     False   KubeletHasNoDiskPressure     kubelet has no disk pressure
  Ready            True    KubeletReady                 kubelet is posting ready status
Allocatable:
  nvidia.com/gpu:     8`,
	} {
		res := c.Classify(text)
		if res.Routes == nil || len(res.Routes) != 0 {
			t.Errorf("Classify(%.40q) = %+v, want no routes", text, res.Routes)
		}
		b, _ := json.Marshal(res)
		if string(b) != `{"routes":[],"match":"none","related":[]}` {
			t.Errorf("JSON = %s", b)
		}
	}
}

// TestClassifyNotOverMatched keeps the signals for prose and listings to
// their mechanism: words any service or thread says, a healthy pod's name,
// a node's lifecycle taint or an image name must not put that route first, even as a weak guess.
func TestClassifyNotOverMatched(t *testing.T) {
	c := loadReal(t)
	cases := []struct{ name, text, route string }{
		{"apology for a slow reply", "Sorry for the slow response, I was away. Here is the output you asked for.", "llm/latency"},
		{"a web service's slow responses", "Our REST API responses are slow since yesterday; p99 went from 200ms to 900ms.", "llm/latency"},
		{"a batch job queued in Volcano (zh)", "任务一直在队列里排队，没有被调度。", "llm/latency"},
		{"etcd image pull timing out", `Failed to pull image "registry.k8s.io/etcd:3.5.12-0": dial tcp 34.96.108.209:443: i/o timeout`, "control-plane/api-overload"},
		{"lifecycle taint on a lost node", "Taints:             node.kubernetes.io/unreachable:NoExecute", "pending/untolerated-taint"},
		{"healthy GPU Operator listing", `NAME                                       READY   STATUS      RESTARTS   AGE
nvidia-driver-daemonset-8mp6n              1/1     Running     0          3d
nvidia-container-toolkit-daemonset-x2m4k   1/1     Running     0          3d
nvidia-cuda-validator-6dqzq                0/1     Completed   0          3d`, "gpu/driver"},
		{"a PDB listed, not refusing", "poddisruptionbudget.policy/web created", "pending/unschedulable-node"},
		{"configmap cache catching up", `  Warning  FailedMount  13m  kubelet  MountVolume.SetUp failed for volume "config-volume" : failed to sync configmap cache: timed out waiting for the condition`, "pending/volume"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.Classify(tc.text)
			if len(res.Routes) > 0 && res.Routes[0].Route == tc.route {
				t.Errorf("%s first (confidence %.2f): %+v", tc.route, res.Routes[0].Confidence, res.Routes[0].Evidence)
			}
		})
	}
}

// TestClassifyJSON pins the shape the web API returns.
func TestClassifyJSON(t *testing.T) {
	c := loadReal(t)
	res := c.Classify("x\n  Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}.\n")
	b, err := json.Marshal(Result{Routes: res.Routes[:1], Match: res.Match, Related: res.Related})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"routes":[{"route":"pending/untolerated-taint","playbook":"pod-pending","section":"cause-c-untolerated-taint","confidence":0.9,"evidence":[{"signal":"sched-taint-keyed","line_no":2,"line":"Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}."}]}],"match":"confident","related":[]}`
	if string(b) != want {
		t.Errorf("JSON:\n%s\nwant\n%s", b, want)
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("가", 200) + " needle " + strings.Repeat("나", 200)
	got := excerpt(long, strings.Index(long, "needle"))
	if !strings.Contains(got, "needle") || !utf8.ValidString(got) || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("excerpt = %q", got)
	}
	if got := excerpt("   short line  ", 3); got != "short line" {
		t.Errorf("excerpt = %q", got)
	}
}

// TestSignalAnchors checks that the literal derived from each regex is
// really in every line it matches, using the labelled pastes as lines.
func TestSignalAnchors(t *testing.T) {
	c := loadReal(t)
	for _, p := range readPastes(t) {
		for _, line := range strings.Split(p.text, "\n") {
			lower := strings.ToLower(line)
			for _, s := range c.Signals {
				if s.re != nil && s.re.MatchString(line) && !strings.Contains(lower, s.anchor) {
					t.Errorf("signal %s matches %q but its anchor %q is not in it", s.ID, line, s.anchor)
				}
			}
		}
	}
}

// worstCase is the largest accepted input made of lines that nearly match
// many signals at once.
func worstCase() string {
	line := "0/9 nodes are available: 1 node(s) had untolerated taint {a: b}, 2 Insufficient cpu, " +
		"NVRM: Xid (PCI:0000:3b:00): 79 CUDA out of memory nvidia-container-cli: initialization error Reason: OOMKilled "
	return strings.Repeat(line+"\n", MaxInput/len(line)+10)
}

// TestClassifyBounded checks that the worst case still gives a bounded
// answer. Its speed is measured by BenchmarkClassifyWorstCase, not asserted:
// wall-clock limits fail on a busy machine, not on slow code.
func TestClassifyBounded(t *testing.T) {
	c := loadReal(t)
	res := c.Classify(worstCase())
	if len(res.Routes) == 0 {
		t.Error("no routes")
	}
	for _, r := range res.Routes {
		if len(r.Evidence) > maxEvidence {
			t.Errorf("%s has %d evidence lines", r.Route, len(r.Evidence))
		}
	}
}

func FuzzClassify(f *testing.F) {
	c := loadReal(f)
	f.Add("0/6 nodes are available: 2 Insufficient nvidia.com/gpu, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.")
	f.Add("preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod.")
	f.Add("No nodes are available that match all of the following predicates:: Insufficient cpu (3), (")
	f.Add("0/3 nodes are available:\n, , ,\n1 \n2 node(s)")
	f.Add("torch.OutOfMemoryError: CUDA out of memory.\nNVRM: Xid (PCI:0000:3b:00): 79")
	f.Add(strings.Repeat("가", 400) + "Reason: OOMKilled")
	f.Fuzz(func(t *testing.T, text string) {
		start := time.Now()
		res := c.Classify(text)
		// Generous: a fuzz input is at most a few KiB; only a pathological
		// (super-linear) path gets near this.
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("Classify took %v on %d bytes", d, len(text))
		}
		for i, r := range res.Routes {
			if r.Confidence <= 0 || r.Confidence >= 1 {
				t.Errorf("%s: confidence %v", r.Route, r.Confidence)
			}
			if i > 0 && r.Confidence > res.Routes[i-1].Confidence {
				t.Errorf("routes not sorted: %+v", res.Routes)
			}
			for _, e := range r.Evidence {
				if e.LineNo < 1 || !utf8.ValidString(e.Text) && utf8.ValidString(text) {
					t.Errorf("bad evidence %+v", e)
				}
			}
		}
	})
}

func BenchmarkClassifyWorstCase(b *testing.B) {
	c := loadReal(b)
	text := worstCase()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c.Classify(text)
	}
}

// TestSignalsHavePrefilters keeps Classify cheap on long pastes: every line
// signal is found through literals it needs (see lineFilter), and every
// scheduler reason signal has literals too, so lines without any are never
// cut into fragments.
func TestSignalsHavePrefilters(t *testing.T) {
	c := loadReal(t)
	for _, i := range c.filter.always {
		t.Errorf("signal %s has no literal of two bytes or more that every match contains; give its regex one", c.Signals[i].ID)
	}
	if c.fragmentLits == nil {
		t.Error("some scheduler or preemption signal has no required literal, so every line is cut into fragments")
	}
}
