//go:build unix

package bench

import "syscall"

// syncDisks writes the page cache's dirty pages out, so a measurement does
// not pay for the writeback of files written before it (the generated
// library, the last run's data folder).
func syncDisks() { syscall.Sync() }
