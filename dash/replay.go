package dash

import (
	"context"
	"fmt"

	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/ui"
	"github.com/verbscope/verbscope/view"
)

// replaySources plays the recording at path from at as the
// dashboard's sources: the same views, fed from the file. No system is
// read, and the shell pane shows the recorded shells, read-only. stop
// ends the playback and closes the file.
func replaySources(ctx context.Context, path, at string) (ui.Sources, func(), error) {
	r, err := rec.Open(ctx, path)
	if err != nil {
		return ui.Sources{}, nil, err
	}
	in, err := r.Info(ctx)
	if err != nil {
		r.Close()
		return ui.Sources{}, nil, err
	}
	t, err := rec.ParseAt(at, in.From, in.To)
	if err != nil {
		r.Close()
		return ui.Sources{}, nil, fmt.Errorf("%w: --at %v", ErrBadOption, err)
	}
	p, err := rec.NewPlayer(ctx, r, t)
	if err != nil {
		r.Close()
		return ui.Sources{}, nil, err
	}
	src := ui.Sources{
		// The header shows the file's words: Printable, whoever wrote them.
		Host:        ui.HostInfo{Hostname: view.Printable(in.Host["hostname"]), Kernel: view.Printable(in.Host["kernel"]), RDMACore: view.Printable(in.Host["rdma_core"])},
		Res:         p.Frames(),
		Sys:         p.Updates(),
		Replay:      player{p, in},
		ReplayShell: p.Shell(),
		Verdicts:    replayVerdicts(p.Verdicts()),
		Interval:    in.Interval(),
	}
	return src, func() { p.Close(); r.Close() }, nil
}

// player is rec's Player as the dashboard steers it.
type player struct {
	*rec.Player
	info rec.Info
}

// SeekTo reads a time as --at does (start, end, -3m, 09:24:05, ...).
func (p player) SeekTo(text string) error {
	t, err := rec.ParseAt(text, p.info.From, p.info.To)
	if err != nil {
		return err
	}
	p.Seek(t)
	return nil
}

// Resume does nothing: a recording has no live to return to.
func (p player) Resume() {}

func (p player) Position() ui.ReplayPosition {
	s := p.Status()
	return ui.ReplayPosition{Time: s.Time, Index: s.Index, Len: s.Len, Playing: s.Playing, Speed: s.Speed}
}
