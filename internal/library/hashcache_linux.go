//go:build linux

package library

import (
	"io/fs"
	"syscall"
)

// sysStat reads the stat fields the hash cache compares.
func sysStat(fi fs.FileInfo) (fileStat, bool) {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}, false
	}
	return fileStat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Ctime: sys.Ctim.Nano(),
		Ino: uint64(sys.Ino), Dev: uint64(sys.Dev)}, true
}
