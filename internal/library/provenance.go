package library

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Provenance says where an incident or playbook comes from: its layer, the
// page that edits its file in the layer's Git host, and when the file last
// changed.
type Provenance struct {
	Layer   string `json:"layer"`
	EditURL string `json:"edit_url,omitempty"`
	// Changed is when the file last changed (RFC 3339, UTC); empty when
	// nothing tells (the embedded library has no files on disk and no Git
	// history).
	Changed string `json:"changed,omitempty"`
	// ChangedFrom says where Changed comes from: ChangedGit (the last
	// commit that touched the file) or ChangedFile (the file's
	// modification time, when no Git history is available).
	ChangedFrom string `json:"changed_from,omitempty"`
}

// Where a Provenance's Changed time comes from.
const (
	ChangedGit  = "git"
	ChangedFile = "file"
)

// gitTimeout bounds reading a layer's history; a layer whose history takes
// longer falls back to file times for the files not yet seen.
const gitTimeout = 10 * time.Second

// history returns when each file of the layer last changed: from Git when
// the layer's folder is in a Git work tree and git is installed, else from
// the files' modification times. A layer without a folder on disk (the
// embedded library) has neither, and nothing is claimed.
func history(l Layer, files []string) map[string]Provenance {
	out := make(map[string]Provenance, len(files))
	if l.Dir == "" {
		return out
	}
	commits := gitTimes(l.Dir)
	for _, p := range files {
		if t, ok := commits[p]; ok {
			out[p] = Provenance{Changed: t.UTC().Format(time.RFC3339), ChangedFrom: ChangedGit}
			continue
		}
		var mod time.Time
		if fi, err := os.Stat(filepath.Join(l.Dir, filepath.FromSlash(p))); err == nil {
			mod = fi.ModTime()
		}
		if !mod.IsZero() {
			out[p] = Provenance{Changed: mod.UTC().Truncate(time.Second).Format(time.RFC3339), ChangedFrom: ChangedFile}
		}
	}
	return out
}

// gitTimes reads the commit time of the last change to every file under
// dir, paths relative to dir, in one pass over the history (newest first,
// so the first time a path appears is its last change). It returns nil
// when dir is not in a Git work tree or git is not installed, as in the
// distroless image, where file times stand in.
func gitTimes(dir string) map[string]time.Time {
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	// %x00 separates commits; --relative makes paths relative to dir and
	// leaves out changes elsewhere in the repository.
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "-c", "core.quotepath=off", "log", "--format=%x00%cI", "--name-only", "--relative", "--no-renames", "--", ".")
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, _ := cmd.Output() // a timeout keeps what was read
	if len(out) == 0 {
		return nil
	}
	times := map[string]time.Time{}
	var cur time.Time
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "\x00"); ok {
			cur, _ = time.Parse(time.RFC3339, strings.TrimSpace(rest))
			continue
		}
		if line == "" || cur.IsZero() {
			continue
		}
		if _, seen := times[line]; !seen {
			times[line] = cur
		}
	}
	return times
}
