package fleet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeVector: whatever a server answers as a query's data, the
// decoder returns samples or an error, never a panic; seeded with the
// answers recorded from the lab's Prometheus.
func FuzzDecodeVector(f *testing.F) {
	for _, name := range []string{"lab-pair-fleet-api.json", "lab-pair-fleet-after-api.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		var rec Replay
		if err := json.Unmarshal(b, &rec); err != nil {
			f.Fatal(err)
		}
		for _, a := range rec {
			var env envelope
			if json.Unmarshal(a.Body, &env) == nil {
				f.Add([]byte(env.Data))
			}
		}
	}
	f.Add([]byte(`{"resultType":"vector","result":[{"metric":{},"value":[1,"NaN"]}]}`))
	f.Add([]byte(`{"resultType":"vector","result":[{"metric":{},"value":[1]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeVector("q", data)
		if err != nil && s != nil {
			t.Errorf("samples %v with error %v", s, err)
		}
	})
}
