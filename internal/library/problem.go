package library

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one thing wrong with a content file. Lint prints problems as
// "path:line: message" so editors and CI annotate the right line.
type Problem struct {
	Path string // slash-separated, relative to the library root
	Line int    // 1-based; 0 when the problem concerns the whole file
	Msg  string
	// Layer is the name of the layer the file belongs to ("" when the
	// library is a single folder).
	Layer string
	// Todo marks a place a draft left for a person to fill in, as opposed
	// to a mistake.
	Todo bool
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Msg)
}

// SortProblems orders problems by file and line so output is stable.
func SortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Path != ps[j].Path {
			return ps[i].Path < ps[j].Path
		}
		return ps[i].Line < ps[j].Line
	})
}

// lastLine is the number of the file's last line, where a problem about
// something missing from the file is reported; a final newline does not
// start another line.
func lastLine(src []byte) int {
	n := strings.Count(string(src), "\n")
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return max(n, 1)
}
