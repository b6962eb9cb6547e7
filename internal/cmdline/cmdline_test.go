package cmdline

import (
	"errors"
	"io"
	"testing"
)

// The argument of a command of one argument may come before, among or after its flags; none,
// or two, is a usage error.
func TestParseArg(t *testing.T) {
	for _, args := range [][]string{{"F", "--k", "v", "--b"}, {"--k", "v", "F", "--b"}, {"--k", "v", "--b", "F"}} {
		fs := NewFlags("test", "FILE", "", io.Discard)
		k, b := fs.String("k", "", ""), fs.Bool("b", false, "")
		arg, err := ParseArg(fs, args, "a FILE")
		if err != nil || arg != "F" || *k != "v" || !*b {
			t.Errorf("%q: %q, %v, k %q, b %v", args, arg, err, *k, *b)
		}
	}
	for _, args := range [][]string{{}, {"--k", "v"}, {"F", "G"}, {"F", "--k", "v", "G"}, {"F", "--nope"}} {
		fs := NewFlags("test", "FILE", "", io.Discard)
		fs.String("k", "", "")
		if _, err := ParseArg(fs, args, "a FILE"); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}
