package oracle

import (
	"errors"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) []RdmaObject {
	t.Helper()
	o, err := ParseRdmaJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The line is `rdma -j resource show qp` as printed in the lab VM.
const qpLine = `[{"ifindex":0,"ifname":"rxe0","port":1,"lqpn":17,"rqpn":18,"type":"RC","state":"RTS","rq-psn":11265646,"sq-psn":10441338,"path-mig-state":"MIGRATED","pdn":1,"pid":150,"comm":"ibv_rc_pingpong"},{"ifindex":0,"ifname":"rxe0","port":1,"lqpn":1,"type":"GSI","state":"RTS","sq-psn":0,"comm":"ib_core"}]`

func TestParseRdmaJSON(t *testing.T) {
	objs := mustParse(t, qpLine+"\n")
	if len(objs) != 2 || strings.Join(objs[1].Keys, ",") != "ifindex,ifname,port,lqpn,type,state,sq-psn,comm" ||
		objs[0].Values["comm"] != "ibv_rc_pingpong" || objs[0].Values["sq-psn"].(interface{ String() string }).String() != "10441338" {
		t.Errorf("parsed %+v", objs)
	}
	if o := mustParse(t, "[]"); len(o) != 0 {
		t.Errorf("empty array: %+v", o)
	}
	for _, bad := range []string{"", "{}", "[1]", `[{"a":1,"a":2}]`, `[{"a":1}] x`, `[{"a":}]`, `[{"a":1}`} {
		if _, err := ParseRdmaJSON([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestCompareRdmaJSON(t *testing.T) {
	before := mustParse(t, qpLine)
	after := mustParse(t, strings.NewReplacer("11265646", "11265700", "10441338", "10441400").Replace(qpLine))
	mid := mustParse(t, strings.NewReplacer("11265646", "11265650", "10441338", "10441338").Replace(qpLine))
	if err := CompareRdmaJSON(before, mid, after); err != nil {
		t.Errorf("PSNs between the reads: %v", err)
	}
	if err := CompareRdmaJSON(before, before, before); err != nil {
		t.Errorf("identical: %v", err)
	}
	late := mustParse(t, strings.NewReplacer("11265646", "11265800").Replace(qpLine))
	if err := CompareRdmaJSON(before, late, after); err == nil {
		t.Error("a PSN past the second read passed")
	}
	if err := CompareRdmaJSON(before, mid, before); err == nil {
		t.Error("a PSN that moved while rdma saw none passed")
	}
	wrongPID := mustParse(t, strings.Replace(qpLine, `"pid":150`, `"pid":151`, 1))
	if err := CompareRdmaJSON(before, wrongPID, before); err == nil || !strings.Contains(err.Error(), "pid") {
		t.Errorf("wrong pid: %v", err)
	}
	reordered := mustParse(t, strings.Replace(qpLine, `"type":"RC","state":"RTS"`, `"state":"RTS","type":"RC"`, 1))
	if err := CompareRdmaJSON(before, reordered, before); err == nil {
		t.Error("keys out of order passed")
	}
	if err := CompareRdmaJSON(before, before[:1], before); err == nil {
		t.Error("a missing object passed")
	}
	withTGID := mustParse(t, strings.Replace(qpLine, `"pid":150,`, `"pid":150,"tgid":149,`, 1))
	if err := CompareRdmaJSON(before, withTGID, before); err != nil {
		t.Errorf("tgid right after pid: %v", err)
	}
	misplaced := mustParse(t, strings.Replace(qpLine, `"pdn":1,"pid":150,`, `"pdn":1,"tgid":149,"pid":150,`, 1))
	if err := CompareRdmaJSON(before, misplaced, before); err == nil || !strings.Contains(err.Error(), "tgid") {
		t.Errorf("tgid before pid: %v", err)
	}
	other := mustParse(t, strings.Replace(qpLine, `"pid":150,`, `"pid":150,"owner":"x",`, 1))
	if err := CompareRdmaJSON(before, other, before); err == nil {
		t.Error("a key iproute2 lacks, other than tgid, passed")
	}
	var u *Unstable
	gone := mustParse(t, strings.Replace(qpLine, `"state":"RTS"`, `"state":"ERR"`, 1))
	if err := CompareRdmaJSON(before, before, gone); !errors.As(err, &u) {
		t.Errorf("a change between the oracle reads: %v, want Unstable", err)
	}
	// Wrap-around: 0xfffff0 -> 0x10 is forward.
	w1 := mustParse(t, `[{"sq-psn":16777200}]`)
	w2 := mustParse(t, `[{"sq-psn":5}]`)
	w3 := mustParse(t, `[{"sq-psn":16}]`)
	if err := CompareRdmaJSON(w1, w2, w3); err != nil {
		t.Errorf("PSN wrap: %v", err)
	}
}

func FuzzParseRdmaJSON(f *testing.F) {
	f.Add([]byte(qpLine))
	f.Add([]byte("[]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := ParseRdmaJSON(data)
		if err != nil {
			return
		}
		CompareRdmaJSON(objs, objs, objs)
	})
}
