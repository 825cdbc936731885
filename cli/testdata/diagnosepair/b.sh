# Host b: an exporter, then every step a hands over (/mnt/host/b.N), in
# order, until a says the end.
. /mnt/host/lib.sh
cd /tmp
start_exporter
touch /mnt/host/b-ready
n=1
while [ ! -e /mnt/host/end ]; do
  if [ -e /mnt/host/b.$n ]; then
    sh /mnt/host/b.$n >>/mnt/host/b-steps.log 2>&1
    echo $? >/mnt/host/b.$n.done
    n=$((n+1))
  else
    sleep 0.2
  fi
done
