package sysfsmon

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGIDWatchFresh(t *testing.T) {
	addrs := []string{"a", "a", "a", "b", "b", "b", "b", "!", "!"}
	i := 0
	w := gidWatch{addrs: func() (string, error) {
		a := addrs[i]
		if a == "!" {
			return "", errors.New("netlink refused")
		}
		return a, nil
	}}
	var got []bool
	for i = range addrs {
		got = append(got, w.fresh())
	}
	// The first two ticks read (a first sight settles for two), the
	// third reuses; "b" reads twice, then reuse; an unreadable address
	// list always reads.
	want := []bool{true, true, false, true, true, false, false, true, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fresh per tick (-want +got):\n%s", diff)
	}
}

func TestGIDWatchRecheck(t *testing.T) {
	w := gidWatch{addrs: func() (string, error) { return "same", nil }}
	reads := 0
	for range gidSettle + 2*(gidRecheck+1) {
		if w.fresh() {
			reads++
		}
	}
	if want := gidSettle + 2; reads != want {
		t.Errorf("%d readings over %d quiet full ticks, want %d (settling, then every %dth)", reads, gidSettle+2*(gidRecheck+1), want, gidRecheck+1)
	}
}

// TestWatchKeepsGIDs: full readings reuse the GID table while the
// host's addresses stay the same, and read it again once one changes.
func TestWatchKeepsGIDs(t *testing.T) {
	f := fixture(t, "rxe0")
	addr := make(chan string, 1)
	cur := "10.0.2.15/24"
	f.addrs = func() (string, error) {
		select {
		case cur = <-addr:
		default:
		}
		return cur, nil
	}
	w, clk := watchOn(t, f, WatchOptions{FullEvery: 2})
	ups := readings(t, w, clk, 8)
	addr <- "10.0.2.16/24" // read by full reading 8
	ups = append(ups, more(t, w, clk, 3)...)
	gids := func(i int) *GID { return &ups[i].Devices[0].Ports[0].GIDs[0] }
	// Full ticks are 0, 2, 4, ...: 0 and 2 read (settling), 4 and 6 reuse,
	// 8 sees the change and reads, 10 reads again (settling).
	for _, c := range []struct {
		tick int
		same bool
	}{{2, false}, {4, true}, {6, true}, {8, false}, {10, false}} {
		if same := gids(c.tick) == gids(c.tick-2); same != c.same {
			t.Errorf("full tick %d: kept the last GID table %v, want %v", c.tick, same, c.same)
		}
		if diff := cmp.Diff(ups[0].Devices[0].Ports[0].GIDs, ups[c.tick].Devices[0].Ports[0].GIDs); diff != "" {
			t.Errorf("full tick %d: GIDs differ from the first reading (-first +now):\n%s", c.tick, diff)
		}
	}
}
