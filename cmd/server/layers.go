package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"casebook/internal/library"
	deflib "casebook/library"
)

// libraryList is the value of --library: a folder per flag, given several
// times, or a comma-separated list in CASEBOOK_LIBRARY. Folders on the
// command line replace those of the environment, as for every other flag.
type libraryList struct {
	dirs    *[]string
	fromEnv bool
}

func (l libraryList) String() string {
	if l.dirs == nil {
		return ""
	}
	return strings.Join(*l.dirs, ",")
}

func (l *libraryList) Set(v string) error {
	if l.fromEnv {
		*l.dirs, l.fromEnv = nil, false
	}
	*l.dirs = append(*l.dirs, splitList(v)...)
	return nil
}

// libraries registers --library on fl.
func (f *flagSet) libraries(p *[]string, usage string) {
	v := &libraryList{dirs: p}
	if env := f.getenv(envName("library")); env != "" {
		*p, v.fromEnv = splitList(env), true
	}
	f.Var(v, "library", usage+" (env "+envName("library")+", comma-separated)")
}

const libraryUsage = "a library folder to serve: a team's layer (a folder with layer.yaml) is stacked on the embedded public library; " +
	"give it several times for several layers; a folder without layer.yaml is a whole public library and replaces the embedded one; each is watched and reloaded on change"

// libraryLayers turns the configured folders into the library's layers,
// bottom first: the embedded public library, unless noEmbedded is set or
// the first folder is itself a public library, then each folder. A folder
// that is neither a public library nor a team's layer is refused here, at
// start, with the fix; a layer that breaks later is left out or keeps its
// previous version (see library.Stack).
//
// Each folder is read as a library.Folder: only regular files inside it, of
// at most maxFile bytes (0: library.DefaultMaxFile, --layer-file-mb).
func libraryLayers(dirs []string, noEmbedded bool, maxFile int64) ([]library.Layer, error) {
	var layers []library.Layer
	for i, dir := range dirs {
		_, errLayer := os.Stat(filepath.Join(dir, library.LayerFile))
		_, errTax := os.Stat(filepath.Join(dir, "taxonomy.yaml"))
		switch {
		case errLayer != nil && errTax != nil:
			return nil, fmt.Errorf("--library %s is not a library folder: a team's layer holds %s (name, prefix), a public library taxonomy.yaml", dir, library.LayerFile)
		case errLayer != nil && i > 0:
			return nil, fmt.Errorf("--library %s has no %s: only the first folder may be a whole public library; give a team's layer a %s with its name and incident-id prefix", dir, library.LayerFile, library.LayerFile)
		case i == 0 && errLayer == nil && !noEmbedded:
			layers = append(layers, library.Layer{FS: deflib.FS, Embedded: true})
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		layers = append(layers, library.Layer{FS: library.NewFolder(dir, maxFile), Root: filepath.ToSlash(filepath.Clean(dir)), Dir: abs})
	}
	if len(layers) == 0 {
		if noEmbedded {
			return nil, errors.New("--no-embedded needs at least one --library folder")
		}
		return []library.Layer{{FS: deflib.FS, Embedded: true}}, nil
	}
	if len(layers) == 1 {
		layers[0].Root = "" // a library on its own: paths relative to it, as always
	}
	return layers, nil
}

// layerFileFlag registers --layer-file-mb.
func layerFileFlag(fl *flagSet, p *int) error {
	return fl.integer(p, "layer-file-mb", library.DefaultMaxFile>>20,
		"largest file of a library folder read, in MiB: a larger one (or a link out of its folder, a device or a pipe) is a problem at its path and is not read")
}

// layerFileLimit is --layer-file-mb in bytes (0: the default).
func (c config) layerFileLimit() int64 { return int64(max(0, c.LayerFileMB)) << 20 }

// libraryStack is the stack of the configured layers.
func libraryStack(c config) (*library.Stack, error) {
	layers, err := libraryLayers(c.Libraries, c.NoEmbedded, c.layerFileLimit())
	if err != nil {
		return nil, err
	}
	return library.NewStack(layers...), nil
}

// libraryName says what is served, for the log.
func libraryName(c config) string {
	var parts []string
	if len(c.Libraries) == 0 || !c.NoEmbedded && !isPublicFolder(c.Libraries[0]) {
		parts = append(parts, "embedded")
	}
	return strings.Join(append(parts, c.Libraries...), " + ")
}

func isPublicFolder(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, library.LayerFile))
	return errors.Is(err, fs.ErrNotExist)
}

// dirLayers are the layers of a command's single --library folder ("" for
// the embedded library alone).
func dirLayers(dir string) ([]library.Layer, error) {
	if dir == "" {
		return libraryLayers(nil, false, 0)
	}
	return libraryLayers([]string{dir}, false, 0)
}
