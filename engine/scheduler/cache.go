package scheduler

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// cache is the scheduler's own view of the cluster, kept up to date from
// watch events (kube's internal/cache): a NodeInfo per node with running
// sums of its pods' requests, the node list in the order the filters scan
// it, and the cluster-wide image summaries. A scheduling attempt reads it
// and never lists pods.
type cache struct {
	nodes  map[string]*framework.NodeInfo
	tree   nodeTree
	list   []*framework.NodeInfo // the nodes in tree order; nil when stale
	pods   map[types.UID]*cachedPod
	images map[string]*imageState
	topo   *topoIndex
	// demands shares the requests of bound pods (and of queued ones: the
	// queue uses it too), one Demand per distinct value.
	demands framework.Demands
}

// cachedPod is a bound pod the cache accounts, with its PodInfo (which its
// NodeInfo's Pods point to: one allocation for both, of 48 bytes, its
// Demand shared).
type cachedPod struct {
	info framework.PodInfo
	// last is the pod's latest scheduling decision (nil if this scheduler
	// never tried it), kept here while the pod is accounted rather than
	// in the explain store's map by name: a bound pod is found by its UID
	// for every write to it anyway, and the pointer costs 16 bytes per
	// pod (the record grows from 32 to 48) where the entry in the map
	// cost about 50 (see explainStore.take).
	last *decisionRec
	// ni is the NodeInfo the pod is accounted on, the one nodes holds for
	// its nodeName for as long as it has pods: every status update of a
	// bound pod comes to UpdatePod, which then needs no lookup by name
	// (nor a read of the old pod for the name).
	ni *framework.NodeInfo
}

// node is the node the pod is accounted on: its nodeName, which does not
// change once the pod is bound (the API server forbids spec updates), so
// every version of the pod names the same node.
func (cp *cachedPod) node() string { return cp.info.Pod.Spec.NodeName }

type imageState struct {
	summary *framework.ImageStateSummary
	nodes   map[string]struct{}
}

func newCache() *cache {
	c := &cache{
		nodes:  map[string]*framework.NodeInfo{},
		tree:   nodeTree{byZone: map[string][]string{}},
		pods:   map[types.UID]*cachedPod{},
		images: map[string]*imageState{},
	}
	c.topo = newTopoIndex(c)
	return c
}

// NodeInfos lists the nodes in the node tree's order: zones round robin,
// each zone's nodes in the order they joined (kube's nodeTree.list), so that
// the filters' scan spreads over zones.
func (c *cache) NodeInfos() []*framework.NodeInfo {
	if c.list == nil {
		names := c.tree.list()
		c.list = make([]*framework.NodeInfo, 0, len(names))
		for i, n := range names {
			ni := c.nodes[n]
			ni.Index = i
			c.list = append(c.list, ni)
		}
	}
	return c.list
}

// ImageState implements framework.ImageLister.
func (c *cache) ImageState(name string) *framework.ImageStateSummary {
	if st := c.images[name]; st != nil {
		return st.summary
	}
	return nil
}

// NodeInfo returns a node's NodeInfo (nil if unknown or deleted).
func (c *cache) NodeInfo(name string) *framework.NodeInfo {
	if ni := c.nodes[name]; ni != nil && ni.Node() != nil {
		return ni
	}
	return nil
}

func (c *cache) AddNode(n *corev1.Node) {
	ni := c.nodes[n.Name]
	if ni == nil {
		ni = framework.NewNodeInfo(nil)
		ni.ImageStates = map[string]*framework.ImageStateSummary{}
		c.nodes[n.Name] = ni
	}
	if ni.Node() != nil {
		c.UpdateNode(ni.Node(), n)
		return
	}
	ni.SetNode(n)
	c.tree.add(n)
	c.list = nil
	c.topo.invalidate()
	c.setImages(ni, nil, n)
}

func (c *cache) UpdateNode(old, n *corev1.Node) {
	ni := c.nodes[n.Name]
	if ni == nil || ni.Node() == nil {
		c.AddNode(n)
		return
	}
	prev := ni.Node()
	ni.SetNode(n)
	if !maps.Equal(prev.Labels, n.Labels) { // equality.Semantic.DeepEqual, without reflection
		c.topo.invalidate()
	}
	if zoneKey(prev) != zoneKey(n) {
		c.tree.remove(prev)
		c.tree.add(n)
		c.list = nil
	}
	c.setImages(ni, prev, n)
}

func (c *cache) RemoveNode(n *corev1.Node) {
	ni := c.nodes[n.Name]
	if ni == nil || ni.Node() == nil {
		return
	}
	c.setImages(ni, ni.Node(), nil)
	c.tree.remove(ni.Node())
	c.list = nil
	c.topo.invalidate()
	ni.RemoveNode()
	ni.Index = -1
	if len(ni.Pods) == 0 {
		delete(c.nodes, n.Name)
	}
}

// setImages moves the node's image entries from old's status.images to
// new's, keeping every image's NumNodes current.
func (c *cache) setImages(ni *framework.NodeInfo, old, n *corev1.Node) {
	var oldImgs, newImgs []corev1.ContainerImage
	if old != nil {
		oldImgs = old.Status.Images
	}
	if n != nil {
		newImgs = n.Status.Images
	}
	if sameImages(oldImgs, newImgs) {
		return
	}
	name := ""
	if n != nil {
		name = n.Name
	} else {
		name = old.Name
	}
	for _, img := range oldImgs {
		for _, in := range img.Names {
			st := c.images[in]
			if st == nil {
				continue
			}
			if _, ok := st.nodes[name]; ok {
				delete(st.nodes, name)
				st.summary.NumNodes--
			}
			delete(ni.ImageStates, in)
			if len(st.nodes) == 0 {
				delete(c.images, in)
			}
		}
	}
	for _, img := range newImgs {
		for _, in := range img.Names {
			st := c.images[in]
			if st == nil {
				st = &imageState{summary: &framework.ImageStateSummary{}, nodes: map[string]struct{}{}}
				c.images[in] = st
			}
			st.summary.Size = img.SizeBytes
			if _, ok := st.nodes[name]; !ok {
				st.nodes[name] = struct{}{}
				st.summary.NumNodes++
			}
			ni.ImageStates[in] = st.summary
		}
	}
}

func sameImages(a, b []corev1.ContainerImage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].SizeBytes != b[i].SizeBytes || len(a[i].Names) != len(b[i].Names) {
			return false
		}
		for j := range a[i].Names {
			if a[i].Names[j] != b[i].Names[j] {
				return false
			}
		}
	}
	return true
}

// AddPod accounts a pod bound to a node; it returns the pod as cached, or
// nil if the pod was already accounted.
func (c *cache) AddPod(p *corev1.Pod) *cachedPod {
	if _, ok := c.pods[p.UID]; ok {
		return nil
	}
	cp := &cachedPod{}
	c.demands.Update(&cp.info, p)
	c.pods[p.UID] = cp
	ni := c.nodes[p.Spec.NodeName]
	if ni == nil {
		// A pod bound to a node the scheduler has not seen: keep its
		// NodeInfo, without a node, so its requests count when it comes.
		ni = framework.NewNodeInfo(nil)
		ni.ImageStates = map[string]*framework.ImageStateSummary{}
		c.nodes[p.Spec.NodeName] = ni
	}
	cp.ni = ni
	ni.AddPod(&cp.info)
	c.topo.podChanged(cp, nil, p, ni)
	return cp
}

// UpdatePod replaces an accounted pod's version and reports whether its
// requests went down (an in-place scale-down frees room).
func (c *cache) UpdatePod(p *corev1.Pod) (scaledDown bool) {
	cp := c.pods[p.UID]
	if cp == nil {
		c.AddPod(p)
		return false
	}
	ni := cp.ni
	old := &cp.info.Requests
	c.topo.podChanged(cp, cp.info.Pod, p, ni)
	ni.UpdatePod(&cp.info, p, &c.demands)
	r := &cp.info.Requests
	return r.MilliCPU < old.MilliCPU || r.Memory < old.Memory || r.EphemeralStorage < old.EphemeralStorage
}

// RemovePod forgets an accounted pod; it returns the pod as it was
// cached, or nil if it was not accounted.
func (c *cache) RemovePod(p *corev1.Pod) *cachedPod {
	cp := c.pods[p.UID]
	if cp == nil {
		return nil
	}
	delete(c.pods, p.UID)
	ni := cp.ni
	c.topo.podChanged(cp, cp.info.Pod, nil, ni)
	ni.RemovePod(&cp.info)
	if ni.Node() == nil && len(ni.Pods) == 0 {
		delete(c.nodes, cp.node())
	}
	return cp
}

// nodeTree keeps node names per zone, zones in the order they first
// appeared and nodes in the order they joined (kube's internal/cache
// node_tree.go).
type nodeTree struct {
	zones  []string
	byZone map[string][]string
	in     map[string]struct{} // the names in the tree: adding is O(1), not a scan of the zone
	n      int
}

// zoneKey is kube's utilnode.GetZoneKey: region and zone, "" without them.
func zoneKey(n *corev1.Node) string {
	region, zone := n.Labels[corev1.LabelTopologyRegion], n.Labels[corev1.LabelTopologyZone]
	if region == "" {
		region = n.Labels[corev1.LabelFailureDomainBetaRegion]
	}
	if zone == "" {
		zone = n.Labels[corev1.LabelFailureDomainBetaZone]
	}
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

func (t *nodeTree) add(n *corev1.Node) {
	if _, ok := t.in[n.Name]; ok {
		return
	}
	if t.in == nil {
		t.in = map[string]struct{}{}
	}
	t.in[n.Name] = struct{}{}
	z := zoneKey(n)
	names, ok := t.byZone[z]
	if !ok {
		t.zones = append(t.zones, z)
	}
	t.byZone[z] = append(names, n.Name)
	t.n++
}

func (t *nodeTree) remove(n *corev1.Node) {
	z := zoneKey(n)
	names := t.byZone[z]
	for i, x := range names {
		if x != n.Name {
			continue
		}
		names = append(names[:i], names[i+1:]...)
		delete(t.in, n.Name)
		t.n--
		if len(names) > 0 {
			t.byZone[z] = names
			return
		}
		delete(t.byZone, z)
		for j, zz := range t.zones {
			if zz == z {
				t.zones = append(t.zones[:j], t.zones[j+1:]...)
				break
			}
		}
		return
	}
}

// list interleaves the zones: the first node of each zone, then the second
// of each, and so on.
func (t *nodeTree) list() []string {
	out := make([]string, 0, t.n)
	for i := 0; len(out) < t.n; i++ {
		for _, z := range t.zones {
			if names := t.byZone[z]; i < len(names) {
				out = append(out, names[i])
			}
		}
	}
	return out
}
