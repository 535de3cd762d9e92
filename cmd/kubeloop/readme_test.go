package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlocks returns the ```sh blocks of the repository's README.
func readmeBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)```sh\n(.*?)```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestREADMEStartsWithTheTwoCommands: a newcomer's first two commands run
// kubeloop and its tests.
func TestREADMEStartsWithTheTwoCommands(t *testing.T) {
	blocks := readmeBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("README has no sh blocks")
	}
	lines := strings.Split(strings.TrimSpace(blocks[0]), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "go run ./cmd/kubeloop ") || !strings.HasPrefix(lines[1], "go test ./... ") {
		t.Errorf("README's first block is %q; want go run ./cmd/kubeloop and go test ./...", blocks[0])
	}
}

// TestREADMETour runs the README's five-minute tour, as pasted into
// `kubeloop run tour.kl`, and expects every line to succeed.
func TestREADMETour(t *testing.T) {
	blocks := readmeBlocks(t)
	var tour string
	for _, b := range blocks {
		if strings.Contains(b, "reset --nodes 3") {
			tour = b
			break
		}
	}
	if tour == "" {
		t.Fatal("README has no tour (a block with reset --nodes 3)")
	}
	file := filepath.Join(t.TempDir(), "tour.kl")
	if err := os.WriteFile(file, []byte(tour), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := kubeloop([]string{"run", file}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("the README tour failed (exit %d):\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"deployment.apps/api created", "0s → 1m: 3 pods created, 3 scheduled, 3 started, 3 ready", "Maintain"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the tour's output lacks %q:\n%s", want, out.String())
		}
	}
	if got := errOut.String(); got != "Error from server (NotFound): pods \"does-not-exist\" not found\n" {
		t.Errorf("the tour's errors: %q; want only the expected NotFound", got)
	}
}
