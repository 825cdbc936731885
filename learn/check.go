package learn

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// seen is what the device and the shell answered during a lesson: the
// completions polled, by CQ, and the last command's refusal. Checks read
// it, never the commands typed.
type seen struct {
	Completions map[string][]completion
	Refusal     *front.Error // the last command's refusal; nil when it ran
	Events      []event      // async events, oldest first
	// Doctor is each doctor check's verdict, as the shell's `doctor`
	// last reported it ("pass", "warn", "fail", "n/a").
	Doctor map[string]string
	// Why is each QP's diagnosis as the shell's `why` last reported it,
	// by the session's name of the QP.
	Why map[string]why
}

// why is one `why QP`'s outcome: the verdict's cause ("none" when
// nothing was wrong) and its text (the cause, evidence and fix).
type why struct {
	Cause, Text string
}

// Event is one async event the device raised (ibv_get_async_event(3)),
// named as the shell names it.
type event struct {
	Type   string // CQ_ERR, QP_FATAL, PORT_ACTIVE, ...
	Object string // the session's name of the object, "" if none
}

// completion is one work completion as the shell reported it.
type completion struct {
	QP, Opcode, Status, Data string
}

// observe records one command's outcome: the completions a poll or wait
// returned (front.Result.Data), under the CQ polled, and whether the
// command was refused.
func (s *seen) observe(res front.Result, err error) {
	s.Refusal = nil
	var fe *front.Error
	if errors.As(err, &fe) {
		s.Refusal = fe
	}
	f := strings.Fields(res.Command)
	if d, ok := res.Data.(map[string]any); ok && err == nil && len(f) > 1 && f[0] == "why" {
		s.observeWhy(d, res.Text)
		return
	}
	rows, ok := res.Data.([]map[string]any)
	if err != nil || !ok {
		return
	}
	if len(f) > 0 && f[0] == "doctor" {
		s.observeDoctor(rows)
		return
	}
	if len(f) < 2 || (f[0] != "poll" && f[0] != "poll_cq" && f[0] != "wait") {
		return
	}
	wcs := rows
	if s.Completions == nil {
		s.Completions = map[string][]completion{}
	}
	for _, d := range wcs {
		str := func(k string) string { v, _ := d[k].(string); return v }
		s.Completions[f[1]] = append(s.Completions[f[1]], completion{QP: str("qp"), Opcode: str("opcode"), Status: str("status"), Data: str("data")})
	}
}

// observeDoctor keeps the verdict of each check a doctor run reported.
func (s *seen) observeDoctor(rows []map[string]any) {
	if s.Doctor == nil {
		s.Doctor = map[string]string{}
	}
	for _, r := range rows {
		id, _ := r["id"].(string)
		v, _ := r["verdict"].(string)
		if id != "" {
			s.Doctor[id] = v
		}
	}
}

// observeWhy keeps a `why` run's verdict on its QP.
func (s *seen) observeWhy(d map[string]any, text string) {
	name, _ := d["qp"].(string)
	cause, _ := d["cause"].(string)
	if name == "" {
		return
	}
	if s.Why == nil {
		s.Why = map[string]why{}
	}
	s.Why[name] = why{Cause: cause, Text: text}
}

// KernelView is what RDMA netlink says of the learner's process: each
// QP's state by number, and how many objects of each kind it holds; and
// of every other process, how many objects of each kind processes of
// each name (comm) hold.
type KernelView struct {
	QPStates map[uint32]rdma.QPState
	Counts   map[rdma.Kind]int
	Others   map[string]map[rdma.Kind]int
}

// outcome is one check judged: whether it holds, and what was found.
type outcome struct {
	Check Check
	OK    bool
	Got   string
}

// evaluateAll judges checks against the shell's State, what was seen, and
// the kernel's view (nil: the session's State alone).
func evaluateAll(checks []Check, st front.State, seen *seen, kv *KernelView) []outcome {
	out := make([]outcome, 0, len(checks))
	for _, c := range checks {
		ok, got := evaluate(c, st, seen, kv)
		out = append(out, outcome{Check: c, OK: ok, Got: got})
	}
	return out
}

// passed reports whether every outcome holds.
func passed(outs []outcome) bool {
	for _, o := range outs {
		if !o.OK {
			return false
		}
	}
	return true
}

func evaluate(c Check, st front.State, seen *seen, kv *KernelView) (bool, string) {
	switch c.Kind {
	case checkRefusal:
		if seen == nil || seen.Refusal == nil {
			return false, "the last command was not refused"
		}
		text := seen.Refusal.Error()
		for _, a := range c.Attrs {
			if !strings.Contains(strings.ToLower(text), strings.ToLower(a.Value)) {
				return false, fmt.Sprintf("the refusal does not mention %q: %s", a.Value, seen.Refusal.What)
			}
		}
		return true, "refused: " + seen.Refusal.What
	case checkCount:
		return evalCount(c, st, kv)
	case checkEvent:
		return evalEvent(c, seen)
	case checkCompletion:
		return evalCompletion(c, seen)
	case checkDoctor:
		return evalDoctor(c, seen)
	}
	o, exists := st.Object(c.Subject)
	if c.Kind == checkGone {
		if exists {
			return false, c.Subject + " still exists"
		}
		return true, "no " + c.Subject
	}
	if !exists {
		return false, "there is no " + c.Subject + " (yet)"
	}
	var got []string
	ok := true
	for _, a := range c.Attrs {
		v := objectField(o, a.Key, kv)
		if whyKeys[a.Key] {
			w, asked := seen.why(c.Subject)
			if !asked {
				return false, "`why " + c.Subject + "` has not run in this lesson"
			}
			if v = w.Cause; a.Key == "evidence" {
				v = w.Text
			}
		}
		got = append(got, a.Key+"="+v)
		ok = ok && matches(a, v)
	}
	return ok, c.Subject + ": " + strings.Join(got, " ")
}

// objectField is one field of an object, as checks name them. A QP's
// state is the kernel's when the kernel has it: it may have moved the
// QP (to ERR) since the shell last asked.
func objectField(o front.Object, key string, kv *KernelView) string {
	switch key {
	case "kind":
		return string(o.Kind)
	case "state":
		if kv != nil {
			if s, ok := kv.QPStates[o.QPN]; ok && o.Kind == rdma.KindQP {
				return s.String()
			}
		}
		if o.Kind != rdma.KindQP {
			return ""
		}
		return o.State.String()
	case "type":
		if o.Kind != rdma.KindQP {
			return ""
		}
		return o.QPType.String()
	case "parent":
		return o.Parent
	case "device":
		return o.Device
	case "port":
		return strconv.Itoa(o.Port)
	case "cqe":
		return strconv.Itoa(o.CQE)
	case "length":
		return strconv.FormatUint(o.Length, 10)
	case "access":
		return o.Access
	case "send_cq":
		return o.SendCQ
	case "recv_cq":
		return o.RecvCQ
	}
	return ""
}

// matches compares a found value with the check's: names and states
// without regard to case, numbers as numbers, access flags as a set
// that must hold the ones named.
func matches(a Attr, got string) bool {
	if a.Op == ">=" {
		g, err1 := strconv.ParseUint(got, 10, 64)
		w, err2 := strconv.ParseUint(a.Value, 10, 64)
		return err1 == nil && err2 == nil && g >= w
	}
	if a.Key == "access" || a.Key == "data" || a.Key == "evidence" {
		return strings.Contains(strings.ToLower(got), strings.ToLower(a.Value))
	}
	for _, v := range strings.Split(a.Value, "|") {
		if strings.EqualFold(got, v) {
			return true
		}
	}
	return false
}

func evalCount(c Check, st front.State, kv *KernelView) (bool, string) {
	kind := rdma.Kind(c.Subject)
	if len(c.Attrs) > 1 {
		return evalOwned(c.Attrs[0], kind, c.Attrs[1].Value, kv)
	}
	n := 0
	for o := range st.Objects() {
		if o.Kind == kind {
			n++
		}
	}
	got := fmt.Sprintf("%d %s in the session", n, kind)
	ok := matches(c.Attrs[0], strconv.Itoa(n))
	if kv != nil && kv.Counts != nil && kernelCounted(kind) {
		k := kv.Counts[kind]
		got += fmt.Sprintf(", %d in the kernel's restrack", k)
		ok = ok && matches(c.Attrs[0], strconv.Itoa(k))
	}
	return ok, got
}

// kernelCounted: the kinds RDMA netlink dumps (channels and AHs are the
// process's own).
func kernelCounted(k rdma.Kind) bool {
	switch k {
	case rdma.KindCtx, rdma.KindPD, rdma.KindCQ, rdma.KindQP, rdma.KindMR:
		return true
	}
	return false
}

func evalCompletion(c Check, seen *seen) (bool, string) {
	var all []completion
	if seen != nil {
		all = seen.Completions[c.Subject]
	}
	n := 0
	for _, wc := range all {
		ok := true
		for _, a := range c.Attrs {
			switch a.Key {
			case "opcode":
				ok = ok && matches(a, wc.Opcode)
			case "status":
				ok = ok && matches(a, wc.Status)
			case "data":
				ok = ok && matches(a, wc.Data)
			case "qp":
				ok = ok && matches(a, wc.QP)
			}
		}
		if ok {
			n++
		}
	}
	var count *Attr
	for _, a := range c.Attrs {
		if a.Key == "count" {
			count = &a
		}
	}
	got := fmt.Sprintf("%d matching of %d completion(s) polled from %s", n, len(all), c.Subject)
	if len(all) > 0 {
		last := all[len(all)-1]
		got += fmt.Sprintf(" (last: %s %s)", last.Opcode, last.Status)
	}
	if count != nil {
		return matches(*count, strconv.Itoa(n)), got
	}
	return n > 0, got
}

func evalEvent(c Check, seen *seen) (bool, string) {
	var types []string
	for _, ev := range seen.Events {
		ok := strings.EqualFold(ev.Type, c.Subject)
		for _, a := range c.Attrs {
			ok = ok && matches(a, ev.Object)
		}
		if ok {
			return true, ev.Type + " on " + ev.Object
		}
		types = append(types, ev.Type)
	}
	if len(types) == 0 {
		return false, "no async event yet"
	}
	return false, "async events so far: " + strings.Join(types, ", ")
}

// evalOwned counts the objects of kind that processes called comm hold,
// as the kernel has them (the learner's own are not among them).
func evalOwned(count Attr, kind rdma.Kind, comm string, kv *KernelView) (bool, string) {
	if !kernelCounted(kind) {
		return false, fmt.Sprintf("the kernel does not list other processes' %s objects (only ctx pd cq qp mr)", kind)
	}
	if kv == nil || kv.Others == nil {
		return false, "the kernel's objects were not read"
	}
	// comm is at most 15 bytes (TASK_COMM_LEN): a longer name is cut.
	n := kv.Others[comm[:min(len(comm), 15)]][kind]
	return matches(count, strconv.Itoa(n)), fmt.Sprintf("%d %s of processes called %s in the kernel's restrack", n, kind, comm)
}

// whyKeys are an object check's keys judged on the last `why` of it:
// verdict (the cause, or none) and evidence (words its text holds).
var whyKeys = map[string]bool{"verdict": true, "evidence": true}

func (s *seen) why(name string) (why, bool) {
	if s == nil {
		return why{}, false
	}
	w, ok := s.Why[name]
	return w, ok
}

func evalDoctor(c Check, seen *seen) (bool, string) {
	v, ok := "", false
	if seen != nil {
		v, ok = seen.Doctor[c.Subject]
	}
	if !ok {
		return false, "doctor has not run its " + c.Subject + " check in this lesson (`doctor " + c.Subject + "`)"
	}
	for _, a := range c.Attrs {
		if !matches(a, v) {
			return false, "doctor's " + c.Subject + " check said " + v
		}
	}
	return true, "doctor's " + c.Subject + " check said " + v
}
