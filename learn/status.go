package learn

// Status is where the learner is, as a pane shows it: plain data, read
// after each command.
type Status struct {
	Number   int // the lesson's number
	Position int // 1-based place in the course
	Lessons  int
	Title    string
	Step     int // 1-based
	Steps    int
	StepName string
	Text     string
	Checks   []CheckState
	Said     string // what the last step done did
	Over     bool   // the course is finished
}

// CheckState is one check of the current step as last judged.
type CheckState struct {
	Text       string
	OK, Judged bool
}

// Status reports the course's state now. It never waits for a running
// command.
func (t *Tutor) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.o.Lessons[t.lesson]
	s := l.Steps[t.step]
	st := Status{Number: l.Number, Position: t.lesson + 1, Lessons: len(t.o.Lessons), Title: l.Title,
		Step: t.step + 1, Steps: len(l.Steps), StepName: s.Title, Text: s.Text, Said: t.said, Over: t.finished}
	judged := map[string]bool{}
	for _, o := range t.last {
		judged[o.Check.Text] = o.OK
	}
	for _, c := range s.Checks {
		ok, was := judged[c.Text]
		st.Checks = append(st.Checks, CheckState{Text: c.Text, OK: ok, Judged: was})
	}
	return st
}
