package view

import "testing"

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		n           uint64
		text, short string
	}{
		{0, "0 bytes", "0"},
		{1, "1 byte", "1"},
		{1023, "1023 bytes", "1023"},
		{1024, "1 KiB", "1.0K"},
		{1536, "1536 bytes", "1.5K"},
		{60 << 10, "60 KiB", "60.0K"},
		{64 << 10, "64 KiB", "64.0K"},
		{65537, "64.0 KiB", "64.0K"},
		// A limit less a page stays exact beside the limit.
		{8<<20 - 4<<10, "8188 KiB", "8.0M"},
		{8 << 20, "8 MiB", "8.0M"},
		{10000 << 10, "9.8 MiB", "9.8M"},
		{123456789, "117.7 MiB", "117.7M"},
		{3 << 29, "1536 MiB", "1.5G"},
		{1 << 30, "1 GiB", "1.0G"},
		{20000 << 30, "19.5 TiB", "19.5T"},
		{1 << 62, "4 EiB", "4.0E"},
	} {
		if got := Bytes(tc.n).String(); got != tc.text {
			t.Errorf("Bytes(%d).String() = %q, want %q", tc.n, got, tc.text)
		}
		if got := Bytes(tc.n).Short(); got != tc.short {
			t.Errorf("Bytes(%d).Short() = %q, want %q", tc.n, got, tc.short)
		}
	}
}

// The dashboard's column form, as its owners view has always printed it.
func TestBytesShort(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 1023: "1023", 1024: "1.0K", 64 << 10: "64.0K", 3 << 29: "1.5G", 1 << 62: "4.0E"} {
		if got := Bytes(n).Short(); got != want {
			t.Errorf("Bytes(%d).Short() = %q, want %q", n, got, want)
		}
	}
}

func TestSI(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {2.5, "2.5"}, {999, "999"}, {1200, "1.2k"}, {10e6, "10.0M"},
		{123_456_789_012, "123G"}, {7e18, "7.0E"}, {7e21, "7000E"},
	} {
		if got := SI(tc.v); got != tc.want {
			t.Errorf("SI(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
