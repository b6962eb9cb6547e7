package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axe-core (Deque's accessibility engine, from npm) checks the pages in the browser tests. .ci/run
// installs it and names it in STARCOLOR_AXE; without it the check skips and says so, except under
// CI, where it must run.

var (
	axeOnce sync.Once
	axeSrc  string
	axeErr  error
)

// axeScript reads axe.min.js: from STARCOLOR_AXE, or where .ci/run installs it.
func axeScript() (string, error) {
	axeOnce.Do(func() {
		path := os.Getenv("STARCOLOR_AXE")
		if path == "" {
			path = filepath.Join(moduleRoot(), ".ci", "npm", "node_modules", "axe-core", "axe.min.js")
		}
		b, err := os.ReadFile(path)
		axeSrc, axeErr = string(b), err
	})
	return axeSrc, axeErr
}

// moduleRoot is the folder of go.mod above the test's working directory.
func moduleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// Violation is one rule axe-core finds broken, with the elements that break it.
type Violation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// Axe runs axe-core on the page as it stands and fails the test for every serious or critical
// violation, naming the page (what) and the elements. Without axe-core it logs that it skipped
// (fails under CI).
func Axe(t testing.TB, ctx context.Context, what string) {
	t.Helper()
	src, err := axeScript()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("axe-core is missing, and CI must run the accessibility checks (.ci/run installs it): %v", err)
		}
		t.Logf("skipping the accessibility check of %s: axe-core is not installed (npm install --prefix .ci/npm axe-core, or set STARCOLOR_AXE): %v", what, err)
		return
	}
	c, cancel := Timeout(ctx, 60*time.Second)
	defer cancel()
	js := `(async () => {
		if (!window.axe) { ` + src + `
		}
		const r = await axe.run(document, {resultTypes: ['violations']});
		return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => ({
			id: v.id, impact: v.impact, help: v.help,
			targets: v.nodes.slice(0, 8).map(n => n.target.join(' ') + (n.failureSummary ? ' — ' + n.failureSummary.replace(/\s+/g, ' ') : '')),
		}));
	})()`
	vs, err := chromedp.Run(c, chromedp.Evaluate[[]Violation](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe-core on %s: %v", what, err)
	}
	for _, v := range vs {
		t.Errorf("accessibility, %s: %s (%s): %s\n\t%s", what, v.ID, v.Impact, v.Help, strings.Join(v.Targets, "\n\t"))
	}
	if len(vs) == 0 {
		t.Logf("accessibility, %s: no serious or critical violation (axe-core)", what)
	}
}
