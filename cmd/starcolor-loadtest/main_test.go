package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad command lines are refused with their reason before any request is sent; the help is the
// command's.
func TestLoadtestUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "typo.db")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--keys", "v4"}, 2, "--keys \"v4\": uuid7 or random"},
		{[]string{"--addr", "http://192.0.2.1:8080"}, 2, "loopback"},
		{[]string{"--mode", "turbo"}, 2, "auto or manual"},
		{[]string{"--players", "0"}, 2, "starcolor-loadtest: --players 0: between 1 and"},
		{[]string{"--stake", "2", "--deposit", "1"}, 2, "--deposit 1 is less than the stake 2"},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-h"}, 0, "Usage: starcolor-loadtest [--addr URL[,URL…]]"},
		{[]string{"fill", "--games", "10"}, 2, "--db is required"},
		{[]string{"fill", "--db", "x.db", "--games", "0"}, 2, "--games 0: at least 1"},
		{[]string{"fill", "--db", "x.db", "--games", "10", "--heavy", "0"}, 2, "--players and --heavy: at least 1"},
		{[]string{"size"}, 2, "--db is required"},
		{[]string{"size", "--db", missing}, 1, "no database at " + missing},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), c.args, &out, &errOut)
		if code != c.code || !strings.Contains(errOut.String(), c.says) {
			t.Errorf("%v: exit %d, %s", c.args, code, errOut.String())
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("size made the database it was asked about: %s", missing)
	}
}
