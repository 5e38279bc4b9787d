//go:build unix

package search

import "syscall"

// ringMemory maps n bytes of anonymous memory, outside the Go heap, for
// the result cache's ring (see resultCache); free unmaps them. The pages
// count towards the process's memory only once written. When the map
// fails, the ring is an ordinary slice.
func ringMemory(n int64) (ring []byte, free func()) {
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), func() {}
	}
	return b, func() { _ = syscall.Munmap(b) }
}
