//go:build !linux

package library

import "io/fs"

// sysStat says no: without a change time the cache cannot tell a rewritten
// file from an unchanged one.
func sysStat(fs.FileInfo) (fileStat, bool) { return fileStat{}, false }
