package framework

import "strconv"

// StateKey names one slot of a CycleState. Plugins make their keys once,
// at package initialisation (var preScoreStateKey = NewStateKey(...)), so
// that reading per-pod data for each of 5,000 nodes is an index, not a map
// lookup (kube's CycleState is a sync.Map keyed by string).
type StateKey int

// maxStateKeys bounds the keys; raise it when plugins need more.
const maxStateKeys = 32

var stateKeyNames []string

// NewStateKey registers a key. It panics past maxStateKeys (an invariant of
// the plugin set, not user input).
func NewStateKey(name string) StateKey {
	if len(stateKeyNames) >= maxStateKeys {
		panic("framework: more than " + strconv.Itoa(maxStateKeys) + " cycle state keys")
	}
	stateKeyNames = append(stateKeyNames, name)
	return StateKey(len(stateKeyNames) - 1)
}

func (k StateKey) String() string { return stateKeyNames[k] }

// PluginSet is a set of plugins of one Framework, by their index in its
// profile.
type PluginSet uint64

// Has reports whether plugin i is in the set.
func (s PluginSet) Has(i int) bool { return s&(1<<uint(i)) != 0 }

// With returns the set with plugin i added.
func (s PluginSet) With(i int) PluginSet { return s | 1<<uint(i) }

// CycleState is the scratch space of one scheduling attempt: what PreFilter
// and PreScore plugins compute once per pod for their Filter and Score to
// read per node, and which plugins skip this pod.
type CycleState struct {
	data [maxStateKeys]any
	// SkipFilterPlugins are the filter plugins whose PreFilter returned Skip.
	SkipFilterPlugins PluginSet
	// SkipScorePlugins are the score plugins whose PreScore returned Skip.
	SkipScorePlugins PluginSet
	// NumAllNodes is the number of nodes in the cluster (ImageLocality
	// weighs an image by the share of nodes that have it).
	NumAllNodes int
	// Images looks up an image's cluster-wide summary (nil if no node
	// reports it).
	Images ImageLister
	// Cluster answers questions about the whole cluster (all nodes and
	// pods), for plugins whose verdict on one node depends on others.
	Cluster ClusterLister

	// filterList lists the filter plugins not skipped for filtersFor, the
	// framework's list for that set: looked up once per cycle, read for
	// every node.
	filterList   []filterEntry
	filtersFor   PluginSet
	filtersReady bool
}

// ImageLister answers, for the whole cluster, which nodes report an image.
type ImageLister interface {
	ImageState(name string) *ImageStateSummary
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState { return &CycleState{} }

// Reset empties the state for the next attempt, so one CycleState serves
// every cycle without allocating.
func (c *CycleState) Reset() {
	clear(c.data[:len(stateKeyNames)])
	c.SkipFilterPlugins, c.SkipScorePlugins = 0, 0
	c.filtersReady = false
	c.NumAllNodes = 0
	c.Images = nil
	c.Cluster = nil
}

// StateData is plugin data that changes after PreFilter (through
// PreFilterExtensions): a CycleState clone gets its own copy. Data that
// does not implement it is shared by the clones and must stay read-only.
type StateData interface {
	Clone() StateData
}

// Clone returns a copy of the state for a "what if" question (a preemption
// dry run on one node, the pods nominated to a node): the plugins' data is
// cloned where it implements StateData, so that AddPod and RemovePod on the
// copy leave the original as it was (kube's CycleState.Clone).
func (c *CycleState) Clone() *CycleState {
	out := *c
	for i := range c.data[:len(stateKeyNames)] {
		if d, ok := c.data[i].(StateData); ok {
			out.data[i] = d.Clone()
		}
	}
	return &out
}

// Write stores a plugin's data.
func (c *CycleState) Write(k StateKey, v any) { c.data[k] = v }

// Read returns a plugin's data (nil if none was written this cycle).
func (c *CycleState) Read(k StateKey) any { return c.data[k] }
