//go:build !unix

package filelock

import "os"

func tryLock(*os.File) error { return ErrUnsupported }
