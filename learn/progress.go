package learn

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/verbscope/verbscope/shell/front"
)

// Progress is where the learner is and what is done, saved between runs.
type Progress struct {
	Lesson int   `json:"lesson"` // the lesson's number
	Step   int   `json:"step"`   // 0-based step within it
	Done   []int `json:"done"`   // lessons finished
}

// ProgressPath is $XDG_STATE_HOME/verbscope/learn.json, or
// ~/.local/state/verbscope/learn.json ("" when there is no home).
func ProgressPath() string { return front.StatePath("learn.json") }

// LoadProgress reads saved progress; none saved is the zero Progress.
func LoadProgress(path string) (Progress, error) {
	var p Progress
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || path == "" {
		return p, nil
	}
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return Progress{}, errors.New("learn: " + path + " is not saved progress (" + err.Error() + "); `verbscope learn --reset` starts over")
	}
	return p, nil
}

// save writes the progress, creating its directory.
func (p Progress) save(path string) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(p)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ResetProgress removes saved progress.
func ResetProgress(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// isDone reports whether lesson n is finished.
func (p Progress) isDone(n int) bool {
	for _, d := range p.Done {
		if d == n {
			return true
		}
	}
	return false
}

// PackProgressPath is where a teacher's pack keeps its progress: beside
// the course's, named for the pack's directory, so packs do not mix.
func PackProgressPath(dir string) string {
	course := ProgressPath()
	if course == "" {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(filepath.Dir(course), "learn-"+hex.EncodeToString(sum[:6])+".json")
}
