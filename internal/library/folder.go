package library

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// A team's layer is written by people who are not the portal's operators,
// so its folder is read as untrusted input: a symbolic link to /dev/zero,
// to /etc/passwd or into a restricted layer, a pipe, or a file of a few
// gigabytes must cost the server nothing but a problem at its path.

// DefaultMaxFile is the largest layer file read unless the operator allows
// more (Folder.MaxFile). The largest file of the shipped library is well
// under 100 KB.
const DefaultMaxFile = 4 << 20

// Why a layer file was not read. Each is a problem at the file's path; the
// rest of the layer loads.
var (
	ErrOutsideLayer = errors.New("not read: a symbolic link to a target outside the layer's folder (only links that stay inside the layer are followed)")
	ErrNotRegular   = errors.New("not read: not a regular file")
	ErrFileTooLarge = errors.New("not read: larger than the layer file limit")
)

// Folder is a layer's folder on disk, read the way the loader may read a
// layer: every name is resolved inside Dir (os.Root), so a symbolic link is
// followed only while its target stays inside the folder; only regular
// files are opened, and none larger than MaxFile. Dir itself may be a
// symbolic link (git-sync publishes its checkout that way): it is resolved
// again on every call, so a swapped checkout is read whole.
type Folder struct {
	Dir     string
	MaxFile int64 // 0: DefaultMaxFile
}

// NewFolder returns the folder dir with files up to maxFile bytes (0:
// DefaultMaxFile).
func NewFolder(dir string, maxFile int64) Folder {
	return Folder{Dir: dir, MaxFile: maxFile}
}

func (f Folder) limit() int64 {
	if f.MaxFile > 0 {
		return f.MaxFile
	}
	return DefaultMaxFile
}

// Open opens a directory or a regular file of the folder; anything else is
// refused before it is opened (a pipe would block the open).
func (f Folder) Open(name string) (fs.File, error) {
	r, err := f.root(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	fi, err := f.stat(r, name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil, notRegular(name, fi)
	}
	return r.FS().Open(name)
}

// Stat is fs.Stat inside the folder; a link out of it is ErrOutsideLayer.
func (f Folder) Stat(name string) (fs.FileInfo, error) {
	r, err := f.root(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return f.stat(r, name)
}

// ReadDir lists a directory of the folder, sorted by name.
func (f Folder) ReadDir(name string) ([]fs.DirEntry, error) {
	r, err := f.root(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if _, err := f.stat(r, name); err != nil {
		return nil, err
	}
	return fs.ReadDir(r.FS(), name)
}

// ReadFile reads a regular file of the folder of at most MaxFile bytes.
// The size is checked before reading, and the read stops past the limit
// should the file grow meanwhile.
func (f Folder) ReadFile(name string) ([]byte, error) {
	r, err := f.root(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	fi, err := f.stat(r, name)
	if err != nil {
		return nil, err
	}
	if err := f.readable(name, fi); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should the file be swapped for a pipe since the stat,
	// the open does not wait for a writer; the check below refuses it.
	file, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if fi, err = file.Stat(); err != nil {
		return nil, err
	}
	if err := f.readable(name, fi); err != nil {
		return nil, err
	}
	data := make([]byte, 0, fi.Size()+1)
	data, err = readUpTo(file, data, f.limit())
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// readUpTo reads r to its end into data, or fails with ErrFileTooLarge
// past limit bytes.
func readUpTo(r io.Reader, data []byte, limit int64) ([]byte, error) {
	lr := io.LimitReader(r, limit+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := lr.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, ErrFileTooLarge
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readable refuses what ReadFile must not read: anything but a regular
// file, or a file over the limit.
func (f Folder) readable(name string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return notRegular(name, fi)
	}
	if fi.Size() > f.limit() {
		return &fs.PathError{Op: "read", Path: name,
			Err: fmt.Errorf("%w (%d MiB; the limit is %d MiB)", ErrFileTooLarge, ceilMiB(fi.Size()), ceilMiB(f.limit()))}
	}
	return nil
}

func ceilMiB(n int64) int64 { return (n + 1<<20 - 1) >> 20 }

func notRegular(name string, fi fs.FileInfo) error {
	what := "a directory"
	switch m := fi.Mode(); {
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		what = "a device"
	case !m.IsDir():
		what = "not a plain file (" + m.Type().String() + ")"
	}
	return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, what)}
}

// root opens the folder for one call. A name fs.FS would refuse is refused
// first, as os.DirFS does.
func (f Folder) root(name string) (*os.Root, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return os.OpenRoot(f.Dir)
}

// stat stats name in r, following links inside r. os.Root refuses a link
// whose target leaves r with an error of its own, not ErrNotExist: that
// error on a name that is a link, or under one, is ErrOutsideLayer.
func (f Folder) stat(r *os.Root, name string) (fs.FileInfo, error) {
	fi, err := r.Stat(name)
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return fi, err
	}
	lfi, lerr := r.Lstat(name)
	if lerr == nil && lfi.Mode()&fs.ModeSymlink != 0 || lerr != nil && !errors.Is(lerr, fs.ErrNotExist) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrOutsideLayer}
	}
	return nil, err
}
