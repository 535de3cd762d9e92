package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkStartToPrompt starts the built binary on an empty script: process
// start, flag parsing, building and settling the built-in cluster, and exit.
// The interactive REPL adds only readline's set-up before its first prompt
// (target: 100 ms).
func BenchmarkStartToPrompt(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "kubeloop")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(bin)
		cmd.Stdin = strings.NewReader("")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("kubeloop: %v\n%s", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	// The child's CPU time: on a machine shared with other builds it is
	// the steadier figure.
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}
