// Package atomicfile writes a file whole or not at all.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file beside it (named after it,
// with a leading dot), buffered, and renames it into place once write, the
// flush and the close all succeeded: a reader of path sees the old file or
// the whole new one, and a failure leaves nothing behind. The file gets
// perm.
func Write(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 256<<10)
	err = write(w)
	for _, e := range []error{w.Flush(), tmp.Chmod(perm), tmp.Close()} {
		if err == nil {
			err = e
		}
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}
