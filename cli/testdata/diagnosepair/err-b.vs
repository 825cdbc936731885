open; pd; cq size=64; mr size=4096 access=local_write; qp type=rc cq=cq1; next qp1
listen qp1 timeout=300s
modify qp1 err
