package passhash

import (
	"strings"
	"testing"
)

func TestHashAndCheck(t *testing.T) {
	a := Argon2{Time: 1, Memory: 1024, Threads: 1}
	h := a.Hash("correct horse")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=1024,t=1,p=1$") {
		t.Fatalf("hash %q", h)
	}
	if h == a.Hash("correct horse") {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for pw, want := range map[string]bool{"correct horse": true, "correct horsE": false, "": false} {
		if ok, err := Check(pw, h); err != nil || ok != want {
			t.Errorf("Check(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=1024,t=1,p=1$c2FsdA$a2V5", "$argon2id$v=18$m=1024,t=1,p=1$c2FsdA$a2V5",
		"$argon2id$v=19$m=x,t=1,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=1024,t=1,p=1$!!$a2V5"} {
		if ok, err := Check("correct horse", bad); ok || err == nil {
			t.Errorf("Check against %q = %v, %v; want an error", bad, ok, err)
		}
	}
	if d := a.Dummy(); d != a.Dummy() || !strings.Contains(d, "m=1024,t=1,p=1") {
		t.Errorf("dummy hash %q not kept per cost", d)
	}
}
