package answer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"casebook/internal/triage"
)

// Secret is one real-looking secret of testdata/secrets.txt: the line it
// was pasted in and the value that must not survive redaction.
type Secret struct{ Name, Line, Value string }

// Secrets reads testdata/secrets.txt ("name|line|value", "\n" for a line
// break inside a case). The web and MCP tests read it too, to check every
// door with the same table.
func Secrets(t testing.TB, path string) []Secret {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Secret
	for i, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "|")
		if len(f) != 3 {
			t.Fatalf("%s:%d: want name|line|value", path, i+1)
		}
		out = append(out, Secret{f[0], strings.ReplaceAll(f[1], `\n`, "\n"), f[2]})
	}
	return out
}

func TestRedactSecrets(t *testing.T) {
	for _, s := range Secrets(t, "testdata/secrets.txt") {
		t.Run(s.Name, func(t *testing.T) {
			text := s.Line
			if strings.HasPrefix(s.Name, "env-") {
				text = "    Environment:\n" + s.Line + "\n    Mounts:         <none>"
			}
			got, n := Redact(text)
			if strings.Contains(got, s.Value) {
				t.Errorf("secret survives: %q", got)
			}
			if n == 0 || !strings.Contains(got, Mark) {
				t.Errorf("no %s mark (count %d): %q", Mark, n, got)
			}
		})
	}
}

// TestRedactKeeps: lines the classifier reads, and settings that only look
// like secrets, come through unchanged.
func TestRedactKeeps(t *testing.T) {
	for _, line := range []string{
		"  Warning  FailedScheduling  2m  default-scheduler  0/6 nodes are available: 2 Insufficient nvidia.com/gpu, 4 node(s) had untolerated taint {nvidia.com/gpu: present}.",
		"    Readiness:         http-get http://:8000/health delay=30s timeout=5s period=10s #success=1 #failure=3",
		"--max-num-batched-tokens=8192 --max-model-len 8192",
		"E1204 kubelet.go:2412] failed to get token: exit status 1",
		"Error: Basic authentication required by the registry",
		"    Environment:  <none>",
		"      HF_TOKEN:  <set to the key 'token' in secret 'hf-token'>  Optional: false",
		"Type:  Secret (a volume populated by a Secret)",
		"  Normal  Pulled  kubelet  Container image \"docker-pullable://registry:5000/vllm@sha256:0a1b\" already present",
		"CUDA error: out of memory; tokens per second dropped",
	} {
		if got, n := Redact(line); got != line || n != 0 {
			t.Errorf("changed (%d):\n\t%q\n\t%q", n, line, got)
		}
	}
}

// TestRedactKeepsRoutes: redacting every text of the classifier's corpus
// and hand-written pastes leaves the first route as it was, so the evidence
// a route rests on is never what redaction removes.
func TestRedactKeepsRoutes(t *testing.T) {
	cat, _ := triage.Load(os.DirFS("../../library"))
	var files []string
	for _, g := range []string{"../triage/testdata/corpus/*.txt", "../triage/testdata/pastes/*.txt"} {
		f, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	if len(files) < 500 {
		t.Fatalf("only %d texts found", len(files))
	}
	changed := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		clean, n := Redact(string(data))
		if n == 0 {
			continue
		}
		changed++
		before, after := cat.Classify(string(data)), cat.Classify(clean)
		if top(before) != top(after) {
			t.Errorf("%s: %d redactions moved the first route from %q to %q", filepath.Base(f), n, top(before), top(after))
		}
	}
	t.Logf("%d of %d texts had something redacted", changed, len(files))
}

func top(r triage.Result) string {
	if len(r.Routes) == 0 {
		return ""
	}
	return r.Routes[0].Route
}
