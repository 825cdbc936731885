package inspect

import (
	"testing"

	"github.com/verbscope/verbscope/internal/doccheck"
)

// Every exported name says what it is and what it mirrors (DEVELOPERS.md).
func TestExportedNamesDocumented(t *testing.T) {
	names, err := doccheck.Undocumented(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		t.Errorf("no doc comment: %s", n)
	}
}
