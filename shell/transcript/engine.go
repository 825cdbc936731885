package transcript

import (
	"context"

	"github.com/verbscope/verbscope/shell/front"
)

// engine is a shell whose commands and answers go to a transcript.
type engine struct {
	front.Engine
	w *writer
}

// Wrap returns e with its session written to a transcript in the
// session directory (face: prompt, script or dash); e itself when
// there is none. Closing it closes e, then removes the transcript.
func Wrap(e front.Engine, face string) front.Engine {
	w := openWriter("", face)
	if w == nil {
		return e
	}
	return &engine{Engine: e, w: w}
}

// Exec runs the command, writing it before and its answer after: the
// result's text, or the error as a terminal shows it.
func (e *engine) Exec(ctx context.Context, command string) (front.Result, error) {
	e.w.Write(KindIn, command)
	res, err := e.Engine.Exec(ctx, command)
	if err != nil {
		e.w.Write(KindOut, err.Error())
	} else {
		e.w.Write(KindOut, res.Text)
	}
	return res, err
}

// Close closes the shell, then removes the transcript.
func (e *engine) Close() error {
	err := e.Engine.Close()
	e.w.Close()
	return err
}
