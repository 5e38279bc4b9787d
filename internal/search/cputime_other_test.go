//go:build !unix

package search

import "time"

func cpuTime() time.Duration { return 0 }
