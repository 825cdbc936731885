open; pd; cq size=64; mr size=4096 access=local_write; qp type=rc cq=cq1; next qp1
dial qp1 10.0.1.2 timeout=300s
post write qp1 mr1[0:8] raddr=0x1000 rkey=0x1234 --force
poll cq1 wait=60s
