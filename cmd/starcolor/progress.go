package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressBar draws a one-line bar on a terminal, at most ten times a second; on anything else
// (a pipe, a file, a test) it draws nothing, so logs stay clean.
type progressBar struct {
	w     io.Writer
	label string
	start time.Time
	mu    sync.Mutex
	last  time.Time
	on    bool
}

func newProgressBar(w io.Writer, label string) *progressBar {
	f, ok := w.(*os.File)
	return &progressBar{w: w, label: label, start: time.Now(), on: ok && term.IsTerminal(int(f.Fd()))}
}

// Update shows done out of total units.
func (p *progressBar) Update(done, total int) {
	if !p.on || total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	filled := width * done / total
	elapsed := now.Sub(p.start)
	eta := ""
	if done > 0 && done < total {
		eta = fmt.Sprintf(", %s left", (time.Duration(float64(elapsed) * float64(total-done) / float64(done))).Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% %d/%d units, %s%s\x1b[K", p.label, strings.Repeat("█", filled),
		strings.Repeat("░", width-filled), 100*done/total, done, total, elapsed.Round(100*time.Millisecond), eta)
}

// Done ends the bar's line.
func (p *progressBar) Done() {
	if p.on {
		fmt.Fprintln(p.w)
	}
}
