package search

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// manifestName is written into a finished index directory last. Its absence
// means the build never completed; a file whose size or checksum differs
// from it means the index was truncated or damaged after the build, which
// would otherwise fail at query time instead of at open time.
const manifestName = "casebook-manifest.json"

type manifest struct {
	Hash  string         `json:"hash"`
	Docs  int            `json:"docs"`
	Files []manifestFile `json:"files"`
}

type manifestFile struct {
	Name  string `json:"name"`
	Size  int64  `json:"size"`
	CRC32 uint32 `json:"crc32c"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// scanFiles checksums every file under dir except the manifest. CRC-32C is
// hardware-accelerated, so this costs milliseconds even at 10,000 documents.
func scanFiles(dir string) ([]manifestFile, error) {
	var files []manifestFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == manifestName {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := crc32.New(castagnoli)
		n, err := io.Copy(h, f)
		if err != nil {
			return err
		}
		files = append(files, manifestFile{Name: filepath.ToSlash(rel), Size: n, CRC32: h.Sum32()})
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, err
}

// writeManifest records the files of the finished index in dir along with
// what man already holds.
func writeManifest(dir string, man manifest) error {
	files, err := scanFiles(dir)
	if err != nil {
		return fmt.Errorf("search: checksum index: %w", err)
	}
	man.Files = files
	data, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return err
	}
	return writeFileSync(filepath.Join(dir, manifestName), data)
}

// checkManifest verifies that dir holds a complete index of the library
// with this hash, byte for byte as it was built.
func checkManifest(dir, hash string) (*manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, fmt.Errorf("no manifest (unfinished build?): %w", err)
	}
	var want manifest
	if err := json.Unmarshal(data, &want); err != nil {
		return nil, fmt.Errorf("unreadable manifest: %w", err)
	}
	if want.Hash != hash {
		return nil, fmt.Errorf("manifest is for content %.16s, not %.16s", want.Hash, hash)
	}
	got, err := scanFiles(dir)
	if err != nil {
		return nil, err
	}
	if len(got) != len(want.Files) {
		return nil, fmt.Errorf("index has %d files, manifest lists %d", len(got), len(want.Files))
	}
	for i, w := range want.Files {
		switch g := got[i]; {
		case g.Name != w.Name:
			return nil, fmt.Errorf("index file %s is missing or renamed", w.Name)
		case g.Size != w.Size:
			return nil, fmt.Errorf("index file %s is %d bytes, was %d when built", w.Name, g.Size, w.Size)
		case g.CRC32 != w.CRC32:
			return nil, fmt.Errorf("index file %s changed since it was built (checksum mismatch)", w.Name)
		}
	}
	return &want, nil
}

func writeFileSync(name string, data []byte) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
