package passhash

import (
	"strings"
	"testing"
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
