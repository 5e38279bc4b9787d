package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	shippedLibrary = "../../library"
	fixtures       = "../../internal/library/testdata"
)

func noEnv(string) string { return "" }

// runCmd runs the command line in-process the way main does.
func runCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, noEnv, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

// copyDir copies a library folder, so a test can break it.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// addBroken copies files of the loader's broken fixtures into a library.
func addBroken(t *testing.T, lib string, files ...string) {
	t.Helper()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(fixtures, "broken", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lib, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLintShippedLibrary(t *testing.T) {
	for _, args := range [][]string{{"lint", shippedLibrary}, {"lint"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout, stderr, err := runCmd(t, args...)
			if err != nil || stdout != "" || stderr != "" {
				t.Errorf("lint of the shipped library: err %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
			}
		})
	}
}

func TestLintBrokenFolder(t *testing.T) {
	lib := t.TempDir()
	copyDir(t, shippedLibrary, lib)
	addBroken(t, lib, "incidents/IL-9101-unknown-term.md", "incidents/IL-9105-impossible-date.md", "incidents/IL-9107-unclosed-list.md")

	stdout, _, err := runCmd(t, "lint", lib)
	var code exitCode
	if !errors.As(err, &code) || code != 1 {
		t.Fatalf("err = %v, want exit code 1", err)
	}
	want := []string{
		`incidents/IL-9101-unknown-term.md:8: unknown Component "gpu-drivr" in components (did you mean "gpu-driver"?)`,
		`incidents/IL-9105-impossible-date.md:6: bad date "2024-02-30": want YYYY-MM-DD or YYYY-MM`,
		`incidents/IL-9107-unclosed-list.md:7: malformed front matter: line 7: did not find expected ',' or ']'`,
		``,
	}
	if diff := cmp.Diff(want, strings.Split(stdout, "\n")); diff != "" {
		t.Errorf("lint output (-want +got):\n%s", diff)
	}
}

func TestLintNothingValid(t *testing.T) {
	lib := t.TempDir()
	copyDir(t, filepath.Join(fixtures, "good"), lib)
	for _, dir := range []string{"incidents", "playbooks"} {
		if err := os.RemoveAll(filepath.Join(lib, dir)); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(lib, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	addBroken(t, lib, "incidents/IL-9109-no-front-matter.md")

	stdout, stderr, err := runCmd(t, "lint", lib)
	var code exitCode
	if !errors.As(err, &code) || code != 1 {
		t.Fatalf("err = %v, want exit code 1", err)
	}
	// The fixture has no triage trees, so triage problems follow; only the
	// incident's line is this test's business.
	if want := "incidents/IL-9109-no-front-matter.md:1: missing front matter: the file must start with a line \"---\"\n"; !strings.HasPrefix(stdout, want) {
		t.Errorf("stdout = %q, want it to start with %q", stdout, want)
	}
	if !strings.Contains(stderr, "no valid content") {
		t.Errorf("stderr does not say nothing is valid: %q", stderr)
	}
}

func TestLintNotALibrary(t *testing.T) {
	dir := t.TempDir()
	_, _, err := runCmd(t, "lint", dir)
	if err == nil || !strings.Contains(err.Error(), "is not a library folder: a team's layer holds layer.yaml (name, prefix), a public library taxonomy.yaml") {
		t.Fatalf("err = %v, want one saying the folder has neither layer.yaml nor taxonomy.yaml", err)
	}
	var code exitCode
	if errors.As(err, &code) {
		t.Errorf("a usage error must not look like lint problems (exit code %d)", code)
	}
}

// TestLintMissingKoreanTwin drops one Korean answer label from a shipped
// tree: the wizard speaks both languages, so lint must fail on it.
func TestLintMissingKoreanTwin(t *testing.T) {
	lib := t.TempDir()
	copyDir(t, shippedLibrary, lib)
	tree := filepath.Join(lib, "triage", "pending.yaml")
	data, err := os.ReadFile(tree)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	dropped := false
	for _, l := range strings.Split(string(data), "\n") {
		if !dropped && strings.HasPrefix(strings.TrimSpace(l), "label_ko:") {
			dropped = true
			continue
		}
		kept = append(kept, l)
	}
	if !dropped {
		t.Fatal("pending.yaml has no label_ko to drop")
	}
	if err := os.WriteFile(tree, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}

	stdout, _, err := runCmd(t, "lint", lib)
	var code exitCode
	if !errors.As(err, &code) || code != 1 {
		t.Fatalf("err = %v, want exit code 1", err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "triage/pending.yaml:") || !strings.HasSuffix(lines[0], ": node pending-reason answer insufficient: label has no label_ko") {
		t.Errorf("lint output = %q, want one line naming the answer without label_ko", stdout)
	}
}
