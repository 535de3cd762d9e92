package apiserver

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// TestNewUID: the written-out formatting of newUID is the Sprintf it
// replaced, for the same draws.
func TestNewUID(t *testing.T) {
	s := &Server{rand: sim.NewRand(7)}
	ref := sim.NewRand(7)
	for range 10000 {
		hi, lo := ref.Uint64(), ref.Uint64()
		hi = hi&^0xf000 | 0x4000
		lo = lo&^(0xc<<60) | 0x8<<60
		want := types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
			hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff))
		if got := s.newUID(); got != want {
			t.Fatalf("newUID() = %s; want %s", got, want)
		}
	}
}
