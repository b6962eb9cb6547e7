package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// goList runs go list (go test puts its own go first on the PATH) and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Fields(string(out))
}

// The binary that runs the game for real money carries no test tool: none of the packages it is
// built from is the reference wallet (whose API sets balances), the load tool, a package of test
// helpers (named …test) or the standard library's testing packages. And each of its packages
// holds what its name says: the back office does not import the player's page.
func TestProductionImports(t *testing.T) {
	deps := goList(t, "-deps", "-f", "{{.ImportPath}}", "starcolor/cmd/starcolor")
	if !slices.Contains(deps, "starcolor/internal/app") || !slices.Contains(deps, "net/http") {
		t.Fatalf("go list -deps gave %d packages, without the app: the listing has gone wrong", len(deps))
	}
	for _, p := range deps {
		own := strings.HasPrefix(p, "starcolor/")
		if p == "testing" || strings.HasPrefix(p, "testing/") || p == "net/http/httptest" ||
			own && (strings.HasSuffix(p, "test") || strings.Contains(p, "fakewallet") || strings.Contains(p, "chromedp")) {
			t.Errorf("the starcolor binary is built with %s", p)
		}
	}
	for _, p := range goList(t, "-f", `{{join .Imports " "}}`, "starcolor/internal/admin") {
		if p == "starcolor/internal/web" {
			t.Error("the back office imports the player's page")
		}
	}
}

// The help lists no command that moved out, and says where they went.
func TestHelpWithoutTheTools(t *testing.T) {
	r := cli("help")
	if r.code != 0 {
		t.Fatalf("help: %+v", r)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "fakewallet" || f[0] == "loadtest") {
			t.Errorf("the help lists %q", line)
		}
	}
	if !strings.Contains(r.stdout, "starcolor-fakewallet") || !strings.Contains(r.stdout, "starcolor-loadtest") {
		t.Errorf("the help does not name the commands of their own:\n%s", r.stdout)
	}
}
