//go:build !unix

package main

// lockServed does nothing where advisory file locks are not available (see servelock_unix.go).
func lockServed(db string) (release func(), err error) { return func() {}, nil }
