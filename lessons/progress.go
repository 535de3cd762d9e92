package lessons

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Progress is what a learner has done: per lesson, the step they are on
// and whether they finished it. It is kept as JSON under the user's config
// directory.
type Progress struct {
	Lessons map[string]*LessonProgress `json:"lessons"`
}

// LessonProgress is one lesson's state.
type LessonProgress struct {
	// Step is the 0-based index of the step the learner is on.
	Step int `json:"step"`
	// Done is true once every step has been passed (or skipped).
	Done bool `json:"done"`
}

// State describes a lesson's progress for `lesson list`: "not started",
// "in progress (step k of n)" or "done".
func (p *Progress) State(l *Lesson) string {
	lp := p.Lessons[l.ID]
	switch {
	case lp == nil:
		return "not started"
	case lp.Done:
		return "done"
	}
	return fmt.Sprintf("in progress (step %d of %d)", min(lp.Step+1, len(l.Steps)), len(l.Steps))
}

// ProgressStore keeps Progress in a file, written atomically.
type ProgressStore struct {
	// Path is the file; "" keeps progress in memory only.
	Path string
}

// DefaultProgressPath is $XDG_CONFIG_HOME/kubeloop/progress.json, or
// ~/.config/kubeloop/progress.json; "" if neither is known.
func DefaultProgressPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "kubeloop", "progress.json")
}

// Load reads the progress. A missing file is a fresh start; an unreadable
// or corrupt one is also a fresh start, with a warning for the learner
// (never a crash: progress is a convenience, not the lesson).
func (ps *ProgressStore) Load() (p *Progress, warning string) {
	p = &Progress{Lessons: map[string]*LessonProgress{}}
	if ps == nil || ps.Path == "" {
		return p, ""
	}
	data, err := os.ReadFile(ps.Path)
	if os.IsNotExist(err) {
		return p, ""
	}
	if err != nil {
		return p, fmt.Sprintf("warning: cannot read lesson progress (%v); starting afresh", err)
	}
	var got Progress
	if err := json.Unmarshal(data, &got); err != nil {
		return p, fmt.Sprintf("warning: lesson progress in %s is corrupt (%v); starting afresh", ps.Path, err)
	}
	for id, lp := range got.Lessons {
		if lp != nil && lp.Step >= 0 {
			p.Lessons[id] = lp
		}
	}
	return p, ""
}

// Save writes p atomically: to a temporary file in the same directory,
// then renamed over the old one, so that a crash or a full disk leaves the
// old progress or the new, never half of one.
func (ps *ProgressStore) Save(p *Progress) error {
	if ps == nil || ps.Path == "" {
		return nil
	}
	// encoding/json writes map keys sorted, so the file is stable.
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(ps.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".progress-*.json")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(append(data, '\n'))
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	if err := os.Rename(tmp, ps.Path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
