#!/bin/sh
# /init of the verbscope lab guest (busybox sh as PID 1).
# Kernel command line knobs (built by lab.Guest.Cmdline):
#   vs.mode=run|shell|probe   run /mnt/lab/run.sh, give a login shell, or only prove the boot
#   vs.role=single|a|b        one VM with veth0/veth1, or host a/b of a two-VM lab on eth0
#   vs.ip=A.B.C.D/NN vs.peer=A.B.C.D   addresses for roles a and b
#   vs.rows=N vs.cols=N vs.term=NAME   the host terminal, for the shell
# Markers the host looks for on the console: <<<VERBSCOPE-READY>>>,
# <<<VERBSCOPE-EXIT n>>> and <<<VERBSCOPE-FAIL reason>>>.
export PATH=/run/lab/bin:/mnt/lab/bin:/usr/bin:/usr/sbin:/bin:/sbin HOME=/root TERM=linux

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
# cgroup v2: the test runner ends everything a test binary started by its cgroup.
mount -t cgroup2 cgroup2 /sys/fs/cgroup

# Debian's busybox runs its own applets before $PATH, so plain "ip" would be
# busybox ip, which knows neither veth nor rdma. Always the real iproute2:
ip() { /usr/sbin/ip "$@"; }
fail() { echo "<<<VERBSCOPE-FAIL $*>>>"; sync; poweroff -f; sleep 10; }

MODE=run ROLE=single VMIP= PEER= ROWS= COLS=
for w in $(cat /proc/cmdline); do
  case $w in
    vs.mode=*) MODE=${w#vs.mode=} ;;
    vs.role=*) ROLE=${w#vs.role=} ;;
    vs.ip=*) VMIP=${w#vs.ip=} ;;
    vs.peer=*) PEER=${w#vs.peer=} ;;
    vs.rows=*) ROWS=${w#vs.rows=} ;;
    vs.cols=*) COLS=${w#vs.cols=} ;;
    vs.term=*) TERM=${w#vs.term=} ;;
  esac
done
if [ "$MODE" = probe ]; then
  echo "<<<VERBSCOPE-PROBE>>>"
  poweroff -f
fi

while read -r m; do
  out=$(insmod /modules/$m.ko 2>&1) || fail "insmod $m: $out"
done < /modules/order
# Kernel messages from here on go to dmesg only, not into the command's output,
# except the ones that mean the kernel is in trouble: a soft lockup, a hung
# task, a BUG or Oops, the OOM killer. Those go to the console as
# <<<VERBSCOPE-KERNEL line>>> markers, with the 80 lines after them (the
# stack), for the host to stop the run and show them. (cat, since /dev/kmsg
# gives a record only to a read large enough for all of it.) It runs on whichever
# CPU is free, so a CPU stuck in the kernel does not silence it.
dmesg -n 1
kwatch() {
  after=0
  while read -r l; do
    msg=${l#*;}
    case $msg in
      *"soft lockup"*|*"hung task"*|*"blocked for more than"*|*"BUG:"*|*"Oops"*|*"invoked oom-killer"*|*"Out of memory"*|*"Kernel panic"*|*"rcu_sched self-detected stall"*|*"rcu: INFO"*) after=80 ;;
    esac
    if [ $after -gt 0 ]; then echo "<<<VERBSCOPE-KERNEL $msg>>>"; after=$((after-1)); fi
  done
}
cat /dev/kmsg | kwatch > /dev/console 2>&1 &

for f in /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag; do
  [ -e "$f" ] || continue
  tag=$(tr -d '\000' < "$f")
  mkdir -p /mnt/$tag
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 "$tag" /mnt/$tag || fail "mount 9p share $tag"
done

# The host's programs for this run (verbscope) are copied to tmpfs: on the
# 9p share, which has no page cache, every start re-read the whole binary
# (5.5 s per `verbscope res` in the guest against 0.65 s from tmpfs).
if [ -d /mnt/lab/bin ]; then
  mkdir -p /run/lab/bin && cp -p /mnt/lab/bin/* /run/lab/bin/ 2>/dev/null
fi

ip link set lo up
case $ROLE in
  single)
    ip link add veth0 type veth peer name veth1 || fail "veth"
    ip addr add 10.0.0.1/24 dev veth0
    ip addr add 10.0.0.2/24 dev veth1
    ip link set veth0 up
    ip link set veth1 up
    NETDEV=veth0 LABIP=10.0.0.1 PEER=10.0.0.1
    hostname lab ;;
  a|b)
    [ -n "$VMIP" ] || fail "role $ROLE needs vs.ip"
    ip addr add "$VMIP" dev eth0 || fail "no eth0 for role $ROLE"
    ip link set eth0 up
    NETDEV=eth0 LABIP=${VMIP%/*}
    hostname lab-$ROLE ;;
  *) fail "unknown role $ROLE" ;;
esac
out=$(rdma link add rxe0 type rxe netdev $NETDEV 2>&1) || fail "rdma link add rxe0: $out"

# The IPv4-mapped GID appears a moment after the address; RoCE v2 over IPv4
# needs its index (the gid_attrs of empty entries read as EINVAL, so only
# the gids files are scanned).
want=$(echo $LABIP | awk -F. '{printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1,$2,$3,$4}')
GIDX=
i=0
while [ -z "$GIDX" ] && [ $i -lt 100 ]; do
  for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
    if [ "$(cat $f 2>/dev/null)" = "$want" ]; then GIDX=${f##*/}; break; fi
  done
  [ -n "$GIDX" ] || { sleep 0.05; i=$((i+1)); }
done
[ -n "$GIDX" ] || fail "rxe0 has no RoCE v2 GID for $LABIP"
[ -e /dev/infiniband/uverbs0 ] || fail "/dev/infiniband/uverbs0 missing"

cat > /etc/lab.env <<EOF
export LAB_DEV=rxe0 LAB_PORT=1 LAB_GID_INDEX=$GIDX LAB_NETDEV=$NETDEV LAB_IP=$LABIP LAB_PEER_IP=$PEER LAB_ROLE=$ROLE
export PATH=$PATH HOME=/root TERM=$TERM LANG=C.UTF-8
ip() { /usr/sbin/ip "\$@"; }
EOF
echo '. /etc/lab.env; PS1="\\h:\\w# "' > /root/.profile
. /etc/lab.env
[ "$MODE" = shell ] || echo "<<<VERBSCOPE-READY>>>"

rc=0
case $MODE in
  run)
    if [ -d /mnt/host ]; then cd /mnt/host; else cd /root; fi
    sh /mnt/lab/run.sh
    rc=$? ;;
  shell)
    cd /root
    [ -n "$ROWS" ] && stty rows "$ROWS" cols "$COLS" 2>/dev/null
    if [ -s /mnt/lab/command ]; then
      setsid cttyhack sh -l /mnt/lab/run.sh
    else
      echo "lab: rxe0 is up on $NETDEV ($LABIP, GID index $GIDX). Ctrl-D or 'exit' powers the VM off."
      setsid cttyhack sh -l
    fi
    rc=$? ;;
esac
sync
[ "$MODE" = shell ] || echo "<<<VERBSCOPE-EXIT $rc>>>"
poweroff -f
