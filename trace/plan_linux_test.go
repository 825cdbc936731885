package trace

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProgramGroups: every program of the BPF object belongs to a group,
// so none is silently never attached.
func TestProgramGroups(t *testing.T) {
	spec, err := loadTracer()
	if err != nil {
		t.Fatal(err)
	}
	for name := range spec.Programs {
		if programGroups[name] == 0 {
			t.Errorf("program %s is in no Group (programGroups)", name)
		}
	}
	for name := range programGroups {
		if spec.Programs[name] == nil {
			t.Errorf("programGroups names %s, which the BPF object lacks", name)
		}
	}
}

func TestPlan(t *testing.T) {
	spec, err := loadTracer()
	if err != nil {
		t.Fatal(err)
	}
	qp := []attempt{
		{"create_qp_user", "ib_create_qp_user", -1},
		{"destroy_qp_enter", "ib_destroy_qp_user", -1},
		{"destroy_qp_exit", "ib_destroy_qp_user", -1},
		{"modify_qp_kernel", "ib_modify_qp", -1},
		{"modify_qp_kernel_enter", "ib_modify_qp", -1},
		{"modify_qp_udata", "ib_modify_qp_with_udata", -1},
		{"modify_qp_udata_enter", "ib_modify_qp_with_udata", -1},
	}
	var regMR []attempt
	for _, fn := range driverRegMR {
		regMR = append(regMR, attempt{"reg_user_mr", fn, -2})
	}
	if regMR[0].target != "rxe_reg_user_mr" {
		t.Errorf("the lab's driver, rxe, should come first: %v", regMR[0])
	}
	for _, tc := range []struct {
		name string
		opts Options
		want []attempt
		n    int
	}{
		{"qp", Options{Groups: GroupQP}, qp, len(qp)},
		{"async", Options{Groups: GroupAsync}, []attempt{{"qp_event", "ib_uverbs_qp_event_handler", -1}}, 1},
		{"objects", Options{Groups: GroupObjects}, append([]attempt{
			{"restrack_add", "rdma_restrack_add", -1},
			{"restrack_del", "rdma_restrack_del", -1},
			{"restrack_del", "rdma_restrack_commit_del", -2},
		}, regMR...), 3 + len(driverRegMR)},
		{"retargeted", Options{Groups: GroupQP, Targets: map[string]string{"create_qp_user": "bogus"}}, append([]attempt{{"create_qp_user", "bogus", -1}}, qp[1:]...), len(qp)},
		{"all", Options{Groups: GroupAll}, nil, len(qp) + 1 + 3 + len(driverRegMR) + len(uverbsHandlers)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := plan(spec, tc.opts)
			if len(got) != tc.n {
				t.Errorf("%d attachments, want %d: %v", len(got), tc.n, got)
			}
			if tc.want != nil {
				if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(attempt{})); d != "" {
					t.Errorf("plan (-want +got):\n%s", d)
				}
			}
		})
	}
}
