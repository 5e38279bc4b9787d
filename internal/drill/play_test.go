package drill

import (
	"errors"
	"os"
	"testing"
	"time"

	"casebook/internal/triage"
)

func catalog(t *testing.T) *triage.Catalog {
	t.Helper()
	cat, problems := triage.Load(os.DirFS("../../library"))
	if cat.Root() == nil {
		t.Fatalf("triage catalogue did not load: %v", problems)
	}
	return cat
}

func taintDrill(t *testing.T) *Drill {
	t.Helper()
	set, problems := Load(fixture(t, map[string]string{"taint.yaml": good}))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	d, _ := set.Drill("taint")
	return d
}

func TestRun(t *testing.T) {
	d := taintDrill(t)
	st, err := d.Run("kubectl describe pod glue-finetune-4xk2p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Key != "describe pod glue-finetune-4xk2p -n nlp-train" || len(st.Evidence) != 1 || st.Evidence[0] != 0 {
		t.Errorf("step %+v", st)
	}
	if _, err := d.Run("kubectl delete pod glue-finetune-4xk2p"); err == nil {
		t.Error("a write ran")
	}
}

func TestGrade(t *testing.T) {
	cat := catalog(t)
	d := taintDrill(t)
	pod, node, quota := "describe pod glue-finetune-4xk2p -n nlp-train", "describe node gke-train-gpu-t4-7b2e90d1-2mqs", "get resourcequotas -n nlp-train"
	for _, tc := range []struct {
		name    string
		a       Attempt
		verdict string
		found   int
		decoy   int
		score   Score
	}{
		{"both lines, fast, right route", Attempt{Commands: []string{pod, node}, Route: "pending/untolerated-taint", Elapsed: 3 * time.Minute},
			RouteExact, 2, 0, Score{Total: 100, Route: 50, Evidence: 30, Commands: 10, Time: 10}},
		{"the decoy", Attempt{Commands: []string{pod, quota}, Route: "pending/resource-quota", Elapsed: 4 * time.Minute},
			RouteDecoy, 1, 1, Score{Total: 35, Route: 0, Evidence: 15, Commands: 10, Time: 10}},
		{"right family, slow, many commands", Attempt{Commands: []string{pod, pod, pod, pod, pod, pod, node}, Route: "pending/node-selector-mismatch", Elapsed: 10 * time.Minute},
			RouteFamily, 2, 0, Score{Total: 62, Route: 20, Evidence: 30, Commands: 7, Time: 5}},
		{"no route, nothing run", Attempt{}, RouteNone, 0, 0, Score{}},
		{"another family, too slow", Attempt{Commands: []string{quota}, Route: "memory/oomkilled", Elapsed: time.Hour},
			RouteWrong, 0, 1, Score{Total: 10, Commands: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := d.Grade(tc.a, cat)
			if err != nil {
				t.Fatal(err)
			}
			if db.Verdict != tc.verdict || len(db.Found) != tc.found || len(db.Decoy) != tc.decoy {
				t.Errorf("verdict %s, found %d, decoy %d; want %s, %d, %d", db.Verdict, len(db.Found), len(db.Decoy), tc.verdict, tc.found, tc.decoy)
			}
			got := db.Score
			got.Par, got.Used, got.TargetSec = 0, 0, 0
			if got != tc.score {
				t.Errorf("score %+v, want %+v", got, tc.score)
			}
			if len(db.Found)+len(db.Missed) != len(d.Evidence) {
				t.Errorf("found %d + missed %d != %d evidence", len(db.Found), len(db.Missed), len(d.Evidence))
			}
			if db.Outcome == nil || db.Outcome.Playbook != "pod-pending" {
				t.Errorf("outcome %+v", db.Outcome)
			}
		})
	}
}

func TestGradeRefusesBadAttempts(t *testing.T) {
	cat := catalog(t)
	d := taintDrill(t)
	for name, a := range map[string]Attempt{
		"a command the recording cannot run": {Commands: []string{"top pod"}},
		"a write":                            {Commands: []string{"delete pod glue-finetune-4xk2p"}},
		"an unknown route":                   {Route: "pending/whatever"},
		"a negative time":                    {Elapsed: -time.Second},
		"too long a recovery":                {Recovery: string(make([]byte, MaxRecovery+1))},
		"too many commands":                  {Commands: make([]string, MaxCommands+1)},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := d.Grade(a, cat); !errors.Is(err, ErrAttempt) {
				t.Errorf("error %v, want ErrAttempt", err)
			}
		})
	}
}
