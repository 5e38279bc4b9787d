package drill

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// good is a valid drill over testdata/taint.snapshot.json, a recording of
// a job pod held Pending by a GPU pool's taint.
const good = `id: taint
title: Jobs wait after the GPU pool changed
title_ko: GPU 노드 풀이 바뀐 뒤 작업이 대기함
difficulty: easy
incidents: [IL-0245]
route: pending/untolerated-taint
start:
  kind: message
  from: "#research"
  text: The fine-tuning job has been Pending since this morning.
  text_ko: 파인튜닝 작업이 아침부터 Pending입니다.
evidence:
  - command: describe pod glue-finetune-4xk2p
    line: 2 node(s) had untolerated taint(s)
    why: Both GPU nodes reject the pod for a taint.
    why_ko: GPU 노드 두 대가 taint 때문에 파드를 거부합니다.
  - command: kubectl describe node gke-train-gpu-t4-7b2e90d1-2mqs
    line: nvidia.com/gpu=present:NoSchedule
    why: The taint.
    why_ko: 그 taint입니다.
decoy:
  route: pending/resource-quota
  text: The quota admitted the pod.
  text_ko: 쿼터는 파드를 받아들였습니다.
  evidence:
    - command: get quota
      line: "requests.nvidia.com/gpu: 7/8"
hints:
  - text: Read the event.
    text_ko: 이벤트를 읽으세요.
recovery: Add the toleration.
recovery_ko: toleration을 추가합니다.
teaches: Taints come with new pools.
teaches_ko: 새 노드 풀에는 taint가 따라옵니다.
`

func fixture(t *testing.T, files map[string]string) fstest.MapFS {
	t.Helper()
	snap, err := os.ReadFile("testdata/taint.snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	fs := fstest.MapFS{}
	for name, body := range files {
		fs["drills/"+name] = &fstest.MapFile{Data: []byte(body)}
		if strings.HasSuffix(name, ".yaml") {
			fs["drills/"+strings.TrimSuffix(name, ".yaml")+SnapshotSuffix] = &fstest.MapFile{Data: snap}
		}
	}
	return fs
}

func TestLoadGood(t *testing.T) {
	set, problems := Load(fixture(t, map[string]string{"taint.yaml": good}))
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	d, ok := set.Drill("taint")
	if !ok {
		t.Fatal("drill not loaded")
	}
	if d.Family().ID != "scheduling" || d.Difficulty != Easy || d.Title.In("ko") != "GPU 노드 풀이 바뀐 뒤 작업이 대기함" {
		t.Errorf("drill read wrong: %+v", d)
	}
	if d.Snapshot == nil || d.Snapshot.Target.Name != "glue-finetune-4xk2p" {
		t.Errorf("snapshot not attached")
	}
	if got := d.Par(); got != 2 {
		t.Errorf("par %d, want 2 (describe pod, describe node)", got)
	}
}

// TestProblems checks that each mistake a drill author makes is reported
// at its line, and that the problem says what is wrong.
func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name, edit, with string
		line             int
		msg              string
	}{
		{"unknown field", "teaches:", "teachs:", 33, `field teachs not found`},
		{"wrong id", "id: taint", "id: other", 1, `does not match the file name`},
		{"bad difficulty", "difficulty: easy", "difficulty: brutal", 4, `is not easy, medium or hard`},
		{"no korean title", "title_ko: GPU 노드 풀이 바뀐 뒤 작업이 대기함\n", "", 1, `missing "title_ko"`},
		{"evidence line not in output", "line: nvidia.com/gpu=present:NoSchedule", "line: nvidia.com/gpu=present:NoExecute", 18,
			`"nvidia.com/gpu=present:NoExecute" is not in the output of kubectl describe node`},
		{"evidence command the recording cannot run", "command: describe pod glue-finetune-4xk2p", "command: kubectl top pod", 13, `Metrics API not available`},
		{"evidence command that writes", "command: describe pod glue-finetune-4xk2p", "command: kubectl delete pod glue-finetune-4xk2p", 13, `read-only`},
		{"decoy on the same route", "route: pending/resource-quota", "route: pending/untolerated-taint", 21, `decoy.route is the expected route`},
		{"decoy line not in output", `line: "requests.nvidia.com/gpu: 7/8"`, `line: "requests.nvidia.com/gpu: 8/8"`, 27, `not in the output of kubectl get resourcequotas -n nlp-train`},
		{"start kind", "kind: message", "kind: page", 7, `start.kind "page"`},
		{"no why", "    why: The taint.\n", "", 17, `needs why and why_ko`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(good, tc.edit, tc.with, 1)
			if body == good {
				t.Fatalf("edit %q did not apply", tc.edit)
			}
			set, problems := Load(fixture(t, map[string]string{"taint.yaml": body}))
			if len(set.Drills) != 0 {
				t.Error("a drill with problems was loaded")
			}
			for _, p := range problems {
				if strings.Contains(p.Msg, tc.msg) {
					if p.Line != tc.line || p.Path != "drills/taint.yaml" {
						t.Errorf("problem at %s:%d, want drills/taint.yaml:%d: %s", p.Path, p.Line, tc.line, p.Msg)
					}
					return
				}
			}
			t.Errorf("no problem saying %q; got %v", tc.msg, problems)
		})
	}
}

func TestRecordingProblems(t *testing.T) {
	t.Run("missing snapshot", func(t *testing.T) {
		fs := fstest.MapFS{"drills/taint.yaml": &fstest.MapFile{Data: []byte(good)}}
		_, problems := Load(fs)
		if len(problems) != 1 || !strings.Contains(problems[0].Msg, "taint.snapshot.json is missing") {
			t.Errorf("problems %v", problems)
		}
	})
	t.Run("snapshot that does not decode", func(t *testing.T) {
		fs := fstest.MapFS{
			"drills/taint.yaml":          &fstest.MapFile{Data: []byte(good)},
			"drills/taint.snapshot.json": &fstest.MapFile{Data: []byte(`{"version": 1, "target": {}, "podz": 1}`)},
		}
		_, problems := Load(fs)
		if len(problems) != 1 || problems[0].Path != "drills/taint.snapshot.json" || !strings.Contains(problems[0].Msg, "unknown field") {
			t.Errorf("problems %v", problems)
		}
	})
	t.Run("snapshot without a drill", func(t *testing.T) {
		fs := fixture(t, map[string]string{"taint.yaml": good})
		fs["drills/old.snapshot.json"] = fs["drills/taint.snapshot.json"]
		_, problems := Load(fs)
		if len(problems) != 1 || !strings.Contains(problems[0].Msg, "snapshot without a drill") {
			t.Errorf("problems %v", problems)
		}
	})
	t.Run("one broken drill leaves the others", func(t *testing.T) {
		other := strings.Replace(good, "id: taint", "id: other", 1)
		set, problems := Load(fixture(t, map[string]string{"taint.yaml": "id: [", "other.yaml": other}))
		if len(set.Drills) != 1 || set.Drills[0].ID != "other" || len(problems) != 1 {
			t.Errorf("drills %d, problems %v", len(set.Drills), problems)
		}
	})
}
