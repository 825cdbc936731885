#!/bin/sh
# Records the parts of the lab's rxe0 that sysfsmon reads into ./rxe0 (run
# from the repository root on the host):
#
#   bin/verbscope lab --share sysfsmon/testdata -- 'sh record-rxe0.sh'
#
# Only the files sysfsmon reads are copied, with the class symlinks' real
# targets; the GID table is cut to its first 8 of 1024 entries. Files the
# kernel refuses to read (EINVAL for empty gid_attrs entries, EOPNOTSUPP
# for veth's phys_port_*) are listed in unreadable.txt instead.
OUT=/mnt/host/rxe0
rm -rf $OUT; mkdir -p $OUT
S=$OUT/sys; P=$OUT/proc
copyfiles() { # SRC DST: readable regular files of SRC into DST
	mkdir -p "$2"
	for f in "$1"/*; do
		[ -f "$f" ] || continue
		case ${f##*/} in uevent|spurious) continue;; esac
		if v=$(cat "$f" 2>&1); then printf '%s\n' "$v" > "$2/${f##*/}"; else echo "$f: $v" >> $OUT/unreadable.txt; fi
	done
}
classlink() { # /sys/class/X/NAME: recreate the link, print the real dir under /sys
	rel=${1#/sys/}
	mkdir -p $S/$(dirname $rel); ln -s $(readlink $1) $S/$rel
	real=$(readlink -f $1); echo ${real#/sys/}
}
d=$(classlink /sys/class/infiniband/$LAB_DEV)
copyfiles /sys/$d $S/$d
copyfiles /sys/$d/ports/1 $S/$d/ports/1
mkdir -p $S/$d/ports/1/gids
for i in 0 1 2 3 4 5 6 7; do
	cat /sys/$d/ports/1/gids/$i > $S/$d/ports/1/gids/$i
	for a in types ndevs; do
		mkdir -p $S/$d/ports/1/gid_attrs/$a
		if v=$(cat /sys/$d/ports/1/gid_attrs/$a/$i 2>&1); then printf '%s\n' "$v" > $S/$d/ports/1/gid_attrs/$a/$i; else echo "/sys/$d/ports/1/gid_attrs/$a/$i: $v" >> $OUT/unreadable.txt; fi
	done
done
echo "gids: $(ls /sys/$d/ports/1/gids | wc -l) entries on the real device, the first 8 recorded" >> $OUT/notes.txt
copyfiles /sys/$d/ports/1/pkeys $S/$d/ports/1/pkeys
echo "pkeys: $(ls /sys/$d/ports/1/pkeys | wc -l) entries" >> $OUT/notes.txt
copyfiles /sys/$d/ports/1/hw_counters $S/$d/ports/1/hw_counters
n=$(classlink /sys/class/net/$(cat /sys/$d/parent)); copyfiles /sys/$n $S/$n
for u in /sys/class/infiniband_verbs/uverbs* /sys/class/infiniband_mad/umad* /sys/class/infiniband_mad/issm*; do
	[ -e $u ] && { x=$(classlink $u); copyfiles /sys/$x $S/$x; }
done
cat /sys/class/infiniband_verbs/abi_version > $S/class/infiniband_verbs/abi_version
mkdir -p $P/sys/kernel $P/self $P/irq
for f in interrupts modules version stat; do cat /proc/$f > $P/$f; done
cat /proc/sys/kernel/osrelease > $P/sys/kernel/osrelease
cat /proc/self/limits > $P/self/limits
cat /proc/self/status > $P/self/status
cat /proc/irq/default_smp_affinity > $P/irq/default_smp_affinity
for i in /proc/irq/[0-9]*; do copyfiles $i $P/irq/${i##*/}; done
ls -l /dev/infiniband > $OUT/dev-infiniband.txt
L=usr/lib/x86_64-linux-gnu; mkdir -p $OUT/$L
for f in /$L/libibverbs.so*; do
	if [ -L $f ]; then ln -s $(basename $(readlink $f)) $OUT/$L/${f##*/}; else : > $OUT/$L/${f##*/}; fi
done
mkdir -p $OUT/$L/libibverbs $OUT/etc/libibverbs.d
for f in /$L/libibverbs/*; do : > $OUT/$L/libibverbs/${f##*/}; done
cp /etc/libibverbs.d/* $OUT/etc/libibverbs.d/
ibv_devinfo -v > $OUT/ibv_devinfo.txt
echo "recorded $(uname -r)"
