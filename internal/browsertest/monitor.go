package browsertest

import (
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// monitor records what a page requests and writes to its console, for
// waiting on the network and for failure messages.
type monitor struct {
	origin string

	mu       sync.Mutex
	inflight map[network.RequestID]request
	lastSeen time.Time // last request start or end
	fetches  int       // fetch and XHR requests that ended
	external []string  // requests to other origins
	failed   []string
	console  []string
}

func newMonitor(pageURL string) *monitor {
	return &monitor{
		origin:   pageOrigin(pageURL),
		inflight: map[network.RequestID]request{},
		lastSeen: time.Now(),
	}
}

type request struct {
	typ network.ResourceType
	url string
}

// onEvent is a chromedp.Listen func: it runs in the tab's event loop.
func (m *monitor) onEvent(ev any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		u := ev.Request.URL
		if !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") && pageOrigin(u) != m.origin {
			m.external = append(m.external, ev.Request.Method+" "+u)
		}
		m.lastSeen = time.Now()
		// A worker's script from a blob: URL (MapLibre's) never reports
		// its end: only network requests count as in flight.
		if !strings.HasPrefix(u, "blob:") {
			m.inflight[ev.RequestID] = request{ev.Type, u}
		}
	case *network.EventLoadingFinished:
		m.ended(ev.RequestID)
	case *network.EventLoadingFailed:
		if r, ok := m.inflight[ev.RequestID]; ok {
			m.failed = append(m.failed, strings.TrimSpace(fmt.Sprintf("%s %s %s", r.url, ev.ErrorText, ev.BlockedReason)))
		}
		m.ended(ev.RequestID)
	case *network.EventResponseReceived:
		if ev.Response.Status >= 400 {
			m.failed = append(m.failed, fmt.Sprintf("%d %s", ev.Response.Status, ev.Response.URL))
		}
	}
}

func (m *monitor) ended(id network.RequestID) {
	r, ok := m.inflight[id]
	if !ok {
		return
	}
	delete(m.inflight, id)
	if r.typ == network.ResourceTypeFetch || r.typ == network.ResourceTypeXHR {
		m.fetches++
	}
	m.lastSeen = time.Now()
}

// readConsole keeps the page's errors and warnings until the tab ends.
func (m *monitor) readConsole(messages iter.Seq2[chromedp.ConsoleMessage, error]) {
	for msg, err := range messages {
		if err != nil {
			return
		}
		switch msg.Type {
		case chromedp.ConsoleError, chromedp.ConsoleException, chromedp.ConsoleWarning:
			m.mu.Lock()
			m.console = append(m.console, fmt.Sprintf("%s (%s:%d)", msg, msg.URL, msg.Line+1))
			m.mu.Unlock()
		}
	}
}

func (m *monitor) fetchCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fetches
}

// quietFor says how long no request has been in flight.
func (m *monitor) quietFor() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.inflight) > 0 {
		return 0
	}
	return time.Since(m.lastSeen)
}

func (m *monitor) idle() bool { return m.quietFor() > 0 }

// offlineProblems lists requests to other hosts and CSP violations.
func (m *monitor) offlineProblems() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append([]string(nil), m.external...)
	for _, c := range m.console {
		if strings.Contains(c, "Content Security Policy") {
			out = append(out, c)
		}
	}
	return out
}

// report describes what the page did, for a failure message.
func (m *monitor) report(browserOutput string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	section := func(title string, lines []string) {
		if len(lines) > 0 {
			fmt.Fprintf(&b, "%s:\n  %s\n", title, strings.Join(lines, "\n  "))
		}
	}
	section("page console errors and warnings", m.console)
	section("failed requests", m.failed)
	section("requests to other hosts", m.external)
	var lines []string
	for line := range strings.Lines(browserOutput) {
		// Chromium complains about the missing D-Bus on every start.
		if line = strings.TrimSpace(line); line != "" && !strings.Contains(line, "dbus") {
			lines = append(lines, line)
		}
	}
	if len(lines) > 20 {
		lines = append([]string{"…"}, lines[len(lines)-20:]...)
	}
	section("chromium output", lines)
	return b.String()
}
