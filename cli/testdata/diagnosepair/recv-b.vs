open; pd; cq size=64; mr size=4096 access=local_write,remote_write; qp type=rc cq=cq1; next qp1
post recv qp1 mr1[0:64]
listen qp1 timeout=300s
