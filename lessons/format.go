package lessons

import (
	"strings"
	"sync"
)

// Lesson is one lesson file. Field names are the YAML keys; unknown keys
// are rejected.
type Lesson struct {
	// ID names the lesson in `lesson start ID`; it is the file's name
	// without its number and extension (01-declare.yaml is "declare").
	ID string `yaml:"id"`
	// Title is one line for `lesson list`.
	Title string `yaml:"title"`
	// Summary says in a sentence or two what the learner will see.
	Summary string `yaml:"summary"`
	// Minutes is how long the lesson takes, roughly.
	Minutes int `yaml:"minutes"`
	// Concepts lists what the lesson teaches, for list and the docs.
	Concepts []string `yaml:"concepts"`
	// Prerequisites are IDs of lessons to take first.
	Prerequisites []string `yaml:"prerequisites"`
	// Setup builds the cluster the lesson starts on.
	Setup Setup `yaml:"setup"`
	// Steps are done in order.
	Steps []Step `yaml:"steps"`
	// Solution is what a learner who follows the lesson types: the commands
	// check and record run, one script line per entry (an entry may hold a
	// here-document).
	Solution []string `yaml:"solution"`

	// File is the path the lesson was loaded from; Dir its directory in
	// the file system it came from.
	File string `yaml:"-"`
	// golden is the path of its golden transcript.
	golden string
	// lines are the source lines of parts of the lesson, for errors.
	lines lineIndex
	// files are the contents of the setup's manifests and files, read at
	// load time so that a missing file is an error then.
	manifests []shipped
	files     []shipped
	// perStep is the solution split by the step it runs in (hints and
	// restart-step use it), computed once.
	solOnce sync.Once
	perStep [][]string
}

// Setup is the cluster a lesson starts on.
type Setup struct {
	// Seed is the root seed (engine.DefaultSeed if 0): the same seed and
	// the same commands give the same bytes, so goldens are stable.
	Seed uint64 `yaml:"seed"`
	// Nodes is the number of simulated nodes (n1..nN over three zones); 0
	// means the built-in cluster's size.
	Nodes int `yaml:"nodes"`
	// Images are pushed to the simulated registry before anything runs.
	Images []Image `yaml:"images"`
	// Manifests are files (beside the lesson) applied in order before it
	// starts.
	Manifests []string `yaml:"manifests"`
	// Commands run silently after the manifests (say, "advance 1m", so that
	// the lesson starts on a running Deployment).
	Commands []string `yaml:"commands"`
	// Files ship beside the lesson for the learner to use (apply -f FILE);
	// guided mode copies them into the lesson's working directory.
	Files []string `yaml:"files"`
}

// Image is an image pushed to the simulated registry: a made-up
// application whose behaviour the lesson needs.
type Image struct {
	// Name is repository:tag ("shop/api:1.0").
	Name string `yaml:"name"`
	// Size is the compressed size ("45Mi", "120MB"); it sets the pull time.
	Size string `yaml:"size"`
	// Startup is how long the process takes to be ready ("2s").
	Startup string `yaml:"startup"`
	// Ports the process listens on.
	Ports []int32 `yaml:"ports"`
	// Description is shown by `images`.
	Description string `yaml:"description"`
	// ExitAfter makes the process exit this long after starting ("10s");
	// with ExitCode its status (a crash when not 0).
	ExitAfter string `yaml:"exitAfter"`
	ExitCode  int32  `yaml:"exitCode"`
	// Logs are lines the process prints at start.
	Logs []string `yaml:"logs"`
}

// Step is one step of a lesson: narrative, what to try, and a check that
// says when it is done. Exactly one of Check, Trace and Ran is set.
type Step struct {
	// Title is a few words ("Declare a Deployment").
	Title string `yaml:"title"`
	// Text is the narrative shown when the step begins.
	Text string `yaml:"text"`
	// Try are suggested commands, shown under the narrative.
	Try []string `yaml:"try"`
	// Check is an expr-lang expression over the cluster, as for assert;
	// the step is done when it is true after a command.
	Check string `yaml:"check"`
	// Trace is done when the trace, since the step began, has an event
	// matching every field given.
	Trace *TraceQuery `yaml:"trace"`
	// Ran is done when the learner has run a command that starts with one
	// of these words (after "kubectl "): "why pod/", "trace --column
	// Schedule". Reading steps use it.
	Ran []string `yaml:"ran"`
	// Hints are shown one at a time, in order, on `lesson hint`.
	Hints []string `yaml:"hints"`
	// Explain is shown once the check passes: what just happened and why.
	Explain string `yaml:"explain"`
}

// TraceQuery matches trace events: each field given must match (Component
// exactly, "kubelet" matching every kubelet/NODE; Column case-insensitively;
// Object as a prefix, "pod/" for any pod; Message as a substring).
type TraceQuery struct {
	Component string `yaml:"component"`
	Column    string `yaml:"column"`
	Object    string `yaml:"object"`
	Message   string `yaml:"message"`
}

// String describes the query for errors and the checker's report.
func (q *TraceQuery) String() string {
	var parts []string
	for _, f := range []struct{ k, v string }{{"component", q.Component}, {"column", q.Column}, {"object", q.Object}, {"message", q.Message}} {
		if f.v != "" {
			parts = append(parts, f.k+"="+quoteIfSpace(f.v))
		}
	}
	return "trace event with " + strings.Join(parts, " ")
}

func quoteIfSpace(s string) string {
	if strings.ContainsAny(s, " \t") {
		return `"` + s + `"`
	}
	return s
}

// shipped is a file that comes with a lesson.
type shipped struct {
	name string
	data []byte
}

// Length describes the lesson's length for `lesson list`.
func (l *Lesson) Length() string {
	n := len(l.Steps)
	s := "steps"
	if n == 1 {
		s = "step"
	}
	if l.Minutes > 0 {
		return strings.TrimSpace(strings.Join([]string{itoa(n), s + ",", itoa(l.Minutes), "min"}, " "))
	}
	return itoa(n) + " " + s
}
