// Package browsertest starts Debian's headless Chromium for the browser tests of the game page
// and the back office (chromedp), and keeps their screenshots for people to look at.
//
// Where Chromium is absent the tests skip and say so, except under CI (CI=true), where a missing
// browser is a failure: there the browser tests must run.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// candidates are where Chromium may be; STARCOLOR_CHROMIUM overrides them.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"}

// Path finds the browser, or returns "".
func Path() string {
	if p := os.Getenv("STARCOLOR_CHROMIUM"); p != "" {
		return p
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	return ""
}

// Options size the browser window; the zero value is a desktop window.
type Options struct {
	Width, Height int
	Mobile        bool // a phone-sized window (390×844, touch)
}

// New starts a headless Chromium for the test and returns a context whose first tab is ready.
// The browser is closed when the test ends.
func New(t testing.TB, o Options) context.Context {
	t.Helper()
	path := Path()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("Chromium is not installed, and CI must run the browser tests (apt-get install chromium)")
		}
		t.Skip("skipping browser test: Chromium is not installed (apt-get install chromium, or set STARCOLOR_CHROMIUM)")
	}
	if testing.Short() {
		t.Skip("skipping browser test in -short mode")
	}
	if o.Width == 0 {
		o.Width, o.Height = 1280, 900
		if o.Mobile {
			o.Width, o.Height = 390, 844
		}
	}
	// The flags keep Chromium off the network: this machine's network is closed, and a browser
	// that tries to reach Google's services at start-up is slow and noisy.
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(o.Width, o.Height),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Run starts the browser; its context must carry no timeout (chromedp.Run).
	var start []chromedp.Action[chromedp.Void]
	if o.Mobile {
		start = append(start, chromedp.EmulateViewport(int64(o.Width), int64(o.Height), chromedp.EmulateMobile, chromedp.EmulateTouch))
	}
	if err := chromedp.Do(ctx, start...); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// Timeout bounds a step of a browser test, so that a page that never shows what the test waits
// for fails the test instead of hanging it.
func Timeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

var (
	dirOnce sync.Once
	dir     string
)

// Dir is the folder where this run's screenshots go: STARCOLOR_SCREENSHOTS, or a new temporary
// folder (never inside the repository).
func Dir(t testing.TB) string {
	dirOnce.Do(func() {
		dir = os.Getenv("STARCOLOR_SCREENSHOTS")
		if dir == "" {
			dir, _ = os.MkdirTemp("", "starcolor-screenshots-")
		}
		os.MkdirAll(dir, 0o755)
	})
	return dir
}

// Screenshot saves the whole page as NAME.png in Dir and logs where.
func Screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100 makes a PNG; less, a JPEG
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(Dir(t), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	t.Logf("screenshot: %s", p)
}
