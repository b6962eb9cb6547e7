package passhash

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPolicy(t *testing.T) {
	if n := CommonCount(); n < 10_000 {
		t.Fatalf("the list of common passwords holds %d, want at least 10,000", n)
	}
	p := Policy{MinRunes: 8}
	for _, c := range []struct {
		name, password string
		ok             bool
	}{
		{"astrid", "abcd", false},
		{"astrid", "1234567", false},
		{"astrid", "password", false},
		{"astrid", "PassWord", false}, // case does not matter
		{"astrid", "12345678", false},
		{"astrid", "iloveyou", false},
		{"astrid", "sunshine", false},
		{"astrid", "qwertyuiop", false},
		{"astrid", "football", false},
		{"astridsen", "AstridSen", false}, // the name itself
		{"astrid", strings.Repeat("x", 257), false},
		{"astrid", "correct horse battery staple", true},
		{"astrid", "éàüöçñßø", true}, // eight characters, sixteen bytes
		{"astrid", "éàüöçñß", false},
		{"astrid", "v8#Lq2!pZ", true},
	} {
		err := p.Check(c.name, c.password)
		if (err == nil) != c.ok {
			t.Errorf("Check(%q, %q) = %v, want accepted %v", c.name, c.password, err, c.ok)
		}
	}
}

// FuzzPolicy: any name and password, however malformed, gets an answer, never a panic, and an
// accepted password is long enough, not too long, not the name, and not on the list.
func FuzzPolicy(f *testing.F) {
	for _, s := range []string{"", "password", "correct horse battery staple", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8", "ÉCOLE-école"} {
		f.Add("name", s)
	}
	p := Policy{MinRunes: 8}
	f.Fuzz(func(t *testing.T, name, password string) {
		if p.Check(name, password) != nil {
			return
		}
		if utf8.RuneCountInString(password) < 8 || len(password) > MaxBytes || strings.EqualFold(password, name) || Common(strings.ToLower(password)) {
			t.Fatalf("accepted %q for %q", password, name)
		}
	})
}
