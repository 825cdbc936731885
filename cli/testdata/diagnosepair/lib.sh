# Helpers of the diagnose pair test (cli/diagnose_pair_vm_test.go), sourced
# by both hosts' scripts and by every step a runs on b.

# shell_start NAME: a verbs shell reading /tmp/NAME.in (a fifo held open,
# so later lines can be said to it), fed /mnt/host/NAME.vs; a failed
# command does not end it (its QP would go with it).
shell_start() {
  rm -f /tmp/$1.in; mkfifo /tmp/$1.in
  verbscope shell --keep-going </tmp/$1.in >/mnt/host/$1.log 2>&1 &
  echo $! >/tmp/$1.pid
  sleep 100000 >/tmp/$1.in &
  echo $! >/tmp/$1.hold
  cat /mnt/host/$1.vs >/tmp/$1.in
}

# shell_say NAME LINE: one more command to a running shell.
shell_say() { echo "$2" >/tmp/$1.in; }

# shell_kill NAME: kill -9 the shell (its QP goes with its descriptors)
# and wait until no RC QP is left on this host.
shell_kill() {
  kill -9 $(cat /tmp/$1.pid) $(cat /tmp/$1.hold) 2>/dev/null
  wait_no_rc
}

# wait_state STATE: until an RC QP of this host is in STATE (rdma's words).
wait_state() {
  i=0
  until rdma res show qp | grep -q "type RC state $1 "; do
    i=$((i+1))
    if [ $i -gt 900 ]; then echo "lab: no RC QP in $1 after 180 s"; rdma res show qp; return 1; fi
    sleep 0.2
  done
}

wait_no_rc() {
  i=0
  while rdma res show qp | grep -q "type RC"; do
    i=$((i+1))
    if [ $i -gt 900 ]; then echo "lab: RC QPs still there after 180 s"; rdma res show qp; return 1; fi
    sleep 0.2
  done
}

# wait_http URL: until an exporter answers (busybox wget: the guest has no curl).
wait_http() {
  i=0
  until wget -q -O /dev/null "$1"; do
    i=$((i+1))
    if [ $i -gt 900 ]; then echo "lab: $1 does not answer after 180 s"; return 1; fi
    sleep 0.2
  done
}

# diag NAME PEER: verbscope diagnose -j with 5 readings a second apart,
# asking the exporter at PEER; its JSON, status and stderr, this host's
# QPs as rdma sees them and this host's exporter's /api/v1/qps go to
# /mnt/host/NAME-ROLE.*.
diag() {
  verbscope diagnose -j --readings 5 --interval 1s --peers "$2" >/mnt/host/$1-$LAB_ROLE.json 2>/mnt/host/$1-$LAB_ROLE.err
  echo $? >/mnt/host/$1-$LAB_ROLE.rc
  rdma -j res show qp >/mnt/host/$1-$LAB_ROLE-qps.json
  wget -q -O /mnt/host/$1-$LAB_ROLE-api.json http://127.0.0.1:9879/api/v1/qps
}

start_exporter() {
  verbscope export --web.listen-address=:9879 --interval=1s --api.sensitive >>/mnt/host/export-$LAB_ROLE.log 2>&1 &
  echo $! >/tmp/export.pid
  wait_http http://127.0.0.1:9879/api/v1/qps
}
