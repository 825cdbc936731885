package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/netip"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// viaJSON decodes body as kind's type with encoding/json: what
// decodeObj must give.
func viaJSON(t testing.TB, k rdma.Kind, body []byte) (inspect.Rowed, error) {
	t.Helper()
	dec, ok := decoders[k]
	if !ok {
		t.Fatalf("no decoder for kind %q", k)
	}
	v, err := dec([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	p := reflect.New(reflect.TypeOf(v).Elem())
	if err := json.Unmarshal(body, p.Interface()); err != nil {
		return nil, err
	}
	return p.Interface().(inspect.Rowed), nil
}

// fastTakes reports whether the fast path, not encoding/json, decodes
// body as kind's type.
func fastTakes(k rdma.Kind, body []byte) bool {
	switch k {
	case rdma.KindQP:
		return takes[inspect.QP](body)
	case rdma.KindCQ:
		return takes[inspect.CQ](body)
	case rdma.KindMR:
		return takes[inspect.MR](body)
	case rdma.KindPD:
		return takes[inspect.PD](body)
	case rdma.KindCtx:
		return takes[inspect.Context](body)
	case rdma.KindSRQ:
		return takes[inspect.SRQ](body)
	}
	return takes[inspect.CMID](body)
}

func takes[T any](body []byte) bool {
	d := newBodyDecoder[T]()
	return d.fields != nil && d.fast(body, reflect.ValueOf(new(T)).Elem())
}

// TestBodyDecoderMatchesJSON: every object body of the real lab
// recording decodes, on the fast path, to what encoding/json makes of
// it, and so does every body below, taken or left to encoding/json.
func TestBodyDecoderMatchesJSON(t *testing.T) {
	r := openLabSession(t)
	kinds := map[rdma.Kind]int{}
	err := r.each(context.Background(), "SELECT kind, body FROM objects WHERE body IS NOT NULL", func(rows *sql.Rows) error {
		var kind string
		var body []byte
		if err := rows.Scan(&kind, &body); err != nil {
			return err
		}
		k := rdma.Kind(kind)
		kinds[k]++
		if !fastTakes(k, body) {
			t.Errorf("the fast path leaves a %s body of the recorder to encoding/json: %s", k, body)
		}
		checkBody(t, k, body)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []rdma.Kind{rdma.KindQP, rdma.KindCQ, rdma.KindMR, rdma.KindPD, rdma.KindCtx} {
		if kinds[k] == 0 {
			t.Errorf("%s has no %s: the test checks none", labSessionFixture, k)
		}
	}

	srq, _ := json.Marshal(inspect.SRQ{Object: inspect.Object{DevName: "rxe0", PID: 7}, SRQN: 3, QPs: []inspect.QPRange{{Min: 20, Max: 35}}})
	cmid, _ := json.Marshal(inspect.CMID{Object: inspect.Object{DevName: "rxe0"}, CMIDN: 2, Src: inspect.SockAddr{Family: 2, Addr: netip.MustParseAddrPort("10.0.0.1:7471")}})
	driver, _ := json.Marshal(inspect.QP{Object: inspect.Object{DevName: "mlx5_0", Driver: []inspect.DriverAttr{{Key: "sq_wqe_cnt", Value: uint32(64)}}}, LQPN: 9})
	for _, c := range []struct {
		kind rdma.Kind
		body string
		fast bool
	}{
		{rdma.KindSRQ, string(srq), false},
		{rdma.KindCMID, string(cmid), false},
		{rdma.KindQP, string(driver), false},
		{rdma.KindQP, `{}`, true},
		{rdma.KindQP, " {\n\t\"LQPN\" : 7 , \"Comm\":\"x\"\r} ", true},
		{rdma.KindQP, `{"LQPN":7,"LQPN":null,"Comm":"a","Comm":"b"}`, true},
		{rdma.KindQP, `{"Driver":null,"Attrs":null,"Subtype":null}`, true},
		{rdma.KindQP, `{"Attrs":[1,2,3,18446744073709551615]}`, true},
		{rdma.KindQP, `{"Attrs":[1,2,3]}`, false},
		{rdma.KindQP, `{"Attrs":[1,2,3,4,5]}`, false},
		{rdma.KindQP, `{"Attrs":[1,2,3,18446744073709551616]}`, false},
		{rdma.KindQP, `{"LQPN":4294967295}`, true},
		{rdma.KindQP, `{"LQPN":4294967296}`, false},
		{rdma.KindQP, `{"LQPN":-1}`, false},
		{rdma.KindQP, `{"LQPN":-0}`, false},
		{rdma.KindQP, `{"LQPN":1.0}`, false},
		{rdma.KindQP, `{"LQPN":1e3}`, false},
		{rdma.KindQP, `{"LQPN":01}`, false},
		{rdma.KindQP, `{"LQPN":"1"}`, false},
		{rdma.KindQP, `{"lqpn":5}`, false},
		{rdma.KindQP, `{"Unknown":5}`, false},
		{rdma.KindQP, `{"Comm":"a\"b"}`, false},
		{rdma.KindQP, `{"Comm":"\u00e9t\u00e9"}`, false},
		{rdma.KindQP, "{\"Comm\":\"\xff\"}", false},
		{rdma.KindQP, "{\"Comm\":\"caf\xc3\xa9\"}", false},
		{rdma.KindQP, `{"Comm":5}`, false},
		{rdma.KindQP, `{"LQPN":7,}`, false},
		{rdma.KindQP, `{"LQPN":7} x`, false},
		{rdma.KindQP, `{"LQPN":7`, false},
		{rdma.KindQP, `null`, false},
		{rdma.KindQP, ``, false},
		{rdma.KindCQ, `{"DIM":255,"PollCtx":3}`, true},
		{rdma.KindCQ, `{"DIM":256}`, false},
	} {
		if got := fastTakes(c.kind, []byte(c.body)); got != c.fast {
			t.Errorf("%s %s: fast path takes it %v, want %v", c.kind, c.body, got, c.fast)
		}
		checkBody(t, c.kind, []byte(c.body))
	}
}

// checkBody fails t when decodeObj's result or error is not
// encoding/json's.
func checkBody(t testing.TB, k rdma.Kind, body []byte) {
	t.Helper()
	want, werr := viaJSON(t, k, body)
	got, err := decodeObj(k, body)
	if (err != nil) != (werr != nil) {
		t.Fatalf("%s %q: error %v, encoding/json's %v", k, body, err, werr)
	}
	if err != nil {
		return
	}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })); d != "" {
		t.Fatalf("%s %q (-encoding/json +decodeObj):\n%s", k, body, d)
	}
}

// FuzzBodyDecoder: whatever a body holds, decodeObj gives what
// encoding/json gives, or fails where it fails, and never panics.
func FuzzBodyDecoder(f *testing.F) {
	for _, b := range []string{
		`{"DevIndex":0,"DevName":"rxe0","PID":0,"KernName":"ib_core","TGID":0,"Comm":"ib_core","Owner":1,"Driver":null,"Attrs":[757071880,0,0,0],"Port":1,"LQPN":1,"RQPN":0,"RQPSN":0,"SQPSN":0,"PathMigState":0,"Type":1,"State":3,"PDN":0,"Subtype":""}`,
		`{"DevIndex":0,"DevName":"rxe0","PID":0,"KernName":"ib_core","TGID":0,"Comm":"ib_core","Owner":1,"Driver":null,"Attrs":[2305843971823239168,1048576,0,0],"CQN":0,"CQE":1023,"Users":2,"PollCtx":2,"DIM":0,"CtxN":0}`,
		`{"LQPN":-1,"Attrs":[1,2],"Comm":"\u00e9"}`,
	} {
		f.Add(b)
	}
	kinds := []rdma.Kind{rdma.KindQP, rdma.KindCQ, rdma.KindMR, rdma.KindPD, rdma.KindCtx, rdma.KindSRQ, rdma.KindCMID}
	f.Fuzz(func(t *testing.T, body string) {
		for _, k := range kinds {
			checkBody(t, k, []byte(body))
		}
	})
}
