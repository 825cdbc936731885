open; pd; cq size=64; mr size=4096 access=local_write; qp type=rc cq=cq1; next qp1
next qp1 dest_qpn=9999 dgid=10.0.1.2 rq_psn=0
next qp1
post send qp1 mr1[0:12]
