package inspect

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/verbscope/verbscope/counters"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// Key identifies an object across snapshots: its kind, device and
// restrack number (lqpn, cqn, mrn, pdn, ctxn, srqn, cm-idn).
type Key struct {
	Kind Kind
	Dev  string
	ID   uint32
}

// String returns "rxe0 qp 17".
//
// The device's name is Printable: a recording replayed names its
// devices as its author wrote them, escape sequences and all.
func (k Key) String() string {
	return view.Printable(k.Dev) + " " + string(k.Kind) + " " + strconv.FormatUint(uint64(k.ID), 10)
}

// Limits are a device's object limits from ibv_query_device(3)
// (max_qp, max_cq, max_mr, max_pd, max_srq). RDMA netlink does not carry
// them, so the caller passes them in; zero means unknown.
type Limits struct {
	MaxQP, MaxCQ, MaxMR, MaxPD, MaxSRQ uint64
}

func (l Limits) of(k Kind) uint64 {
	switch k {
	case rdma.KindQP:
		return l.MaxQP
	case rdma.KindCQ:
		return l.MaxCQ
	case rdma.KindMR:
		return l.MaxMR
	case rdma.KindPD:
		return l.MaxPD
	case rdma.KindSRQ:
		return l.MaxSRQ
	}
	return 0
}

// TrackerConfig tunes a Tracker; the zero value works.
type TrackerConfig struct {
	// Limits are per-device object limits, by device name.
	Limits map[string]Limits
	// LoadLimits, when set, gives Limits on the first Observe instead:
	// asking libibverbs opens every device (ibv_query_device(3)), which
	// a watcher does on its own goroutine rather than before its owner
	// has drawn anything.
	LoadLimits func() map[string]Limits
	// LimitFraction is the share of a limit at which usage is flagged
	// (default 0.9).
	LimitFraction float64
	// StallPolls is how many consecutive snapshots a QP's PSNs must stand
	// still, with its own evidence of outstanding work, before it is
	// reported stuck (default 3; see Update.Stuck).
	StallPolls int
	// Driver names a device's driver as the counters registry keys it
	// (counters.DeviceDriver; live passes sysfsmon.FS.DeviceDriver),
	// which picks the counters the stuck judgement reads of a QP's own
	// per-QP counter: counters.RetryCounters of that driver, those that
	// say it is retrying and those that say it gave up. Only a QP's
	// own counter says it retries (rdma statistic qp bind,
	// rdma_counter.c): its port's are shared by every QP of the port,
	// and rise as much for a busy neighbour's retries as for its own.
	// nil goes by the device's name (mlx5_0, rxe0); a device whose
	// driver is not known ("") is read for every driver's names.
	Driver func(dev string) string
	// HistoryLen caps each QP's state history (default 64 events; the
	// oldest go first).
	HistoryLen int
	// GoneRetention is how many vanished QPs keep their history (default
	// 1024).
	GoneRetention int
	// GrowthWindow is how far back Update.Growing looks (default
	// DefaultGrowthWindow), and GrowthMin how many objects of a kind a
	// process must have gained over it (default 10).
	GrowthWindow time.Duration
	GrowthMin    int
	// NoHistory keeps no state history: for a caller that has the
	// histories elsewhere (a replay reads them from the recording), to
	// which 10,000 QPs' first entries were a fifth of a jump's garbage.
	// History and Histories then give nothing.
	NoHistory bool
}

// defaultHistoryLen is TrackerConfig.HistoryLen's default.
const defaultHistoryLen = 64

// StateEvent is one entry of a QP's history: the state seen at Time (the
// first sighting, then every change), or Gone when the QP disappeared.
type StateEvent struct {
	Time  time.Time
	State QPState
	Gone  bool
	// SQPSN and RQPSN are the PSNs seen with the state.
	SQPSN, RQPSN uint32
	// Modify is the traced modify that set the state, or that failed
	// (Modify.Ret < 0); nil for a state a snapshot saw (Tracker.Observe).
	Modify *Modify
}

// Change is an object that appeared or disappeared, or one whose owner
// is dead (Update.Dead).
type Change struct {
	Key  Key
	PID  uint32 // 0 for kernel objects
	Comm string
	// TGID is the process of PID (0 when unknown); Owner is what /proc
	// said of the creating task.
	TGID  uint32
	Owner Owner
}

// StateChange is a QP that moved from one state to another: set by a
// traced modify (Traced), or seen between two snapshots (intermediate
// states may then have been missed).
type StateChange struct {
	Key      Key
	From, To QPState
	Time     time.Time
	// Port and Type are the QP's, as the snapshot or trace had them: a
	// QP traced between two snapshots is in none.
	Port   uint32
	Type   QPType
	Traced bool
}

// QPAlert is a QP that needs a look: in ERR or SQE, or stuck.
type QPAlert struct {
	Key   Key
	PID   uint32
	Comm  string
	State QPState
	// Since is when the QP entered the state (failed QPs) or when its
	// PSNs last moved (stuck QPs).
	Since time.Time
	// Polls is how many snapshots the PSNs have stood still (stuck QPs).
	Polls int
	// Evidence says, in a line, why the QP is judged stuck (stuck QPs):
	// the packets its peer never accepted, or its own retry counters.
	Evidence string
	// Peer is the QP on this host it is connected to (stuck QPs judged
	// by it; zero otherwise), PeerState the peer's state, and Unacked
	// how many PSNs the QP sent past what the peer accepted.
	Peer      Key
	PeerState QPState
	Unacked   uint32
	// Retries is how much each retry counter of the QP's own (a per-QP
	// counter it is bound to) rose while the PSNs stood still: those of
	// its driver's that count a request tried again (recoverable).
	Retries map[string]uint64
	// GaveUp is the same for its driver's counters of requests that
	// failed for good (terminal: retries exceeded, a refusal).
	GaveUp map[string]uint64
}

// ProcessUsage counts one process's objects on one device. PID is the
// process (the thread group), whichever of its threads created them.
type ProcessUsage struct {
	Dev    string
	PID    uint32
	Comm   string
	Counts map[Kind]int
}

// LimitUsage is a device's object count of one kind against its limit.
type LimitUsage struct {
	Dev      string
	Kind     Kind
	Count    uint64
	Limit    uint64
	Fraction float64
	// Over is set when Fraction reaches TrackerConfig.LimitFraction.
	Over bool
	// Top is the process with the most objects of the kind.
	Top ProcessUsage
}

// Update is what changed between the previous snapshot and this one, and
// what needs attention now.
type Update struct {
	Time         time.Time
	Appeared     []Change
	Disappeared  []Change
	StateChanges []StateChange
	// Failed are the QPs in ERR or SQE now.
	Failed []QPAlert
	// Stuck are reliable QPs in RTS or SQD whose PSNs stood still for
	// StallPolls snapshots with outstanding work, judged on the QP's own
	// evidence only (QPAlert.Evidence says which): a peer on this host
	// (RC, connected both ways) that has not accepted PSNs the QP sent,
	// after the QP's PSNs had moved in RTS; or its own per-QP retry
	// counters rising. RDMA netlink does not show a QP's outstanding
	// work requests, so the peer's rq_psn stands for them. A QP whose
	// PSNs stand still because it has nothing to send has neither, and
	// its port's shared counters do not count: a QP whose peer is on
	// another host, on a driver without per-QP counters, is never
	// judged.
	Stuck []QPAlert
	// Processes counts each process's objects per device, most first.
	Processes []ProcessUsage
	// Limits compares device totals with the limits passed in
	// TrackerConfig (only kinds whose limit is known); see Usage.
	Limits []LimitUsage
	// Growing are the processes whose objects of a kind only grew over
	// the window (Growth), by TGID and kind.
	Growing []Growth
	// Dead are the objects, present now, whose creating task has exited
	// (Owner.Dead): kept alive by a descriptor another process inherited,
	// or leaked. Ordered by key.
	Dead []Change
	// Transitions counts every StateChange reported so far, by group,
	// for the devices the snapshots still show (transitions.go): whole
	// in every Update, so a receiver that missed one misses no count. A
	// new map each time, never written after.
	Transitions map[Transition]uint64
}

// Tracker follows RDMA objects across snapshots (the poll loop of the
// inspector): it keeps a state history per QP and reports what appeared,
// what went away, what failed and what is stuck. It is not safe for
// concurrent use.
type Tracker struct {
	cfg  TrackerConfig
	objs map[Key]*tracked
	gen  uint64
	// seeding is set during Seed, whose report nobody reads: what
	// appeared is not listed (10,000 Changes at a replay's jump).
	seeding bool
	// took is how long the last snapshot's dump took: a state it saw
	// may have been set by a modify up to then after its start.
	took time.Duration
	// gone lists vanished QPs whose history is kept, oldest first;
	// goneSeq holds each key's latest entry, since a QP number can
	// vanish, come back and vanish again.
	gone    []goneEntry
	goneSeq map[Key]uint64
	seq     uint64
	history map[Key][]StateEvent
	// histGens is each history's change mark: a generation (generation.go)
	// given at every change of the history, so a reader that kept one
	// knows the history unchanged without a look at its events.
	// histories and handedGens are the last copies Histories handed out,
	// valid until a history changes (histChanged): an idle host's
	// readings share them.
	histGens    map[Key]uint64
	histGen     uint64
	histories   map[Key][]StateEvent
	handedGens  map[Key]uint64
	histChanged bool
	// unseen are the QPs with traced modifies that no snapshot has
	// shown yet, with the generation of the last Update before the
	// modify. One created while a dump ran shows in the next; one that
	// two Updates did not show was created and destroyed between
	// snapshots, and its history is retained like a vanished QP's, so
	// that churn cannot grow the histories without bound.
	unseen map[Key]uint64
	// The counting of state changes (transitions.go): the counts, the
	// traced changes not yet reported, the states traced modifies
	// entered that no snapshot has shown, the changes snapshots saw
	// that wait for their modify, and whether trace is up.
	transitions map[Transition]uint64
	pending     []StateChange
	entered     map[Key][]enteredState
	held        []heldChange
	traceUp     bool
	// growth holds each process's counts per kind over the window.
	growth map[ownerKind]*growthSeries
	// retryOf is each device's retry counters (retryWatchOf).
	retryOf map[string]retryWatch
	// last is what the last snapshot that was looked at whole gave
	// (tracker_idle.go).
	last lastFull
}

type goneEntry struct {
	key Key
	seq uint64
}

// tracked is what the Tracker remembers about one live object.
type tracked struct {
	gen   uint64
	pid   uint32
	comm  string
	tgid  uint32
	owner Owner
	// QPs only:
	typ        QPType
	port       uint32 // as the last snapshot showed it (0 in RESET)
	state      QPState
	stateSince time.Time
	// sqpsn is the highest sq_psn seen since the state last changed:
	// a retrying QP's sq_psn goes back (go-back-N) and forward again,
	// which is no progress.
	sqpsn uint32
	rqpsn uint32
	moved time.Time // when the PSNs last moved forward
	// movedGen is the Update that saw them move (or the state change):
	// the snapshots since are the generations since (trackQP's still),
	// not a count each Update would have to raise for every QP.
	movedGen uint64
	// sent is set once the PSNs moved forward in the current state.
	sent      bool
	retryBase map[string]uint64
	perQP     bool
}

// NewTracker returns a Tracker with cfg's settings.
func NewTracker(cfg TrackerConfig) *Tracker {
	if cfg.LimitFraction <= 0 {
		cfg.LimitFraction = 0.9
	}
	if cfg.StallPolls <= 0 {
		cfg.StallPolls = 3
	}
	if cfg.Driver == nil {
		cfg.Driver = driverByName
	}
	if cfg.HistoryLen <= 0 {
		cfg.HistoryLen = defaultHistoryLen
	}
	if cfg.GoneRetention <= 0 {
		cfg.GoneRetention = 1024
	}
	if cfg.GrowthWindow <= 0 {
		cfg.GrowthWindow = DefaultGrowthWindow
	}
	if cfg.GrowthMin <= 0 {
		cfg.GrowthMin = defaultGrowthMin
	}
	return &Tracker{cfg: cfg, objs: map[Key]*tracked{}, history: map[Key][]StateEvent{}, histGens: map[Key]uint64{}, goneSeq: map[Key]uint64{}, unseen: map[Key]uint64{},
		growth: map[ownerKind]*growthSeries{}, transitions: map[Transition]uint64{}, entered: map[Key][]enteredState{},
		retryOf: map[string]retryWatch{}}
}

// driverByName is TrackerConfig.Driver's default: what a device's name
// says of its driver (counters.DeviceDriver without sysfs).
func driverByName(dev string) string { return counters.DeviceDriver("", dev, false, "") }

// retryWatch is what the stuck judgement reads of one device's per-QP
// counters: its driver's retry counters (counters.RetryCounters), and
// which of them say a request gave up.
type retryWatch struct {
	names  []string
	gaveUp map[string]bool
}

// retryWatchOf is dev's retryWatch, its driver asked once.
func (t *Tracker) retryWatchOf(dev string) retryWatch {
	if w, ok := t.retryOf[dev]; ok {
		return w
	}
	retrying, gaveUp := counters.RetryCounters(t.cfg.Driver(dev))
	w := retryWatch{names: append(retrying, gaveUp...), gaveUp: map[string]bool{}}
	for _, n := range gaveUp {
		w.gaveUp[n] = true
	}
	t.retryOf[dev] = w
	return w
}

// History returns a QP's state history, oldest first: live QPs and the
// most recent vanished ones (TrackerConfig.GoneRetention).
func (t *Tracker) History(k Key) []StateEvent {
	return append([]StateEvent(nil), t.history[k]...)
}

// Histories returns every tracked QP's history, live and recently gone,
// in a map the Tracker never writes after handing it out: a new one
// after any history changed, else the last one again (an idle host's
// readings share it). The slices are shared, not copied: the Tracker
// never writes to a history slice it has handed out (record makes a new
// one), so the map is cheap at 10,000 QPs and safe to read on another
// goroutine while the Tracker goes on. Callers must not modify them.
func (t *Tracker) Histories() map[Key][]StateEvent {
	h, _, _ := t.HistoriesMarked()
	return h
}

// HistoriesMarked is Histories with their change marks (generations:
// the same non-zero number in two calls means the same): gen marks the
// last change of any history (Frame.HistoryGen), gens each history's
// (Frame.HistoryGens), a map handed out and never written, as the
// histories are.
func (t *Tracker) HistoriesMarked() (h map[Key][]StateEvent, gen uint64, gens map[Key]uint64) {
	if t.histories == nil || t.histChanged {
		t.histories, t.handedGens, t.histChanged = maps.Clone(t.history), maps.Clone(t.histGens), false
	}
	if t.histGen == 0 {
		t.histGen = lastGeneration.Add(1) // no history yet: marked all the same
	}
	return t.histories, t.histGen, t.handedGens
}

// Update feeds the next snapshot (snapshots must come in time order). A
// caller that reads counters elsewhere (sysfs hw_counters) may fill
// s.PortCounters before calling.
func (t *Tracker) Update(s *Snapshot) Update { return t.update(s, true) }

// Seed takes s as the snapshot the next Update reports against, without
// a report on s itself (nor a point of the growth series, which start at
// the next Update): a replay that jumps to a reading seeds a new
// Tracker with the reading before, and at 10,000 QPs sorting what
// "appeared" in it and counting each process's objects was a good part
// of the jump.
func (t *Tracker) Seed(s *Snapshot) {
	t.seeding = true
	t.update(s, false)
	t.seeding = false
}

func (t *Tracker) update(s *Snapshot, report bool) Update {
	t.gen++
	t.took = s.Took
	u := Update{Time: s.Time}
	t.judgeHeld(&u)
	if s.SameObjects(t.last.snap) {
		t.updateSame(&u, s)
		return u
	}
	end := s.Time.Add(s.Took)
	qpRetries := t.qpRetries(s)
	var connected []int
	for i := range s.QPs {
		if isConnected(s.QPs[i].State) {
			connected = append(connected, i)
		}
	}
	peers := peersOf(s, connected)
	for i := range s.QPs {
		q := &s.QPs[i]
		k := Key{rdma.KindQP, q.DevName, q.LQPN}
		tr, isNew := t.see(&u, k, &q.Object)
		if !isNew && tr.typ != q.Type {
			// The number was reused by a new QP between two snapshots.
			t.vanish(&u, k, tr)
			tr, isNew = t.add(&u, k, &q.Object), true
		}
		t.trackQP(&u, k, tr, isNew, q, peers, qpRetries, end)
	}
	// QPs were seen above, with their state tracking.
	s.Each(func(k Kind, o *Object, id uint32) {
		if k != rdma.KindQP {
			t.see(&u, Key{k, o.DevName, id}, o)
		}
	})
	// Vanish in key order, so that which histories GoneRetention keeps
	// does not depend on map order.
	var gone []Key
	for k, tr := range t.objs {
		if tr.gen != t.gen {
			gone = append(gone, k)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return keyLess(gone[i], gone[j]) })
	for _, k := range gone {
		t.vanish(&u, k, t.objs[k])
	}
	t.finish(&u, s)
	if !report {
		// What the fast path would hand out was not derived.
		t.last = lastFull{}
		return u
	}
	sortChanges(u.Appeared)
	sortChanges(u.Disappeared)
	u.Processes = processUsage(s)
	u.Growing = t.trackGrowth(s.Time, u.Processes)
	if t.cfg.LoadLimits != nil {
		t.cfg.Limits, t.cfg.LoadLimits = t.cfg.LoadLimits(), nil
	}
	u.Limits = limitUsage(s, u.Processes, t.cfg.Limits, t.cfg.LimitFraction)
	u.Dead = deadObjects(s)
	t.last = lastFull{snap: s, connected: connected, procs: u.Processes, limits: u.Limits, dead: u.Dead}
	return u
}

// see marks an object as present and returns its record, creating it
// (and reporting it as appeared) the first time, or when a different
// process now owns the number.
func (t *Tracker) see(u *Update, k Key, o *Object) (*tracked, bool) {
	tr, ok := t.objs[k]
	if ok && o.HasPID() && tr.pid != o.PID {
		t.vanish(u, k, tr)
		ok = false
	}
	if !ok {
		return t.add(u, k, o), true
	}
	tr.gen = t.gen
	if o.Comm != "" {
		tr.comm = o.Comm
	}
	if o.TGID != 0 {
		tr.tgid = o.TGID
	}
	tr.owner = o.Owner
	return tr, false
}

func (t *Tracker) add(u *Update, k Key, o *Object) *tracked {
	tr := &tracked{gen: t.gen, pid: o.PID, comm: o.Comm, tgid: o.TGID, owner: o.Owner}
	t.objs[k] = tr
	if !t.seeding {
		u.Appeared = append(u.Appeared, change(k, o))
	}
	return tr
}

// vanish forgets a live object; a QP keeps its history, closed by a Gone
// event, among the GoneRetention most recent.
func (t *Tracker) vanish(u *Update, k Key, tr *tracked) {
	delete(t.objs, k)
	u.Disappeared = append(u.Disappeared, Change{Key: k, PID: tr.pid, Comm: tr.comm, TGID: tr.tgid, Owner: tr.owner})
	if k.Kind != rdma.KindQP {
		return
	}
	delete(t.entered, k)
	t.record(k, StateEvent{Time: u.Time, State: tr.state, Gone: true, SQPSN: tr.sqpsn, RQPSN: tr.rqpsn})
	t.retain(k)
}

// retain counts k's history among the GoneRetention most recent of QPs
// that are not live, dropping the oldest beyond.
func (t *Tracker) retain(k Key) {
	t.seq++
	t.gone = append(t.gone, goneEntry{k, t.seq})
	t.goneSeq[k] = t.seq
	for len(t.goneSeq) > t.cfg.GoneRetention {
		old := t.gone[0]
		t.gone = t.gone[1:]
		if t.goneSeq[old.key] != old.seq {
			continue // an older entry of a key that vanished again
		}
		delete(t.goneSeq, old.key)
		if _, live := t.objs[old.key]; !live {
			t.setHistory(old.key, nil)
		}
	}
	if len(t.gone) > 2*t.cfg.GoneRetention {
		// Drop stale entries of keys that vanished more than once.
		kept := t.gone[:0]
		for _, g := range t.gone {
			if t.goneSeq[g.key] == g.seq {
				kept = append(kept, g)
			}
		}
		t.gone = kept
	}
}

// record appends e to k's history in a new slice (copy on write): a
// slice handed out by Histories is never written again.
func (t *Tracker) record(k Key, e StateEvent) {
	if t.cfg.NoHistory {
		return
	}
	old := t.history[k]
	if len(old) >= t.cfg.HistoryLen {
		old = old[len(old)-t.cfg.HistoryLen+1:]
	}
	h := make([]StateEvent, len(old), len(old)+1)
	copy(h, old)
	t.setHistory(k, append(h, e))
}

// setHistory makes h k's history (nil: none) with a new change mark.
// Every change of a history goes through it: the copy of the histories
// Histories handed out is then stale, and the mark tells each reader
// which history changed.
func (t *Tracker) setHistory(k Key, h []StateEvent) {
	if h == nil {
		delete(t.history, k)
		delete(t.histGens, k)
	} else {
		t.history[k] = h
		t.histGens[k] = lastGeneration.Add(1)
	}
	t.histGen = lastGeneration.Add(1)
	t.histChanged = true
}

// trackQP updates a QP's history, failure and stall state.
func (t *Tracker) trackQP(u *Update, k Key, tr *tracked, isNew bool, q *QP, peers map[Key]*QP, qpRetries map[Key]map[string]uint64, end time.Time) {
	now := u.Time
	if q.Port != 0 {
		tr.port = q.Port
	}
	t.sawState(u, StateChange{Key: k, From: tr.state, To: q.State, Time: now, Port: q.Port, Type: q.Type}, !isNew && tr.state != q.State, now, end)
	retries, perQP := qpRetries[k]
	// restart begins the stall watch again: the QP is new or changed
	// state, so its PSNs and counters are measured from here.
	restart := func() {
		tr.sqpsn, tr.rqpsn, tr.moved, tr.movedGen, tr.sent, tr.retryBase, tr.perQP = q.SQPSN, q.RQPSN, now, t.gen, false, retries, perQP
	}
	switch {
	case isNew:
		tr.typ, tr.state, tr.stateSince = q.Type, q.State, now
		restart()
		if !t.traced(k, q.State) {
			t.record(k, StateEvent{Time: now, State: q.State, SQPSN: q.SQPSN, RQPSN: q.RQPSN})
		}
	case tr.state != q.State:
		if !t.traced(k, q.State) {
			t.record(k, StateEvent{Time: now, State: q.State, SQPSN: q.SQPSN, RQPSN: q.RQPSN})
		}
		tr.state, tr.stateSince = q.State, now
		restart()
	case psnAfter(q.SQPSN, tr.sqpsn) || tr.rqpsn != q.RQPSN:
		tr.sqpsn, tr.rqpsn, tr.moved, tr.movedGen, tr.sent, tr.retryBase, tr.perQP = max24(q.SQPSN, tr.sqpsn), q.RQPSN, now, t.gen, true, retries, perQP
	case tr.perQP != perQP:
		// The QP was bound to (or released from) a per-QP counter:
		// the old baseline counts something else.
		tr.retryBase, tr.perQP = retries, perQP
	}
	if q.State.Failed() {
		u.Failed = append(u.Failed, QPAlert{Key: k, PID: tr.pid, Comm: tr.comm, State: q.State, Since: tr.stateSince})
	}
	// Only a reliable QP that can send retries: RC and XRC initiators
	// in RTS or SQD (UD and UC never retransmit).
	if still := int(t.gen - tr.movedGen); still >= t.cfg.StallPolls && (q.State == rdma.QPStateRTS || q.State == rdma.QPStateSQD) &&
		(q.Type == rdma.QPTypeRC || q.Type == rdma.QPTypeXRCSend) {
		a := QPAlert{Key: k, PID: tr.pid, Comm: tr.comm, State: q.State, Since: tr.moved, Polls: still}
		if stuckEvidence(&a, q, tr, peers, retries, t.retryWatchOf(q.DevName).gaveUp) {
			u.Stuck = append(u.Stuck, a)
		}
	}
}

// stuckEvidence fills a with the QP's own evidence of work it cannot
// finish, and reports whether there is any: its own retry counters
// rose (those in gaveUp saying a request failed for good), or (once its
// PSNs had moved in this state) its peer on this host has not accepted
// every PSN it sent.
func stuckEvidence(a *QPAlert, q *QP, tr *tracked, peers map[Key]*QP, retries map[string]uint64, gaveUp map[string]bool) bool {
	still := fmt.Sprintf("PSNs still for %d readings since %s", a.Polls, tr.moved.Format("15:04:05"))
	if tr.perQP {
		if rose := risen(tr.retryBase, retries); len(rose) > 0 {
			for n, by := range rose {
				to := &a.Retries
				if gaveUp[n] {
					to = &a.GaveUp
				}
				if *to == nil {
					*to = map[string]uint64{}
				}
				(*to)[n] = by
			}
			var said []string
			if len(a.Retries) > 0 {
				said = append(said, "its own retry counters rose ("+rises(a.Retries)+")")
			}
			if len(a.GaveUp) > 0 {
				said = append(said, "its own counters of requests that gave up rose ("+rises(a.GaveUp)+")")
			}
			a.Evidence = fmt.Sprintf("%s while its %s", strings.Join(said, " and "), still)
			return true
		}
	}
	if !tr.sent || !q.Attrs.Has(AttrResRQPN) || q.RQPN == q.LQPN {
		// A QP whose remote number is its own talks to another host:
		// two hosts number their QPs alike (rxe0 qp 21 to rxe0 qp 21
		// in the two-VM lab), and it is no peer of itself.
		return false
	}
	pk := Key{rdma.KindQP, q.DevName, q.RQPN}
	p := peers[pk]
	if p == nil || p.RQPN != q.LQPN || !p.Attrs.Has(AttrResRQPN) || !p.Attrs.Has(AttrResRQPSN) || p.Type != q.Type {
		return false // the peer is on another host, or not connected back
	}
	if !psnAfter(q.SQPSN, p.RQPSN) {
		return false
	}
	a.Peer, a.PeerState, a.Unacked = pk, p.State, (q.SQPSN-p.RQPSN)&psnMask
	a.Evidence = fmt.Sprintf("sent up to sq-psn %d, but its peer %s (%s) accepted only up to rq-psn %d: %d PSNs unacknowledged, %s",
		q.SQPSN, pk, p.State, p.RQPSN, a.Unacked, still)
	return true
}

// psnMask keeps a PSN's 24 bits (IBTA: PSNs are 24-bit and wrap).
const psnMask = 1<<24 - 1

// psnAfter reports whether PSN a comes after b, within half the PSN
// space (the IBTA's rule for comparing wrapping PSNs).
func psnAfter(a, b uint32) bool {
	d := (a - b) & psnMask
	return d != 0 && d < 1<<23
}

func max24(a, b uint32) uint32 {
	if psnAfter(a, b) {
		return a
	}
	return b
}

// rises says "name +by" for each counter of m, by name.
func rises(m map[string]uint64) string {
	names := slices.Sorted(maps.Keys(m))
	for i, n := range names {
		names[i] = fmt.Sprintf("%s +%d", n, m[n])
	}
	return strings.Join(names, ", ")
}

// risen returns the counters that grew from base to now.
func risen(base, now map[string]uint64) map[string]uint64 {
	var out map[string]uint64
	for name, v := range now {
		if b, ok := base[name]; ok && v > b {
			if out == nil {
				out = map[string]uint64{}
			}
			out[name] = v - b
		}
	}
	return out
}

// qpRetries picks the retry counters of every QP bound to a per-QP
// counter.
func (t *Tracker) qpRetries(s *Snapshot) map[Key]map[string]uint64 {
	out := map[Key]map[string]uint64{}
	for _, c := range s.QPCounters {
		r := t.pickRetries(c.DevName, c.Counters)
		for _, qpn := range c.LQPNs {
			out[Key{rdma.KindQP, c.DevName, qpn}] = r
		}
	}
	return out
}

// pickRetries reads dev's driver's retry counters from cs.
func (t *Tracker) pickRetries(dev string, cs []HWCounter) map[string]uint64 {
	out := map[string]uint64{}
	for _, name := range t.retryWatchOf(dev).names {
		if v, ok := findCounter(cs, name); ok {
			out[name] = v
		}
	}
	return out
}

// processUsage counts each process's objects per device, most first.
func processUsage(s *Snapshot) []ProcessUsage {
	type pk struct {
		dev string
		pid uint32
	}
	procs := map[pk]*ProcessUsage{}
	s.Each(func(k Kind, o *Object, _ uint32) {
		if !o.HasPID() {
			return
		}
		pid := o.PID
		if o.TGID != 0 {
			pid = o.TGID
		}
		p := procs[pk{o.DevName, pid}]
		if p == nil {
			p = &ProcessUsage{Dev: o.DevName, PID: pid, Comm: o.Comm, Counts: map[Kind]int{}}
			procs[pk{o.DevName, pid}] = p
		}
		p.Counts[k]++
	})
	var out []ProcessUsage
	for _, p := range procs {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ta, tb := total(a.Counts), total(b.Counts); ta != tb {
			return ta > tb
		}
		if a.Dev != b.Dev {
			return a.Dev < b.Dev
		}
		return a.PID < b.PID
	})
	return out
}

// Usage compares each device's object counts in s (every process's and
// the kernel's) with limits, the ibv_query_device(3) attributes max_qp,
// max_cq, max_mr, max_pd and max_srq by device name; kinds whose limit is
// zero, and devices s does not list, are left out. A count at fraction of its limit or more is Over
// (fraction <= 0 means 0.9). The result is ordered by device, then kind
// (qp, cq, mr, pd, srq).
func Usage(s *Snapshot, limits map[string]Limits, fraction float64) []LimitUsage {
	return limitUsage(s, processUsage(s), limits, fraction)
}

var limitKinds = []Kind{rdma.KindQP, rdma.KindCQ, rdma.KindMR, rdma.KindPD, rdma.KindSRQ}

func limitUsage(s *Snapshot, procs []ProcessUsage, limits map[string]Limits, fraction float64) []LimitUsage {
	if fraction <= 0 {
		fraction = 0.9
	}
	totals := map[string]map[Kind]uint64{}
	s.Each(func(k Kind, o *Object, _ uint32) {
		if totals[o.DevName] == nil {
			totals[o.DevName] = map[Kind]uint64{}
		}
		totals[o.DevName][k]++
	})
	// The limits were asked once (the exporter at its start); a device
	// removed since (rdma link delete) has none in use, not a usage of 0.
	present := map[string]bool{}
	for _, d := range s.Devices {
		present[d.Name] = true
	}
	var out []LimitUsage
	for _, dev := range slices.Sorted(maps.Keys(limits)) {
		if !present[dev] {
			continue
		}
		lim := limits[dev]
		for _, k := range limitKinds {
			max := lim.of(k)
			if max == 0 {
				continue
			}
			lu := LimitUsage{Dev: dev, Kind: k, Count: totals[dev][k], Limit: max}
			lu.Fraction = float64(lu.Count) / float64(max)
			lu.Over = lu.Fraction >= fraction
			for _, p := range procs {
				if p.Dev == dev && p.Counts[k] > lu.Top.Counts[k] {
					lu.Top = p
				}
			}
			out = append(out, lu)
		}
	}
	return out
}

// deadObjects lists the user objects of s whose creating task has exited,
// by key.
func deadObjects(s *Snapshot) []Change {
	var out []Change
	s.Each(func(k Kind, o *Object, id uint32) {
		if o.Owner.Dead() {
			out = append(out, change(Key{k, o.DevName, id}, o))
		}
	})
	sortChanges(out)
	return out
}

func change(k Key, o *Object) Change {
	return Change{Key: k, PID: o.PID, Comm: o.Comm, TGID: o.TGID, Owner: o.Owner}
}

func total(m map[Kind]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sortChanges(cs []Change) {
	slices.SortFunc(cs, func(a, b Change) int { return compareKey(a.Key, b.Key) })
}

// compareKey orders keys by device, kind and number.
func compareKey(a, b Key) int {
	return cmp.Or(strings.Compare(a.Dev, b.Dev), strings.Compare(string(a.Kind), string(b.Kind)), cmp.Compare(a.ID, b.ID))
}

func keyLess(a, b Key) bool { return compareKey(a, b) < 0 }
