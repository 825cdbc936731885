package fleet

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteTextEscapes: instance and alert names come from a Prometheus
// answer, outside text; the table quotes their control bytes.
func TestWriteTextEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, []Host{{Instance: "h1\x1b]0;x\x07:9879", Up: true, Alerts: []string{"Stuck\x1b[2J"}}}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") || !strings.Contains(b.String(), `h1\x1b]0;x\x07:9879`) || !strings.Contains(b.String(), `Stuck\x1b[2J`) {
		t.Errorf("WriteText:\n%q", b.String())
	}
}
