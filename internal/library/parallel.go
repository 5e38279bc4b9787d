package library

import (
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"
)

// parsed is one file's parse result.
type parsed[T any] struct {
	path     string
	v        T
	problems []Problem
	err      error // reading the file failed
}

// parseFiles reads and parses files on every core. Parsing Markdown is
// most of a cold load (goldmark, YAML, sanitising), and files are
// independent; the results keep the order of files, so problems and the
// handling of duplicates do not depend on scheduling. The sources are not
// kept: the rare problem found after parsing reads its file again for the
// line number.
func parseFiles[T any](fsys fs.FS, files []string, parse func(string, []byte) (T, []Problem)) []parsed[T] {
	out := make([]parsed[T], len(files))
	onEveryCore(len(files), func(i int) {
		r := &out[i]
		r.path = files[i]
		var src []byte
		if src, r.err = fs.ReadFile(fsys, r.path); r.err == nil {
			r.v, r.problems = parse(r.path, src)
		}
	})
	return out
}

// onEveryCore calls do(i) for every i in [0, n), on as many goroutines as
// there are cores, each taking the next i until none is left; it returns
// when all calls have.
func onEveryCore(n int, do func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				do(i)
			}
		}()
	}
	wg.Wait()
}
