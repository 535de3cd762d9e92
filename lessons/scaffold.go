package lessons

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Scaffold writes a new lesson file, NAME.yaml (NAME may be a path), that
// loads and explains each key; an instructor fills it in. It never
// overwrites a file.
func Scaffold(name string) (string, error) {
	file := name
	if !strings.HasSuffix(file, ".yaml") {
		file += ".yaml"
	}
	id := strings.TrimSuffix(filepath.Base(file), ".yaml")
	if _, num, ok := strings.Cut(id, "-"); ok && strings.Trim(id[:strings.Index(id, "-")], "0123456789") == "" {
		id = num // "07-probes" is the lesson "probes"
	}
	if !idPattern.MatchString(id) {
		return "", fmt.Errorf("lesson name %q: use lower-case words joined by '-' (an optional number in front: 07-probes)", id)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, scaffoldText, id)
	return file, err
}

const scaffoldText = `# A kubeloop lesson. docs/authoring.md explains every key.
# Check it:   kubeloop lesson check THIS_FILE
# Record it:  kubeloop lesson record THIS_FILE   (then read the .golden it writes)
id: %s
title: "TODO: a title in a few words"
summary: >
  TODO: one or two sentences on what the learner will see and learn.
minutes: 5
concepts: [TODO]
prerequisites: []
setup:
  seed: 1          # same seed + same commands = same bytes
  nodes: 3         # n1..n3 over zone-a, zone-b, zone-c
  # images:        # extra images pushed to the simulated registry
  # - {name: "shop/api:1.0", size: 40Mi, startup: 2s, ports: [8080]}
  # manifests: [app.yaml]   # applied before the lesson starts (files beside this one)
  # commands: ["advance 1m"]
steps:
- title: TODO first step
  text: |
    TODO: what to do, and why it matters.
  try:
  - create deployment web --image=nginx:1.27 --replicas=2
  check: count(pods, .metadata.labels.app == "web") == 2
  hints:
  - TODO a first hint
  explain: |
    TODO: what just happened; point at ` + "`trace`" + `, ` + "`why pod/NAME`" + ` or ` + "`diagram`" + `.
- title: TODO read the trace
  text: |
    TODO: ask the learner to read what happened.
  try: [trace --column Schedule]
  ran: [trace]
  explain: |
    TODO: what the trace shows.
solution:
- create deployment web --image=nginx:1.27 --replicas=2
- trace --column Schedule
`
