package diagnose

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/verbscope/verbscope/counters"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
)

// Reading is one reading the Diagnoser follows: a snapshot with the
// Tracker's report on it and the QPs' histories (inspect.Frame's).
type Reading struct {
	Snapshot *inspect.Snapshot
	Update   inspect.Update
	History  map[inspect.Key][]inspect.StateEvent
}

// FromFrame is the Reading of a watch stream's frame.
func FromFrame(f inspect.Frame) Reading {
	return Reading{Snapshot: f.Snapshot, Update: f.Update, History: f.History}
}

// Peers finds the QP at the other end of a connection.
type Peers interface {
	// Find looks for q's peer: on the host its destination GID names
	// (dgid, "" when unknown), else on every host it knows, by QP
	// numbers. A peer that does not answer is a fact of the answer.
	Find(ctx context.Context, q *inspect.QP, dgid string) PeerAnswer
	// Forget drops what was read for the last reading: each reading
	// asks again, once per exporter however many QPs need it.
	Forget()
}

// Config tunes a Diagnoser; the zero value works (no peers asked).
type Config struct {
	// Peers are asked of the QPs that need judging; nil asks nobody.
	Peers Peers
	// StallReadings is how many readings a QP's PSNs must stand still
	// while its port's retry or RNR counters rise before it is judged
	// stuck (default 3).
	StallReadings int
	// Driver names a device's driver as the counters registry keys it
	// (counters.Lookup), which says what each counter means on it; nil
	// reads it from sysfs (sysfsmon.FS.DeviceDriver: the module behind
	// the device's link, else what its name says).
	Driver func(dev string) string
}

// defaultStallReadings is Config.StallReadings's default: at one
// reading a second, a verdict within 4 readings of a stall becoming
// visible (the first reading whose counters rose compares with the one
// before).
const defaultStallReadings = 3

// Diagnoser follows readings and gives the verdicts of each. It is not
// safe for concurrent use.
type Diagnoser struct {
	cfg  Config
	prev *inspect.Snapshot
	// watch are the QPs that might be retrying: reliable, sending, on a
	// port whose retry or RNR counters rose, PSNs still since.
	watch map[inspect.Key]*qpWatch
	// recent are each port's counter rises over the last readings, for
	// the failed QPs' judgement (a remote access error counted when the
	// QP failed).
	recent map[portKey][][]rise
	// settled are the verdicts of failed QPs and objects of exited
	// owners, judged once per state: an ERR QP left for a day asks no
	// peer every reading.
	settled map[inspect.Key]settled
	signals map[[2]string]counters.Signal
	drivers map[string]string // by device, asked of cfg.Driver once
}

type portKey struct {
	dev  string
	port uint32
}

type qpWatch struct {
	port   portKey
	sq, rq uint32
	since  time.Time
	still  int
	rises  map[string]rise
}

type settled struct {
	look  look
	since time.Time
	v     Verdict
}

// New returns a Diagnoser with cfg's settings.
func New(cfg Config) *Diagnoser {
	if cfg.StallReadings <= 0 {
		cfg.StallReadings = defaultStallReadings
	}
	if cfg.Driver == nil {
		cfg.Driver = sysfsDriver
	}
	return &Diagnoser{cfg: cfg, watch: map[inspect.Key]*qpWatch{}, recent: map[portKey][][]rise{},
		settled: map[inspect.Key]settled{}, signals: map[[2]string]counters.Signal{}, drivers: map[string]string{}}
}

// retrying are the signals of a requester that retries: what makes a
// port's QPs worth watching.
var retrying = map[counters.Signal]bool{counters.SignalRNR: true, counters.SignalTimeoutRetry: true, counters.SignalSequence: true}

// Observe takes the next reading (in time order) and returns the
// verdicts on every QP that needs a look now, by device and QP number.
// While no counter with a retry signal rose, no QP failed, none is stuck
// by the Tracker's own evidence and none belongs to an exited process,
// it returns nil having compared the ports' counters only.
func (d *Diagnoser) Observe(ctx context.Context, r Reading) []Verdict {
	s := r.Snapshot
	if s == nil {
		return nil
	}
	prev := d.prev
	d.prev = s
	rises := d.portRises(prev, s)
	if len(rises) == 0 && len(d.watch) == 0 && len(r.Update.Failed) == 0 && len(r.Update.Stuck) == 0 && len(r.Update.Dead) == 0 {
		clear(d.recent)
		clear(d.settled)
		return nil
	}
	d.keepRecent(rises)
	if d.cfg.Peers != nil {
		d.cfg.Peers.Forget()
	}
	qps := index(s)
	d.follow(prev, s, qps, rises)
	var out []Verdict
	seen := map[inspect.Key]bool{}
	for _, a := range r.Update.Stuck {
		q := qps[a.Key]
		if q == nil {
			continue
		}
		f := d.facts(ctx, s, r, q, lookStalled, a.Since)
		f.Still = a.Polls
		for _, own := range []map[string]uint64{a.Retries, a.GaveUp} {
			for name, by := range own {
				f.Rises = append(f.Rises, rise{Name: name, Signal: d.signal(q.DevName, name), By: by, PerQP: true})
			}
		}
		f.LocalPeer = qps[a.Peer]
		if v, ok := judge(f); ok {
			out = append(out, v)
			seen[a.Key] = true
		}
	}
	out = append(out, d.stalled(ctx, s, r, qps, seen)...)
	for _, a := range r.Update.Failed {
		if q := qps[a.Key]; q != nil && !seen[a.Key] {
			out = append(out, d.settle(ctx, s, r, q, lookFailed, a.Since))
			seen[a.Key] = true
		}
	}
	for _, c := range r.Update.Dead {
		if q := qps[c.Key]; q != nil && c.Key.Kind == rdma.KindQP && !seen[c.Key] {
			out = append(out, d.settle(ctx, s, r, q, lookOwnerExited, s.Time))
			seen[c.Key] = true
		}
	}
	for k := range d.settled {
		if !seen[k] {
			delete(d.settled, k)
		}
	}
	slices.SortFunc(out, func(a, b Verdict) int { return cmp.Or(cmp.Compare(a.Dev, b.Dev), cmp.Compare(a.LQPN, b.LQPN)) })
	return out
}

// settleAfter is how long a failed QP is judged again every reading
// before its verdict is kept: the peer moves to ERR a moment after the
// NAK that failed this end, and its exporter shows it up to one of its
// intervals later (2 s by default; 30 s leaves room for a slower one and
// a loaded host). A verdict
// judged once, at first sight, said "flushed" for good where the peer
// was a reading behind (a fresh clone's two-host test).
const settleAfter = 30 * time.Second

// settle judges a failed QP or one of an exited owner each reading for
// settleAfter, then keeps the verdict while the state stands: an ERR QP
// left for a day asks no peer every reading.
func (d *Diagnoser) settle(ctx context.Context, s *inspect.Snapshot, r Reading, q *inspect.QP, look look, since time.Time) Verdict {
	k := key(q)
	if st, ok := d.settled[k]; ok && st.look == look && st.since.Equal(since) && st.v.State == q.State.IPRoute2() && s.Time.Sub(since) >= settleAfter {
		return st.v
	}
	f := d.facts(ctx, s, r, q, look, since)
	if look == lookOwnerExited {
		f.Owner = q.Owner
	}
	v, _ := judge(f)
	d.settled[k] = settled{look, since, v}
	return v
}

// facts gathers what is known of q: its port, driver, traced attributes
// and, for a connected QP, its peer.
func (d *Diagnoser) facts(ctx context.Context, s *inspect.Snapshot, r Reading, q *inspect.QP, look look, since time.Time) facts {
	f := facts{Look: look, QP: *q, Since: since, Driver: d.driver(q.DevName), Traced: tracedFacts(r.History[key(q)])}
	for i := range s.Ports {
		if p := &s.Ports[i]; p.DevName == q.DevName && p.Port == q.Port {
			f.Port = p
		}
	}
	if look == lookFailed {
		for _, rs := range d.recent[portKey{q.DevName, q.Port}] {
			f.Rises = append(f.Rises, rs...)
		}
	}
	if p := localPeer(s, q); p != nil {
		f.LocalPeer = p
		return f
	}
	if look == lookOwnerExited || !q.Attrs.Has(inspect.AttrResRQPN) || !reliable(q) {
		return f
	}
	if d.cfg.Peers != nil {
		f.Peer = d.cfg.Peers.Find(ctx, q, f.Traced.DGID)
		if f.Traced.DGID != "" {
			f.Peer.HostKnown = true
		}
	}
	if f.Peer.QP == nil && !f.Peer.HostKnown {
		if g := goneLocalPeer(r, q); g != nil {
			f.Peer.QP, f.Peer.ByNumbers, f.GoneHere = g, true, true
		}
	}
	return f
}

// connectedSince is when a QP's history first shows it connected (RTR,
// RTS or SQD: it has a remote QP); false when it never does.
func connectedSince(h []inspect.StateEvent) (time.Time, bool) {
	for _, e := range h {
		if !e.Gone && (e.State == rdma.QPStateRTR || e.State == rdma.QPStateRTS || e.State == rdma.QPStateSQD) {
			return e.Time, true
		}
	}
	return time.Time{}, false
}

// goneLocalPeer is the QP on q's device numbered as q's remote one when
// this host's Tracker saw it destroyed (its history ends gone) after q
// was connected: on this host that is q's peer gone, as far as numbers
// tell (a peer on another
// host may share the number: probable). Nil when there was none.
func goneLocalPeer(r Reading, q *inspect.QP) *PeerQP {
	if q.RQPN == q.LQPN {
		return nil // two hosts number alike: its own number is the other host's
	}
	k := inspect.Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.RQPN}
	h := r.History[k]
	if len(h) == 0 || !h[len(h)-1].Gone {
		return nil
	}
	last := h[len(h)-1]
	// A QP gone before q was connected cannot be q's peer: q connected
	// to a live one (an older QP of this host that had the number, as
	// hosts number alike, is not it).
	connected, ok := connectedSince(r.History[key(q)])
	if !ok || last.Time.Before(connected) {
		return nil
	}
	g := &PeerQP{Host: "this host", Dev: q.DevName, LQPN: q.RQPN, State: last.State.IPRoute2(),
		SQPSN: last.SQPSN, RQPSN: last.RQPSN, Gone: true, GoneAt: last.Time}
	for _, c := range r.Update.Disappeared {
		if c.Key == k {
			g.PID, g.Comm = c.PID, c.Comm
		}
	}
	return g
}

// localPeer is q's peer when it is on this host, on the same device (two
// rxe devices of one kernel cannot reach each other) and connected back.
// Never q itself: two hosts number their QPs alike, so a QP often has
// its own number as its remote one, and the peer is on the other host.
func localPeer(s *inspect.Snapshot, q *inspect.QP) *inspect.QP {
	if !q.Attrs.Has(inspect.AttrResRQPN) || q.RQPN == q.LQPN {
		return nil
	}
	for i := range s.QPs {
		p := &s.QPs[i]
		if p.DevName == q.DevName && p.LQPN == q.RQPN && p.RQPN == q.LQPN && p.Type == q.Type && p.Attrs.Has(inspect.AttrResRQPSN) {
			return p
		}
	}
	return nil
}

func reliable(q *inspect.QP) bool {
	return q.Type == rdma.QPTypeRC || q.Type == rdma.QPTypeXRCSend || q.Type == rdma.QPTypeXRCRecv
}

// stalled judges the watched QPs that stood still long enough: a QP is
// attributed its port's rises when it is the only one of the port that
// could be retrying once the peers' facts cleared the idle ones, and
// named probable with the others listed otherwise.
func (d *Diagnoser) stalled(ctx context.Context, s *inspect.Snapshot, r Reading, qps map[inspect.Key]*inspect.QP, seen map[inspect.Key]bool) []Verdict {
	byPort := map[portKey][]facts{}
	for k, w := range d.watch {
		if w.still < d.cfg.StallReadings || seen[k] {
			continue
		}
		q := qps[k]
		f := d.facts(ctx, s, r, q, lookStalled, w.since)
		f.Still = w.still
		// A retrying QP's sq-psn goes back to the first unacknowledged
		// PSN and forward again (go-back-N): the highest seen is what it
		// sent.
		f.QP.SQPSN = max24(q.SQPSN, w.sq)
		for _, name := range sortedKeys(w.rises) {
			f.Rises = append(f.Rises, w.rises[name])
		}
		if _, ok := judge(f); ok {
			byPort[w.port] = append(byPort[w.port], f)
		}
	}
	var out []Verdict
	for _, fs := range byPort {
		for i := range fs {
			for j := range fs {
				if j != i {
					fs[i].Candidates = append(fs[i].Candidates, fs[j].QP.LQPN)
				}
			}
			slices.Sort(fs[i].Candidates)
			if v, ok := judge(fs[i]); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// follow updates the watches: on each port whose retry counters rose,
// every reliable QP in RTS or SQD whose PSNs did not move since the
// reading before is watched (or watched one reading longer); a watched
// QP whose PSNs moved, that changed state or went away is dropped.
func (d *Diagnoser) follow(prev, s *inspect.Snapshot, qps map[inspect.Key]*inspect.QP, rises map[portKey][]rise) {
	for k, w := range d.watch {
		q := qps[k]
		if q == nil || !sending(q) || psnAfter(q.SQPSN, w.sq) || q.RQPSN != w.rq {
			delete(d.watch, k)
			continue
		}
		if rs, ok := rises[w.port]; ok && retries(rs) {
			w.still++
			for _, r := range rs {
				acc := w.rises[r.Name]
				acc.Name, acc.Signal, acc.By = r.Name, r.Signal, acc.By+r.By
				w.rises[r.Name] = acc
			}
		}
	}
	var before map[inspect.Key]*inspect.QP
	for pk, rs := range rises {
		if !retries(rs) || prev == nil {
			continue
		}
		if before == nil {
			before = index(prev)
		}
		for k, q := range qps {
			if q.DevName != pk.dev || q.Port != pk.port || !sending(q) || d.watch[k] != nil {
				continue
			}
			b := before[k]
			if b == nil || b.State != q.State || psnAfter(q.SQPSN, b.SQPSN) || q.RQPSN != b.RQPSN {
				continue
			}
			w := &qpWatch{port: pk, sq: max24(q.SQPSN, b.SQPSN), rq: q.RQPSN, since: prev.Time, still: 1, rises: map[string]rise{}}
			for _, r := range rs {
				w.rises[r.Name] = r
			}
			d.watch[k] = w
		}
	}
}

// sending reports whether q is a reliable QP that sends: RC or an XRC
// initiator in RTS or SQD (UD and UC never retransmit).
func sending(q *inspect.QP) bool {
	return (q.Type == rdma.QPTypeRC || q.Type == rdma.QPTypeXRCSend) && (q.State == rdma.QPStateRTS || q.State == rdma.QPStateSQD)
}

func retries(rs []rise) bool {
	return slices.ContainsFunc(rs, func(r rise) bool { return retrying[r.Signal] })
}

func max24(a, b uint32) uint32 {
	if psnAfter(a, b) {
		return a
	}
	return b
}

// portRises compares each port's counters with the reading before and
// returns the rises of those the registry gives a signal.
func (d *Diagnoser) portRises(prev, s *inspect.Snapshot) map[portKey][]rise {
	if prev == nil {
		return nil
	}
	var out map[portKey][]rise
	for i := range s.PortCounters {
		pc := &s.PortCounters[i]
		old := portCounters(prev, pc.DevName, pc.Port)
		if old == nil {
			continue
		}
		for _, c := range pc.Counters {
			sig := d.signal(pc.DevName, c.Name)
			if sig == counters.SignalNone {
				continue
			}
			if was, ok := old.Counter(c.Name); ok && c.Value > was {
				if out == nil {
					out = map[portKey][]rise{}
				}
				pk := portKey{pc.DevName, pc.Port}
				out[pk] = append(out[pk], rise{Name: c.Name, Signal: sig, By: c.Value - was})
			}
		}
	}
	return out
}

func portCounters(s *inspect.Snapshot, dev string, port uint32) *inspect.PortCounters {
	for i := range s.PortCounters {
		if pc := &s.PortCounters[i]; pc.DevName == dev && pc.Port == port {
			return pc
		}
	}
	return nil
}

// driver is dev's driver, asked once.
func (d *Diagnoser) driver(dev string) string {
	drv, ok := d.drivers[dev]
	if !ok {
		drv = d.cfg.Driver(dev)
		d.drivers[dev] = drv
	}
	return drv
}

// sysfsDriver is Config.Driver's default: the running kernel's sysfs.
func sysfsDriver(dev string) string {
	fs, err := sysfsmon.NewDefaultFS()
	if err != nil {
		return counters.DeviceDriver("", dev, false, "")
	}
	return fs.DeviceDriver(dev)
}

// signal is the registry's signal of a device's counter, looked up once.
func (d *Diagnoser) signal(dev, name string) counters.Signal {
	k := [2]string{dev, name}
	if s, ok := d.signals[k]; ok {
		return s
	}
	info, _ := counters.Lookup(d.driver(dev), name)
	sig := info.Signal
	if info.Side == counters.SideResponder && retrying[sig] {
		// A responder's count (RNR NAKs sent) says a QP of this port
		// refuses, not that one retries: its senders are elsewhere.
		sig = counters.SignalNone
	}
	d.signals[k] = sig
	return sig
}

// keepRecent keeps each port's rises of the last readings.
func (d *Diagnoser) keepRecent(rises map[portKey][]rise) {
	for pk, rs := range d.recent {
		if len(rs) >= d.cfg.StallReadings {
			rs = rs[1:]
		}
		d.recent[pk] = append(rs, rises[pk])
	}
	for pk, rs := range rises {
		if _, ok := d.recent[pk]; !ok {
			d.recent[pk] = [][]rise{rs}
		}
	}
}

func key(q *inspect.QP) inspect.Key {
	return inspect.Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN}
}

func index(s *inspect.Snapshot) map[inspect.Key]*inspect.QP {
	m := make(map[inspect.Key]*inspect.QP, len(s.QPs))
	for i := range s.QPs {
		m[key(&s.QPs[i])] = &s.QPs[i]
	}
	return m
}
