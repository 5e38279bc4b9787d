package kubectl

import (
	"errors"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line, key string
	}{
		{"kubectl get pods", "get pods -n team-a"},
		{"k get po -owide", "get pods -n team-a -o wide"},
		{"get pods --all-namespaces", "get pods -A"},
		{"kubectl describe po/llm-0", "describe pod llm-0 -n team-a"},
		{"kubectl -n gpu-operator get pods -o wide", "get pods -n gpu-operator -o wide"},
		{"kubectl get pods --namespace=gpu-operator", "get pods -n gpu-operator"},
		{"kubectl get nodes -L nvidia.com/gpu.product,nvidia.com/gpu.count", "get nodes -L nvidia.com/gpu.product,nvidia.com/gpu.count"},
		{"kubectl get no --show-labels -n ignored", "get nodes --show-labels"},
		{"kubectl describe node gpu-1", "describe node gpu-1"},
		{"kubectl get ev --sort-by=.lastTimestamp", "get events -n team-a"},
		{"kubectl events -n team-b", "get events -n team-b"},
		{"kubectl logs llm-0 --previous", "logs llm-0 -n team-a --previous"},
		{"kubectl logs -p llm-0 -c server", "logs llm-0 -n team-a -c server --previous"},
		{"kubectl logs pod/llm-0 server --tail 50", "logs llm-0 -n team-a -c server"},
		{"kubectl get quota", "get resourcequotas -n team-a"},
		{"kubectl describe resourcequota", "describe resourcequotas -n team-a"},
		{"kubectl get clusterpolicies.nvidia.com", "get clusterpolicies"},
		{`kubectl describe pod "llm-0"`, "describe pod llm-0 -n team-a"},
		{"kubectl get rs -n team-a", "get replicasets -n team-a"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			c, err := Parse(tc.line, "team-a")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if c.Key() != tc.key {
				t.Errorf("key %q, want %q", c.Key(), tc.key)
			}
			// The key is the state a drill keeps in its URL: it must parse
			// back to the same command.
			again, err := Parse(c.Key(), "elsewhere")
			if err != nil || again.Key() != c.Key() {
				t.Errorf("key %q parses back to %q (%v)", c.Key(), again.Key(), err)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		line string
		kind ErrorKind
	}{
		{"kubectl delete pod llm-0", ReadOnly},
		{"kubectl cordon gpu-1", ReadOnly},
		{"kubectl exec -it llm-0 -- nvidia-smi", ReadOnly},
		{"kubectl rollout restart deploy/x", ReadOnly},
		{"kubectl top pod", Unsupported},
		{"kubectl get pods -o yaml", Unsupported},
		{"kubectl describe pod", Unsupported},
		{"kubectl get deploy,rs", Unsupported},
		{"kubectl get widgets", Usage},
		{"kubectl", Usage},
		{"kubectl frobnicate", Usage},
		{"kubectl get pods --bogus", Usage},
		{"kubectl logs", Usage},
		{`kubectl get pods "unterminated`, Usage},
	} {
		t.Run(tc.line, func(t *testing.T) {
			_, err := Parse(tc.line, "team-a")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want a *kubectl.Error", err)
			}
			if e.Kind != tc.kind {
				t.Errorf("kind %v (%v), want %v", e.Kind, err, tc.kind)
			}
		})
	}
}

func TestHumanDuration(t *testing.T) {
	for _, tc := range []struct {
		secs int
		want string
	}{
		{0, "0s"}, {59, "59s"}, {119, "119s"}, {120, "2m"}, {150, "2m30s"}, {600, "10m"}, {3 * 3600, "3h"},
		{3*3600 + 1800, "3h30m"}, {9 * 3600, "9h"}, {50 * 3600, "2d2h"}, {9 * 86400, "9d"}, {800 * 86400, "2y70d"},
	} {
		if got := humanDuration(secs(tc.secs)); got != tc.want {
			t.Errorf("humanDuration(%ds) = %q, want %q", tc.secs, got, tc.want)
		}
	}
}

func secs(n int) time.Duration { return time.Duration(n) * time.Second }
