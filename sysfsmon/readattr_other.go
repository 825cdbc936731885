//go:build !unix

package sysfsmon

import "os"

// readAttr reads a whole file; only unix systems have sysfs.
func readAttr(name string) ([]byte, error) { return os.ReadFile(name) }
