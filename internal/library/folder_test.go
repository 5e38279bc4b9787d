package library

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// teamFolder copies the acme fixture layer to a temporary folder and
// returns it with the folder outside it where links may point.
func teamFolder(t *testing.T) (team, outside string) {
	t.Helper()
	base := t.TempDir()
	team, outside = filepath.Join(base, "acme"), filepath.Join(base, "outside")
	if err := os.CopyFS(team, os.DirFS("testdata/layers/acme")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	return team, outside
}

func copyIncident(t *testing.T, from, to, id string) {
	t.Helper()
	src, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, []byte(strings.Replace(string(src), "id: ACME-0001", "id: "+id, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

const acme1 = "incidents/ACME-0001-gateway-sent-traffic-to-drained-pool.md"

// A team's layer is untrusted: a link to a device, out of the layer or
// into another layer, a pipe, a folder where a file should be and a file
// over the limit are each a problem at their path and are not read; the
// rest of the layer loads, in a bounded time, and a link that stays inside
// the layer is followed. Before, /dev/zero was read until memory ran out,
// and a link's target outside the layer was served.
func TestLayerFilesAreReadInsideTheFolder(t *testing.T) {
	tests := []struct {
		name string
		// plant makes the hostile file at path in team (outside is a
		// folder beside the layer).
		plant func(t *testing.T, team, outside string) string
		want  error // nil: the file loads
	}{
		{"link to /dev/zero", func(t *testing.T, team, _ string) string {
			return link(t, "/dev/zero", team, "incidents/ACME-0009-zero.md")
		}, ErrOutsideLayer},
		{"link to a file outside the layer", func(t *testing.T, team, outside string) string {
			copyIncident(t, filepath.Join(team, acme1), filepath.Join(outside, "x.md"), "ACME-0012")
			return link(t, filepath.Join(outside, "x.md"), team, "incidents/ACME-0012-outside.md")
		}, ErrOutsideLayer},
		{"relative link out of the layer", func(t *testing.T, team, outside string) string {
			copyIncident(t, filepath.Join(team, acme1), filepath.Join(outside, "x.md"), "ACME-0012")
			return link(t, "../../outside/x.md", team, "incidents/ACME-0012-outside.md")
		}, ErrOutsideLayer},
		{"link to /etc/passwd", func(t *testing.T, team, _ string) string {
			return link(t, "/etc/passwd", team, "incidents/ACME-0013-passwd.md")
		}, ErrOutsideLayer},
		{"link to a folder", func(t *testing.T, team, _ string) string {
			return link(t, "../playbooks", team, "incidents/ACME-0014-dir.md")
		}, ErrNotRegular},
		{"folder where a file should be", func(t *testing.T, team, _ string) string {
			p := "incidents/ACME-0015-dir.md"
			if err := os.MkdirAll(filepath.Join(team, p, "inner.md"), 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, ErrNotRegular},
		{"named pipe", func(t *testing.T, team, _ string) string {
			p := "incidents/ACME-0016-pipe.md"
			if err := syscall.Mkfifo(filepath.Join(team, p), 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			return p
		}, ErrNotRegular},
		{"40 MB file", func(t *testing.T, team, _ string) string {
			p := "incidents/ACME-0017-huge.md"
			f, err := os.Create(filepath.Join(team, p))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(40 << 20); err != nil { // sparse: no disk used
				t.Fatal(err)
			}
			return p
		}, ErrFileTooLarge},
		{"link inside the layer", func(t *testing.T, team, _ string) string {
			copyIncident(t, filepath.Join(team, acme1), filepath.Join(team, "shared.md"), "ACME-0018")
			return link(t, "../shared.md", team, "incidents/ACME-0018-inside.md")
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			team, outside := teamFolder(t)
			p := tt.plant(t, team, outside)
			folder := NewFolder(team, 0)

			_, err := fs.ReadFile(folder, p)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("ReadFile(%s) = %v, want %v", p, err, tt.want)
			}

			start := time.Now()
			s := NewStack(Layer{FS: dirFS(t, "testdata/good"), Root: "good"}, Layer{FS: folder, Root: "acme"})
			files, err := s.Read(true)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			lib, problems, err := s.LoadFiles(files)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if d := time.Since(start); d > time.Minute {
				t.Errorf("the load took %s", d)
			}
			if _, ok := lib.Incident("ACME-0001"); !ok {
				t.Error("the rest of the layer is left out")
			}
			at := slices.IndexFunc(problems, func(pr Problem) bool { return pr.Path == "acme/"+p })
			id := strings.Join(strings.SplitN(filepath.Base(p), "-", 3)[:2], "-")
			_, loaded := lib.Incident(id)
			switch {
			case tt.want == nil && (at >= 0 || !loaded):
				t.Errorf("a link inside the layer: loaded %v, problems %v", loaded, problemStrings(problems))
			case tt.want != nil && (at < 0 || loaded):
				t.Errorf("%s: loaded %v, want a problem at acme/%s; problems:\n%s", tt.name, loaded, p, strings.Join(problemStrings(problems), "\n"))
			}
		})
	}
}

// A link from a public layer into a restricted one is refused like any
// link out of the layer: the restricted playbook is not served as the
// public layer's.
func TestLinkIntoAnotherLayerIsRefused(t *testing.T) {
	base := t.TempDir()
	evil, plat := filepath.Join(base, "evil"), filepath.Join(base, "plat")
	if err := os.CopyFS(evil, os.DirFS("testdata/layers/acme")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(plat, "playbooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plat, LayerFile), []byte("name: plat\nprefix: PLAT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link(t, "../../evil/playbooks/pod-pending.md", plat, "playbooks/pod-pending.md")
	lib, problems, err := NewStack(Layer{FS: dirFS(t, "testdata/good"), Root: "good"}, Layer{FS: NewFolder(plat, 0), Root: "plat"}).Load()
	if err != nil && !errors.Is(err, ErrNothingValid) {
		t.Fatal(err)
	}
	if pb, ok := lib.Playbook("pod-pending"); ok && pb.Layer == "plat" {
		t.Error("the restricted layer's playbook is served as the public layer's")
	}
	if !slices.ContainsFunc(problems, func(p Problem) bool { return p.Path == "plat/playbooks/pod-pending.md" }) {
		t.Errorf("no problem at the link; problems:\n%s", strings.Join(problemStrings(problems), "\n"))
	}
}

// git-sync publishes a checkout as a link to it: a layer whose folder is a
// link loads, and its links inside the checkout are followed.
func TestLayerFolderMayBeALink(t *testing.T) {
	team, _ := teamFolder(t)
	root := filepath.Join(t.TempDir(), "current")
	if err := os.Symlink(team, root); err != nil {
		t.Fatal(err)
	}
	lib, problems, err := NewStack(Layer{FS: dirFS(t, "testdata/good"), Root: "good"}, Layer{FS: NewFolder(root, 0), Root: "acme"}).Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lib.Incident("ACME-0001"); !ok {
		t.Errorf("the layer behind a link did not load; problems:\n%s", strings.Join(problemStrings(problems), "\n"))
	}
}

// Files the loaders do not read (a README, a build output, a link to a
// device beside the content) are neither read nor hashed.
func TestUnusedFilesAreNotRead(t *testing.T) {
	team, _ := teamFolder(t)
	before, err := Hash(NewFolder(team, 0))
	if err != nil {
		t.Fatal(err)
	}
	link(t, "/dev/zero", team, "NOTES")
	link(t, "/dev/zero", team, "incidents/README")
	if err := os.WriteFile(filepath.Join(team, "README.md"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := Hash(NewFolder(team, 0))
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Error("files no loader reads changed the layer's hash")
	}
}

// link makes name (relative to dir) a symbolic link to target.
func link(t *testing.T, target, dir, name string) string {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	return name
}
