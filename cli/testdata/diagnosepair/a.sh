# Host a drives the scenarios; b runs what bdo hands it. Each scenario
# leaves no RC QP behind on either host before the next begins: a
# retrying QP would raise the port counters the next one is judged by.
. /mnt/host/lib.sh
cd /tmp
bn=0
# bstart STEP: hand STEP (sh) to b; bwait: wait until b has done it.
bstart() {
  bn=$((bn+1))
  printf '. /mnt/host/lib.sh\ncd /tmp\n%s\n' "$1" >/mnt/host/b.$bn.tmp
  mv /mnt/host/b.$bn.tmp /mnt/host/b.$bn
}
bwait() {
  i=0
  until [ -e /mnt/host/b.$bn.done ]; do
    i=$((i+1))
    if [ $i -gt 1500 ]; then echo "lab: b's step $bn not done after 300 s"; return 1; fi
    sleep 0.2
  done
}
# bdo STEP: run STEP on b and wait until it is done.
bdo() { bstart "$1"; bwait; }
# diag_both NAME: the diagnosis on both hosts at once (each reads its own
# host for 5 s and asks the other's exporter; neither disturbs the other).
diag_both() { bstart "diag $1 $A"; diag $1 $B; bwait; }
fail() { echo "lab: $*"; touch /mnt/host/end; exit 1; }
A=http://10.0.1.1:9879
B=http://10.0.1.2:9879

start_exporter
i=0
until [ -e /mnt/host/b-ready ]; do i=$((i+1)); [ $i -gt 1500 ] && fail "b not ready"; sleep 0.2; done

echo "== busy: an ibv_rc_pingpong pair at work"
bdo 'ibv_rc_pingpong -g $LAB_GID_INDEX -n 100000000 >/tmp/pp.log 2>&1 & echo $! >/tmp/pp.pid; until rdma res show qp | grep -q "type RC"; do sleep 0.2; done'
ibv_rc_pingpong -g $LAB_GID_INDEX -n 100000000 10.0.1.2 >/tmp/pp.log 2>&1 &
pp=$!
wait_state RTS || fail busy
diag_both busy
kill -9 $pp; bdo 'kill -9 $(cat /tmp/pp.pid); wait_no_rc'; wait_no_rc

echo "== idle: a connected pair that sends nothing"
bdo 'shell_start listen-b; wait_state INIT'
shell_start dial-a; wait_state RTS || fail idle
diag_both idle
shell_kill dial-a; bdo 'shell_kill listen-b'

echo "== rnr: b posted no receive, a sends"
bdo 'shell_start listen-b; wait_state INIT'
shell_start send-a; wait_state RTS || fail rnr
diag_both rnr

echo "== peer_gone: b's process killed while a retries"
bdo 'shell_kill listen-b'
diag gone $B
shell_kill send-a

echo "== peer_not_ready: b's QP back in INIT"
bdo 'shell_start init-b; wait_state INIT'
shell_start send-a; wait_state RTS || fail init
bdo 'wait_state INIT'
diag init $B
shell_kill send-a; bdo 'shell_kill init-b'

echo "== peer in ERR: b moved its QP to ERR"
bdo 'shell_start err-b; wait_state INIT'
shell_start send-a; wait_state RTS || fail err
bdo 'wait_state ERR'
diag_both err
shell_kill send-a; bdo 'shell_kill err-b'

echo "== remote_access: an RDMA write with a bad rkey"
bdo 'shell_start recv-b; wait_state INIT'
shell_start write-a; wait_state ERR || fail remote
# b's responder moves its QP to ERR after its NAK: a's verdict needs it
# (b's exporter shows it a reading later, which the diagnosis waits out).
bdo 'wait_state ERR'
diag_both remote
shell_kill write-a; bdo 'shell_kill recv-b'

echo "== wrong_destination: a sends to a QP number b never had"
shell_start wrong-a; wait_state RTS || fail wrong
diag wrong $B
shell_kill wrong-a

echo "== b's exporter stopped: rnr, then the peer gone"
bdo 'kill $(cat /tmp/export.pid); while wget -q -O /dev/null http://127.0.0.1:9879/api/v1/qps; do sleep 0.2; done'
bdo 'shell_start listen-b; wait_state INIT'
shell_start send-a; wait_state RTS || fail rnr-noexp
diag rnr-noexp $B
bdo 'shell_kill listen-b'
diag gone-noexp $B
shell_kill send-a
bdo 'start_exporter'

echo "== link_down: b's netdev set down while both send"
bdo 'shell_start listen-b; wait_state INIT'
shell_start dial-a; wait_state RTS || fail link
bdo 'ip link set $LAB_NETDEV down; shell_say listen-b "post send qp1 mr1[0:16]"'
shell_say dial-a 'post send qp1 mr1[0:16]'
diag_both link
shell_kill dial-a; bdo 'shell_kill listen-b'

echo "== done"
touch /mnt/host/end
