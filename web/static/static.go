// Package static embeds the portal's CSS, JavaScript and vendored libraries.
// Files are served under a content checksum so they can be cached forever.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"strings"
)

//go:embed css js vendor
var FS embed.FS

// Assets maps a file path ("css/app.css") to its versioned URL path
// ("/static/css/app.css?v=1a2b3c4d") and back.
type Assets struct {
	fsys fs.FS
	urls map[string]string
}

// NewAssets hashes every file of fsys once.
func NewAssets(fsys fs.FS) *Assets {
	a := &Assets{fsys: fsys, urls: map[string]string{}}
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		sum := sha256.Sum256(b)
		a.urls[p] = "/static/" + p + "?v=" + hex.EncodeToString(sum[:])[:12]
		return nil
	})
	return a
}

// URL returns the versioned URL of a file, or its plain URL if unknown.
func (a *Assets) URL(p string) string {
	if u, ok := a.urls[strings.TrimPrefix(p, "/")]; ok {
		return u
	}
	return "/static/" + p
}

// FS is the file system the assets are served from.
func (a *Assets) FS() fs.FS { return a.fsys }
