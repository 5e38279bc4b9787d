package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"testing"
	"testing/fstest"

	"casebook/internal/library"
	"casebook/internal/triage"
)

// libraryDir is the real library: tests check behaviour on the content
// people will search, not on a toy corpus.
const libraryDir = "../../library"

var (
	libOnce   sync.Once
	libFiles  fstest.MapFS
	libLoaded *library.Library
	libErr    error

	triageOnce sync.Once
	triageCat  *triage.Catalog
	triageErr  error

	sharedOnce sync.Once
	sharedIx   *Index
	sharedErr  error
	sharedDir  string
)

// loadLibrary loads the real library once, from a snapshot of its files
// taken at the first call, so that content written while tests run cannot
// change the hash between two loads.
func loadLibrary(t testing.TB) *library.Library {
	t.Helper()
	libOnce.Do(func() {
		libFiles = fstest.MapFS{}
		libErr = fs.WalkDir(os.DirFS(libraryDir), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(os.DirFS(libraryDir), p)
			libFiles[p] = &fstest.MapFile{Data: data}
			return err
		})
		if libErr == nil {
			libLoaded, _, libErr = library.Load(libFiles)
		}
	})
	if libErr != nil {
		t.Fatalf("load library: %v", libErr)
	}
	return libLoaded
}

// loadTriage loads the real library's triage catalogue, which routes
// symptom queries to their playbook sections.
func loadTriage(t testing.TB) *triage.Catalog {
	t.Helper()
	loadLibrary(t)
	triageOnce.Do(func() {
		var problems []library.Problem
		triageCat, problems = triage.Load(libFiles)
		if len(problems) > 0 {
			triageErr = fmt.Errorf("triage catalogue: %v", problems[0])
		}
	})
	if triageErr != nil {
		t.Fatal(triageErr)
	}
	return triageCat
}

// changedLibrary loads the library snapshot with one file edited, as after
// a commit.
func changedLibrary(t testing.TB) *library.Library {
	t.Helper()
	loadLibrary(t)
	files := fstest.MapFS{}
	for p, f := range libFiles {
		files[p] = f
	}
	const p = "playbooks/pod-pending.md"
	edited := append([]byte{}, libFiles[p].Data...)
	files[p] = &fstest.MapFile{Data: append(edited, []byte("\nOne more line.\n")...)}
	lib, _, err := library.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// sharedIndex is one index over the real library for the tests that only
// search. Tests of the index life cycle open their own under t.TempDir().
func sharedIndex(t testing.TB) *Index {
	t.Helper()
	lib := loadLibrary(t)
	sharedOnce.Do(func() {
		sharedDir, sharedErr = os.MkdirTemp("", "casebook-search-test-")
		if sharedErr == nil {
			sharedIx, sharedErr = OpenWith(sharedDir, lib, Options{CacheBytes: -1, Triage: loadTriage(t), Turns: make(chan struct{}, 2)})
		}
	})
	if sharedErr != nil {
		t.Fatalf("open shared index: %v", sharedErr)
	}
	return sharedIx
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedIx != nil {
		sharedIx.Close()
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	// The benchmarks' indexes: 40 MB each at 10k documents.
	benchIndexes.Range(func(_, v any) bool {
		v.(*Index).Close()
		return true
	})
	benchDirs.Range(func(dir, _ any) bool {
		os.RemoveAll(dir.(string))
		return true
	})
	os.Exit(code)
}

func isQueryError(err error) bool {
	var qe *QueryError
	return errors.As(err, &qe)
}
