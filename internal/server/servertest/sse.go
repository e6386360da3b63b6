package servertest

import (
	"bufio"
	"io"
	"strings"
)

// SSEEvent is one event of a text/event-stream, or one comment line
// (Comment holds ":" and what follows; the other fields are empty).
type SSEEvent struct {
	Event, ID, Data string
	Comment         string
}

// ReadSSE parses the text/event-stream r into events, as a browser's
// EventSource would dispatch them, until r ends; then it closes events.
func ReadSSE(r io.Reader, events chan<- SSEEvent) {
	defer close(events)
	br := bufio.NewReader(r)
	var ev SSEEvent
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case line == "":
			if ev != (SSEEvent{}) {
				events <- ev
			}
			ev = SSEEvent{}
		case field == "":
			events <- SSEEvent{Comment: line}
		case field == "event":
			ev.Event = value
		case field == "id":
			ev.ID = value
		case field == "data":
			ev.Data += value
		}
	}
}
