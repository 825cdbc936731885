open; pd; cq size=64; mr size=4096 access=local_write; qp type=rc cq=cq1; next qp1
dial qp1 10.0.1.2 timeout=300s
write mr1 "HELLO-FROM-A"; post send qp1 mr1[0:12]
