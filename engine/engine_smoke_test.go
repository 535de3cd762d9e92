package engine

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

func TestNewBuildsDefaultCluster(t *testing.T) {
	e := New(Config{Nodes: DefaultNodes(3)})
	if got := e.Store.Count(kinds.Node); got != 3 {
		t.Fatalf("nodes = %d; want 3", got)
	}
	if got := e.Store.Count(kinds.Namespace); got != 4 {
		t.Fatalf("namespaces = %d; want 4", got)
	}
}
