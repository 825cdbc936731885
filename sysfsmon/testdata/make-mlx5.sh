#!/bin/sh
# Builds testdata/mlx5: a hand-made sysfs/procfs tree shaped like a host
# with a ConnectX (mlx5) and one odd device, for the tests that the lab's
# rxe0 cannot cover:
#   mlx5_0  InfiniBand, 2 ports (1 ACTIVE 4X EDR, 2 DOWN), PCI 0000:3b:00.0
#           on NUMA node 0 with four MSI-X vectors in msi_irqs/, counters/
#           and hw_counters/ per port, an IPoIB netdev ibp59s0f0
#   mlx5_1  RoCE on ens1f1np1, PCI 0000:3b:00.1, no msi_irqs/ (its IRQs are
#           found by name in /proc/interrupts), device-level hw_counters/,
#           GIDs of both RoCE versions for IPv6 and IPv4
#   irdma0  odd: no node_type, garbage state and rate, a counter that is
#           not a number, a legacy INTx line and numa_node -1
# Run from sysfsmon/testdata: sh make-mlx5.sh
set -e
R=mlx5; rm -rf $R; S=$R/sys; P=$R/proc
w() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; } # w FILE CONTENT
PCI0=devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0
PCI1=devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1
PCI2=devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0
mkdir -p $S/class/infiniband $S/class/net $S/class/infiniband_verbs
dev() { # dev NAME PCIDIR
	mkdir -p $S/$2/infiniband/$1
	ln -s ../../$2/infiniband/$1 $S/class/infiniband/$1
	ln -s ../../../$(basename $2) $S/$2/infiniband/$1/device
}
netdev() { # netdev NAME PCIDIR MTU STATE
	w $S/$2/net/$1/mtu $3; w $S/$2/net/$1/operstate $4; w $S/$2/net/$1/address 0c:42:a1:00:00:0$5
	w $S/$2/net/$1/ifindex $5
	ln -s ../../$2/net/$1 $S/class/net/$1
}
uverbs() { # uverbs N DEV
	w $S/devices/virtual/infiniband_verbs/uverbs$1/ibdev $2
	w $S/devices/virtual/infiniband_verbs/uverbs$1/dev 231:$((192 + $1))
	ln -s ../../devices/virtual/infiniband_verbs/uverbs$1 $S/class/infiniband_verbs/uverbs$1
}

# mlx5_0: InfiniBand, two ports
dev mlx5_0 $PCI0; D=$S/$PCI0/infiniband/mlx5_0
w $D/node_type "1: CA"; w $D/node_guid 0c42:a103:0012:3456; w $D/sys_image_guid 0c42:a103:0012:3456
w $D/fw_ver 20.35.1012; w $D/hca_type MT4123; w $D/board_id MT_0000000222; w $D/hw_rev 0x0
w $D/node_desc "node1 HCA-1"
w $S/$PCI0/numa_node 0; w $S/$PCI0/local_cpulist 0-3; w $S/$PCI0/irq 0
for i in 100 101 102 103; do w $S/$PCI0/msi_irqs/$i msix; done
netdev ibp59s0f0 $PCI0 2044 up 1
uverbs 0 mlx5_0
p=$D/ports/1
w $p/state "4: ACTIVE"; w $p/phys_state "5: LinkUp"; w $p/rate "100 Gb/sec (4X EDR)"
w $p/lid 0x12; w $p/sm_lid 0x1; w $p/sm_sl 0; w $p/lid_mask_count 0; w $p/cap_mask 0xa651e848
w $p/link_layer InfiniBand
w $p/gids/0 fe80:0000:0000:0000:0c42:a103:0012:3456; w $p/gids/1 0000:0000:0000:0000:0000:0000:0000:0000
w $p/pkeys/0 0xffff; w $p/pkeys/1 0x8001; w $p/pkeys/2 0x0000
w $p/counters/port_xmit_data 1000000; w $p/counters/port_rcv_data 2000000
w $p/counters/port_xmit_packets 5000; w $p/counters/port_rcv_packets 6000
w $p/counters/symbol_error 3; w $p/counters/link_downed 1; w $p/counters/port_rcv_errors 0
w $p/counters/port_xmit_discards 7; w $p/counters/VL15_dropped 0
w $p/hw_counters/out_of_buffer 11; w $p/hw_counters/out_of_sequence 2; w $p/hw_counters/rx_write_requests 400
w $p/hw_counters/local_ack_timeout_err 5; w $p/hw_counters/lifespan 10
p=$D/ports/2
w $p/state "1: DOWN"; w $p/phys_state "3: Disabled"; w $p/rate "10 Gb/sec (4X SDR)"
w $p/lid 0xffff; w $p/sm_lid 0x0; w $p/sm_sl 0; w $p/lid_mask_count 0; w $p/cap_mask 0xa651e848
w $p/link_layer InfiniBand
w $p/gids/0 fe80:0000:0000:0000:0c42:a103:0012:3457
w $p/pkeys/0 0xffff
w $p/counters/port_xmit_data 0; w $p/counters/port_rcv_data 0; w $p/counters/symbol_error 0

# mlx5_1: RoCE, IRQs only by name
dev mlx5_1 $PCI1; D=$S/$PCI1/infiniband/mlx5_1
w $D/node_type "1: CA"; w $D/node_guid 0c42:a103:0012:3458; w $D/sys_image_guid 0c42:a103:0012:3456
w $D/fw_ver 20.35.1012; w $D/hca_type MT4123; w $D/board_id MT_0000000222; w $D/hw_rev 0x0
w $D/node_desc "node1 HCA-2"
w $S/$PCI1/numa_node 0; w $S/$PCI1/local_cpulist 0-3
netdev ens1f1np1 $PCI1 9000 up 2
uverbs 1 mlx5_1
w $D/hw_counters/cnp_handled 9; w $D/hw_counters/req_cqe_error 1
p=$D/ports/1
w $p/state "4: ACTIVE"; w $p/phys_state "5: LinkUp"; w $p/rate "25 Gb/sec (1X EDR)"
w $p/lid 0x0; w $p/sm_lid 0x0; w $p/sm_sl 0; w $p/lid_mask_count 0; w $p/cap_mask 0x00010000
w $p/link_layer Ethernet
w $p/gids/0 fe80:0000:0000:0000:0e42:a1ff:fe00:0002; w $p/gids/1 fe80:0000:0000:0000:0e42:a1ff:fe00:0002
w $p/gids/2 0000:0000:0000:0000:0000:ffff:c0a8:0102; w $p/gids/3 0000:0000:0000:0000:0000:ffff:c0a8:0102
w $p/gids/4 0000:0000:0000:0000:0000:0000:0000:0000
for i in 0 2; do w $p/gid_attrs/types/$i "IB/RoCE v1"; done
for i in 1 3; do w $p/gid_attrs/types/$i "RoCE v2"; done
for i in 0 1 2 3; do w $p/gid_attrs/ndevs/$i ens1f1np1; done
w $p/pkeys/0 0xffff
w $p/counters/port_xmit_data 4000; w $p/counters/port_rcv_data 8000
w $p/hw_counters/rx_icrc_encapsulated 0; w $p/hw_counters/np_cnp_sent 4; w $p/hw_counters/rnr_nak_retry_err 0

# irdma0: odd files everywhere
dev irdma0 $PCI2; D=$S/$PCI2/infiniband/irdma0
w $D/node_guid 3cfd:feff:fe00:0001; w $D/sys_image_guid 3cfd:feff:fe00:0001; w $D/fw_ver 1.52
w $S/$PCI2/numa_node -1; w $S/$PCI2/irq 16
p=$D/ports/1
w $p/state "ACTIVE"; w $p/phys_state "5: LinkUp"; w $p/rate "fast"; w $p/lid 0x0; w $p/link_layer Ethernet
w $p/hw_counters/ip4InPkts "N/A"; w $p/hw_counters/ip4OutPkts 12

mkdir -p $P/sys/kernel $P/self
w $P/sys/kernel/osrelease 6.8.0-45-generic
w $P/version "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) #45-Ubuntu SMP PREEMPT_DYNAMIC"
cat > $P/stat <<'X'
cpu  100 0 100 1000 0 0 0 0 0 0
cpu0 25 0 25 250 0 0 0 0 0 0
cpu1 25 0 25 250 0 0 0 0 0 0
cpu2 25 0 25 250 0 0 0 0 0 0
cpu3 25 0 25 250 0 0 0 0 0 0
intr 0
ctxt 0
btime 1700000000
processes 1
procs_running 1
procs_blocked 0
softirq 0 0 0 0 0 0 0 0 0 0 0
X
cat > $P/interrupts <<'X'
            CPU0       CPU1       CPU2       CPU3
   0:         35          0          0          0   IO-APIC   2-edge      timer
  16:          7          0          0          0   IO-APIC  16-fasteoi   irdma
 100:          5          0          0          0  IR-PCI-MSIX-0000:3b:00.0    0-edge      mlx5_async0@pci:0000:3b:00.0
 101:       1000          0          0          0  IR-PCI-MSIX-0000:3b:00.0    1-edge      mlx5_comp0@pci:0000:3b:00.0
 102:          0       2000          0          0  IR-PCI-MSIX-0000:3b:00.0    2-edge      mlx5_comp1@pci:0000:3b:00.0
 103:          0          0       3000          0  IR-PCI-MSIX-0000:3b:00.0    3-edge      mlx5_comp2@pci:0000:3b:00.0
 110:         50         50         50         50  IR-PCI-MSI 31457281-edge      mlx5_comp0@pci:0000:3b:00.1
 111:         10          0          0          0  IR-PCI-MSI 31457282-edge      ens1f1np1-TxRx-0
 112:          1          0          0          0  IR-PCI-MSI 31457283-edge      veth1
NMI:          0          0          0          0   Non-maskable interrupts
LOC:       1447       1485       1000       1000   Local timer interrupts
ERR:          0
MIS:          0
garbage without a colon
X
for i in 0 16 100 101 102 103 110 111 112; do
	w $P/irq/$i/smp_affinity_list 0-3; w $P/irq/$i/smp_affinity f; w $P/irq/$i/node 0
	w $P/irq/$i/affinity_hint 00000000; w $P/irq/$i/effective_affinity_list 0
done
w $P/irq/102/effective_affinity_list 1; w $P/irq/102/affinity_hint 00000002
w $P/irq/103/effective_affinity_list 2; w $P/irq/103/affinity_hint 00000004
w $P/irq/101/affinity_hint 00000001; w $P/irq/110/smp_affinity_list 0,2-3
w $P/irq/16/node -1
cat > $P/modules <<'X'
mlx5_ib 466944 0 - Live 0xffffffffc1000000
ib_uverbs 172032 2 mlx5_ib,rdma_ucm, Live 0xffffffffc0273000
ib_core 442368 5 mlx5_ib,ib_uverbs,rdma_ucm,rdma_cm,ib_cm, Live 0xffffffffc0206000
rdma_ucm 32768 0 - Live 0xffffffffc0362000
rdma_cm 139264 1 rdma_ucm, Live 0xffffffffc0331000
ib_cm 139264 1 rdma_cm, Live 0xffffffffc02ef000
mlx5_core 2113536 1 mlx5_ib, Live 0xffffffffc0800000 (OE)
ext4 1003520 1 - Live 0xffffffffc0100000
X
cat > $P/self/limits <<'X'
Limit                     Soft Limit           Hard Limit           Units     
Max locked memory         65536                unlimited            bytes     
X
# A user without privileges: uid 1000 in a few groups, no capabilities.
cat > $P/self/status <<'X'
Name:	verbscope
State:	R (running)
Tgid:	4242
Pid:	4242
PPid:	4000
Uid:	1000	1000	1000	1000
Gid:	1000	1000	1000	1000
Groups:	4 27 1000 
CapInh:	0000000000000000
CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	000001ffffffffff
X
# libibverbs is configured for mlx5 and efa, not for irdma0's provider.
w $R/etc/libibverbs.d/mlx5.driver "driver mlx5"
w $R/etc/libibverbs.d/efa.driver "driver efa"
L=$R/usr/lib/x86_64-linux-gnu/libibverbs; mkdir -p $L
: > $L/libmlx5-rdmav34.so; : > $L/libefa-rdmav34.so
mkdir -p $R/var/lib/dpkg
cat > $R/var/lib/dpkg/status <<'X'
Package: libibverbs1
Status: install ok installed
Version: 50.0-2ubuntu0.2

Package: rdma-core
Status: deinstall ok config-files
Version: 39.0-1

Package: ibverbs-providers
Status: install ok installed
Version: 50.0-2ubuntu0.2
X
