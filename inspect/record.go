package inspect

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/mdlayher/netlink"
)

// Recording holds raw nldev exchanges, requests and the reply messages
// exactly as the kernel sent them, plus the comm names of the processes
// they mention. `verbscope res --record FILE` writes one for bug reports,
// and the unit tests replay recordings taken from the lab's real kernel
// (testdata/) through mdlayher/netlink's nltest.
type Recording struct {
	// Kernel is the kernel release the replies came from (uname -r).
	Kernel string `json:"kernel,omitempty"`
	// Note says what was running when the replies were taken.
	Note      string     `json:"note,omitempty"`
	Exchanges []Exchange `json:"exchanges"`
	// Comm maps the pids in the replies to their /proc/PID/comm, and
	// TGID to their process where it differs (thread ids).
	Comm map[uint32]string `json:"comm,omitempty"`
	TGID map[uint32]uint32 `json:"tgid,omitempty"`
}

// Exchange is one request and its reply messages (NLMSG_DONE omitted),
// each a whole netlink message, header included.
type Exchange struct {
	Request []byte   `json:"-"`
	Replies [][]byte `json:"-"`
}

type exchangeJSON struct {
	Request string   `json:"request"`
	Replies []string `json:"replies"`
}

// MarshalJSON writes the messages in hex, one string per message.
func (e Exchange) MarshalJSON() ([]byte, error) {
	j := exchangeJSON{Request: hex.EncodeToString(e.Request), Replies: make([]string, len(e.Replies))}
	for i, r := range e.Replies {
		j.Replies[i] = hex.EncodeToString(r)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (e *Exchange) UnmarshalJSON(b []byte) error {
	var j exchangeJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var err error
	if e.Request, err = hex.DecodeString(j.Request); err != nil {
		return fmt.Errorf("request: %w", err)
	}
	e.Replies = make([][]byte, len(j.Replies))
	for i, r := range j.Replies {
		if e.Replies[i], err = hex.DecodeString(r); err != nil {
			return fmt.Errorf("reply %d: %w", i, err)
		}
	}
	return nil
}

// Record makes c append every exchange from now on to r; nil stops it.
func (c *Conn) Record(r *Recording) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r == nil {
		c.tap = nil
		return
	}
	c.tap = func(req netlink.Message, reply *netlink.Message) {
		if reply == nil {
			rb, err := req.MarshalBinary()
			if err == nil {
				r.Exchanges = append(r.Exchanges, Exchange{Request: rb})
			}
			return
		}
		if mb, err := reply.MarshalBinary(); err == nil && len(r.Exchanges) > 0 {
			ex := &r.Exchanges[len(r.Exchanges)-1]
			ex.Replies = append(ex.Replies, mb)
		}
	}
}

// AddComm records the comm names of the user objects among objs.
func (r *Recording) AddComm(objs ...*Object) {
	for _, o := range objs {
		if o.HasPID() && o.Comm != "" {
			if r.Comm == nil {
				r.Comm = make(map[uint32]string)
			}
			r.Comm[o.PID] = o.Comm
		}
		if o.HasPID() && o.TGID != 0 && o.TGID != o.PID {
			if r.TGID == nil {
				r.TGID = make(map[uint32]uint32)
			}
			r.TGID[o.PID] = o.TGID
		}
	}
}

// Encode writes the recording as indented JSON; the caller creates the
// file (privately: a recording holds comm names and keys).
func (r *Recording) Encode(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return opError("record", nil, err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return opError("record", nil, err)
	}
	return nil
}

// ReadRecording loads a recording written by Encode.
func ReadRecording(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, opError("read recording", nil, err)
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, opError("read recording: "+path, ErrMalformed, err)
	}
	return &r, nil
}

// WriteProc writes the recorded comm names and thread groups as
// dir/PID/comm and dir/PID/status files, a fake /proc for SetProcRoot.
func (r *Recording) WriteProc(dir string) error {
	pids := make([]uint32, 0, len(r.Comm))
	for p := range r.Comm {
		pids = append(pids, p)
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	for _, p := range pids {
		d := fmt.Sprintf("%s/%d", dir, p)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(d+"/comm", []byte(r.Comm[p]+"\n"), 0o644); err != nil {
			return err
		}
		tgid := p
		if t, ok := r.TGID[p]; ok {
			tgid = t
		}
		status := fmt.Sprintf("Name:\t%s\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\n", r.Comm[p], tgid, p)
		if err := os.WriteFile(d+"/status", []byte(status), 0o644); err != nil {
			return err
		}
	}
	return nil
}
