package dash

// The dashboard's runtime policy, in one place. Everything else is Go's
// default (GOMAXPROCS, GOGC, GOMEMLIMIT all work as for any program).

// FPS is the most frames a second the dashboard draws. Bubble Tea's
// renderer wakes at this rate even when nothing changed; 30 keeps a key's
// echo within a frame a person does not notice and halves the idle
// wake-ups of the default 60.
const FPS = 30

// fullEvery is how many ticks pass between two readings of the GID
// tables and IRQs (port states and counters are read every tick): a
// GID table is up to 1,024 entries of three files each, and neither
// changes at a person's pace.
const fullEvery = 10
