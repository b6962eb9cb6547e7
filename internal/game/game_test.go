package game

import (
	"strings"
	"testing"
	"time"
)

func TestPasswordHashes(t *testing.T) {
	a := Argon2{Time: 1, Memory: 1024, Threads: 1}
	h := a.hash("correct horse")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=1024,t=1,p=1$") {
		t.Fatalf("hash %q is not in the PHC format", h)
	}
	if h == a.hash("correct horse") {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for pw, want := range map[string]bool{"correct horse": true, "correct horsE": false, "": false} {
		if ok, err := checkPassword(pw, h); err != nil || ok != want {
			t.Errorf("checkPassword(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=1024,t=1,p=1$AAAA$AAAA", strings.Replace(h, "v=19", "v=18", 1), h[:len(h)-10] + "!!!!!!!!!!"} {
		if ok, err := checkPassword("correct horse", bad); ok || err == nil {
			t.Errorf("hash %q accepted (%v, %v)", bad, ok, err)
		}
	}
}

func TestLockFor(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 0, 4: 0, 5: 2 * time.Second, 6: 4 * time.Second, 10: 64 * time.Second, 14: 15 * time.Minute, 100: 15 * time.Minute} {
		if got := lockFor(n); got != want {
			t.Errorf("lockFor(%d) = %v, want %v", n, got, want)
		}
	}
}
