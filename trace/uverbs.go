package trace

// driverRegMR are the drivers' reg_user_mr (struct ib_device_ops, one
// per drivers/infiniband/hw and sw driver of Linux 6.1), where
// reg_user_mr reads an MR's access flags: whichever the running kernel
// has are hooked, the others left out silently (most hosts have one
// driver). rdma_rxe's is the lab's.
var driverRegMR = []string{
	"rxe_reg_user_mr", "siw_reg_user_mr", "mlx5_ib_reg_user_mr", "mlx4_ib_reg_user_mr",
	"irdma_reg_user_mr", "bnxt_re_reg_user_mr", "efa_reg_mr", "hns_roce_reg_user_mr",
	"erdma_reg_user_mr", "mana_ib_reg_user_mr", "qedr_reg_user_mr", "pvrdma_reg_user_mr",
	"ocrdma_reg_user_mr", "c4iw_reg_user_mr", "rvt_reg_user_mr", "usnic_ib_reg_mr",
}

// uverbsHandler is a uverbs command handler (drivers/infiniband/core/
// uverbs_cmd.c for write() commands, uverbs_std_types_*.c for ioctl
// methods) whose failures trace reports when the core never saw the
// call, and the verb it serves.
type uverbsHandler struct {
	fn   string
	verb Verb
}

// uverbsHandlers are the control-path handlers of Linux 6.1's ib_uverbs;
// post, poll and notify are left out (they are the data path: rxe makes
// every post a system call). A handler missing on the running kernel is
// left out with a warning.
var uverbsHandlers = []uverbsHandler{
	{"ib_uverbs_get_context", VerbAllocContext},
	{"ib_uverbs_handler_UVERBS_METHOD_GET_CONTEXT", VerbAllocContext},
	{"ib_uverbs_alloc_pd", VerbAllocPD},
	{"ib_uverbs_dealloc_pd", VerbDeallocPD},
	{"ib_uverbs_reg_mr", VerbRegMR},
	{"ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR", VerbRegMR},
	{"ib_uverbs_rereg_mr", "rereg_mr"},
	{"ib_uverbs_dereg_mr", VerbDeregMR},
	{"ib_uverbs_create_cq", VerbCreateCQ},
	{"ib_uverbs_ex_create_cq", VerbCreateCQ},
	{"ib_uverbs_handler_UVERBS_METHOD_CQ_CREATE", VerbCreateCQ},
	{"ib_uverbs_destroy_cq", VerbDestroyCQ},
	{"ib_uverbs_handler_UVERBS_METHOD_CQ_DESTROY", VerbDestroyCQ},
	{"ib_uverbs_create_qp", VerbCreateQP},
	{"ib_uverbs_ex_create_qp", VerbCreateQP},
	{"ib_uverbs_handler_UVERBS_METHOD_QP_CREATE", VerbCreateQP},
	{"ib_uverbs_modify_qp", VerbModifyQP},
	{"ib_uverbs_ex_modify_qp", VerbModifyQP},
	{"ib_uverbs_destroy_qp", VerbDestroyQP},
	{"ib_uverbs_handler_UVERBS_METHOD_QP_DESTROY", VerbDestroyQP},
	{"ib_uverbs_create_srq", VerbCreateSRQ},
	{"ib_uverbs_create_xsrq", VerbCreateSRQ},
	{"ib_uverbs_handler_UVERBS_METHOD_SRQ_CREATE", VerbCreateSRQ},
	{"ib_uverbs_destroy_srq", VerbDestroySRQ},
	{"ib_uverbs_handler_UVERBS_METHOD_SRQ_DESTROY", VerbDestroySRQ},
}
