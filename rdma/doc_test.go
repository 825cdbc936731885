package rdma

import (
	"testing"

	"github.com/verbscope/verbscope/internal/doccheck"
)

// Every exported name says what it is and what it mirrors (DEVELOPERS.md).
func TestExportedNamesDocumented(t *testing.T) { doccheck.Require(t, ".") }
