package kubelet

import (
	"fmt"
	"strconv"
	"strings"
)

// ClusterCIDR is the pod network the node IPAM controller carves into one
// /24 per node (--node-cidr-mask-size 24). The first 256 nodes get
// 10.244.0.0/24 to 10.244.255.0/24, the ranges kind and flannel use; later
// ones wrap round the rest of 10.0.0.0/8.
const ClusterCIDR = "10.0.0.0/8"

// nodeIndexes hands out node indexes (each a pod CIDR and a node IP),
// lowest free first, as the range allocator reuses released CIDRs.
type nodeIndexes struct {
	used []bool
}

func (a *nodeIndexes) allocate() int {
	for i, u := range a.used {
		if !u {
			a.used[i] = true
			return i
		}
	}
	a.used = append(a.used, true)
	return len(a.used) - 1
}

func (a *nodeIndexes) release(i int) {
	if i >= 0 && i < len(a.used) {
		a.used[i] = false
	}
}

// nodePodCIDR is node index i's pod CIDR.
func nodePodCIDR(i int) string {
	return fmt.Sprintf("10.%d.%d.0/24", (244+i/256)%256, i%256)
}

// nodeInternalIP is node index i's address on the node network (kind's
// 172.18.0.0/16 docker network; .1 is the gateway).
func nodeInternalIP(i int) string {
	return fmt.Sprintf("172.18.%d.%d", (i+2)/256, (i+2)%256)
}

// podNetwork allocates pod IPs from a node's pod CIDR as the host-local
// IPAM plugin does: sequentially from .2 (.1 is the bridge), continuing
// after the last address handed out rather than reusing at once.
type podNetwork struct {
	base uint32 // network address
	size uint32 // number of addresses in the CIDR
	next uint32 // offset to try first
	// used has bit off set while offset off is handed out. It grows as
	// higher offsets are reached: a few words for a /24, none allocated
	// per pod, where a map grew with the node's pods.
	used []uint64
}

func (n *podNetwork) inUse(off uint32) bool {
	w := int(off / 64)
	return w < len(n.used) && n.used[w]&(1<<(off%64)) != 0
}

func (n *podNetwork) setUse(off uint32, used bool) {
	w := int(off / 64)
	for w >= len(n.used) {
		n.used = append(n.used, 0)
	}
	if used {
		n.used[w] |= 1 << (off % 64)
	} else {
		n.used[w] &^= 1 << (off % 64)
	}
}

func newPodNetwork(cidr string) (*podNetwork, error) {
	ip, bits, ok := strings.Cut(cidr, "/")
	if !ok {
		return nil, fmt.Errorf("invalid CIDR address: %s", cidr)
	}
	prefix, err := strconv.Atoi(bits)
	if err != nil || prefix < 8 || prefix > 30 {
		return nil, fmt.Errorf("invalid CIDR address: %s", cidr)
	}
	base, err := parseIPv4(ip)
	if err != nil {
		return nil, fmt.Errorf("invalid CIDR address: %s", cidr)
	}
	size := uint32(1) << (32 - prefix)
	return &podNetwork{base: base &^ (size - 1), size: size, next: 2}, nil
}

// allocate returns a free IP, or false when the range is exhausted.
func (n *podNetwork) allocate() (string, uint32, bool) {
	last := n.size - 2 // the broadcast address is not handed out
	for tries := uint32(0); tries < last-1; tries++ {
		off := n.next
		n.next++
		if n.next > last {
			n.next = 2
		}
		if !n.inUse(off) {
			n.setUse(off, true)
			return formatIPv4(n.addr(off)), off, true
		}
	}
	return "", 0, false
}

func (n *podNetwork) release(off uint32) { n.setUse(off, false) }

// addr is the address at offset off in the range.
func (n *podNetwork) addr(off uint32) uint32 { return n.base + off }

// rangeString is the host-local plugin's description of the range, for its
// exhaustion error.
func (n *podNetwork) rangeString() string {
	return formatIPv4(n.base+1) + "-" + formatIPv4(n.base+n.size-2)
}

func parseIPv4(s string) (uint32, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return 0, fmt.Errorf("not an IPv4 address: %s", s)
	}
	var v uint32
	for _, p := range parts {
		b, err := strconv.Atoi(p)
		if err != nil || b < 0 || b > 255 {
			return 0, fmt.Errorf("not an IPv4 address: %s", s)
		}
		v = v<<8 | uint32(b)
	}
	return v, nil
}

// formatIPv4 is the dotted quad of v, made in one allocation (strconv.Itoa
// allocates for numbers past 99).
func formatIPv4(v uint32) string {
	var buf [len("255.255.255.255")]byte
	return string(appendIPv4(buf[:0], v))
}

// isIPv4 reports whether s is the dotted quad of v, without making it.
func isIPv4(s string, v uint32) bool {
	var buf [len("255.255.255.255")]byte
	return string(appendIPv4(buf[:0], v)) == s
}

func appendIPv4(b []byte, v uint32) []byte {
	b = strconv.AppendUint(b, uint64(v>>24), 10)
	for shift := 16; shift >= 0; shift -= 8 {
		b = strconv.AppendUint(append(b, '.'), uint64(v>>shift&0xff), 10)
	}
	return b
}
