package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The CPU that the play phase costs, on each side: the load tool's own (getrusage), and the
// server's when it publishes the Prometheus process metrics at /metrics on the listener it keeps
// for them (serve --metrics-addr), as starcolor serve does. Both run on one machine, so together they are the machine's cost of a play, against
// which the raw costs of docs/PERFORMANCE.md are read.

// cpuSample is the CPU time used so far by the load tool and, if known, by the server.
type cpuSample struct {
	tool, server time.Duration
	serverKnown  bool
	why          error // why the server's is not known
}

func (r *runner) sampleCPU(ctx context.Context) cpuSample {
	s := cpuSample{tool: processCPU()}
	s.server, s.why = r.serverCPU(ctx)
	s.serverKnown = s.why == nil
	return s
}

// serverCPU sums process_cpu_seconds_total from the servers' /metrics. Any failure (no metrics
// listener given, no such page, no such metric, not the text format) means the servers' CPU is
// not known, and says why.
func (r *runner) serverCPU(ctx context.Context) (time.Duration, error) {
	var sum time.Duration
	for _, ep := range r.eps {
		cpu, err := ep.serverCPU(ctx)
		if err != nil {
			return 0, err
		}
		sum += cpu
	}
	return sum, nil
}

// errNoMetrics is a server whose metrics' listener was not given (--metrics).
var errNoMetrics = errors.New("no --metrics")

func (ep *endpoint) serverCPU(ctx context.Context) (time.Duration, error) {
	if ep.metrics == nil {
		return 0, errNoMetrics
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep.metrics.base+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	res, err := (&http.Client{Transport: ep.metricsTransport, CheckRedirect: noRedirect}).Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s/metrics: %s", ep.metrics.base, res.Status)
	}
	secs, err := parseProcessCPU(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return 0, fmt.Errorf("%s/metrics: %w", ep.metrics.base, err)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// parseProcessCPU finds process_cpu_seconds_total in a Prometheus text exposition.
func parseProcessCPU(in io.Reader) (float64, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(in)
	if err != nil {
		return 0, err
	}
	f := families["process_cpu_seconds_total"]
	if f == nil || len(f.GetMetric()) != 1 {
		return 0, fmt.Errorf("no single process_cpu_seconds_total")
	}
	m := f.GetMetric()[0]
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue(), nil
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue(), nil
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue(), nil
	}
	return 0, fmt.Errorf("process_cpu_seconds_total has no value")
}
