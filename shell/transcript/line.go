package transcript

import (
	"encoding/json"
	"errors"
	"time"
)

// The kinds of Line.
const (
	KindIn  = "in"  // a command line entered
	KindOut = "out" // its answer as shown (an error's what, why and fix)
)

// Line is one line of a transcript: a command entered or its answer.
type Line struct {
	Time time.Time `json:"t"`
	PID  int       `json:"pid"`
	// Face is the front end that ran it: prompt, script or dash.
	Face string `json:"face"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// parseLine reads one JSON line of a transcript; a line that is not one
// (damaged, cut short, another kind) is an error.
func parseLine(b []byte) (Line, error) {
	var l Line
	if err := json.Unmarshal(b, &l); err != nil {
		return Line{}, err
	}
	if l.Kind != KindIn && l.Kind != KindOut {
		return Line{}, errors.New("transcript: a line of unknown kind " + l.Kind)
	}
	if l.Time.IsZero() || l.PID <= 0 {
		return Line{}, errors.New("transcript: a line without its time or process")
	}
	return l, nil
}
