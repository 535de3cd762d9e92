package lessons

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// courseFS holds the built-in course: each lesson, its golden transcript,
// and the files it ships.
//
//go:embed course
var courseFS embed.FS

var (
	courseOnce sync.Once
	course     []*Lesson
	courseErr  error
)

// Course loads the built-in lessons, in file-name order (their numbers).
// A broken built-in lesson is a bug that TestCourse catches; Course returns
// the lessons that loaded and the errors of the others.
func Course() ([]*Lesson, error) {
	courseOnce.Do(func() { course, courseErr = LoadDir(courseFS, "course") })
	return course, courseErr
}

// LoadDir loads every *.yaml lesson in dir of fsys, sorted by file name,
// and checks that prerequisites name lessons in the set.
func LoadDir(fsys fs.FS, dir string) ([]*Lesson, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Lesson
	var errs Errors
	ids := map[string]string{}
	for _, n := range names {
		l, err := Load(fsys, n)
		if err != nil {
			errs = append(errs, asErrors(n, err)...)
			continue
		}
		if prev, dup := ids[l.ID]; dup {
			errs = append(errs, &Error{File: n, Line: l.lines.keys["id"], Msg: fmt.Sprintf("id %q is also the id of %s", l.ID, prev)})
			continue
		}
		ids[l.ID] = n
		out = append(out, l)
	}
	for _, l := range out {
		for _, p := range l.Prerequisites {
			if _, ok := ids[p]; !ok {
				errs = append(errs, &Error{File: l.File, Line: l.lines.keys["prerequisites"], Msg: fmt.Sprintf("prerequisite %q is not a lesson here", p)})
			}
		}
	}
	if len(errs) > 0 {
		return out, errs
	}
	return out, nil
}

func asErrors(file string, err error) Errors {
	if es, ok := err.(Errors); ok {
		return es
	}
	return Errors{{File: file, Msg: err.Error()}}
}

// Find finds a built-in lesson by id ("declare"), number ("1", "01") or
// file name ("01-declare.yaml").
func Find(name string) (*Lesson, error) {
	all, _ := Course()
	for i, l := range all {
		base := path.Base(l.File)
		num, _, _ := strings.Cut(base, "-")
		if name == l.ID || name == base || name == strings.TrimSuffix(base, ".yaml") ||
			name == num || "0"+name == num || name == fmt.Sprint(i+1) {
			return l, nil
		}
	}
	return nil, fmt.Errorf("no lesson %q (lesson list shows the course)", name)
}

// Names lists the built-in lessons' ids, for completion.
func Names() []string {
	all, _ := Course()
	out := make([]string, len(all))
	for i, l := range all {
		out[i] = l.ID
	}
	return out
}

// Resolve finds the lessons `lesson check` and `record` name: paths of
// lesson files on disk (anything ending in .yaml or that exists), or the
// built-in lessons' names. The file system returned is where each lesson's
// golden and shipped files are.
func Resolve(arg string) (*Lesson, fs.FS, error) {
	if strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") || fileExists(arg) {
		dir, file := filepath.Split(arg)
		if dir == "" {
			dir = "."
		}
		fsys := os.DirFS(dir)
		l, err := Load(fsys, file)
		if err != nil {
			// Errors name the file as the instructor typed it.
			for _, e := range asErrors(file, err) {
				e.File = arg
			}
			return nil, nil, relocate(err, arg)
		}
		l.File = arg
		l.golden = strings.TrimSuffix(arg, filepath.Ext(arg)) + ".golden"
		return l, osFS{}, nil
	}
	l, err := Find(arg)
	if err != nil {
		return nil, nil, err
	}
	return l, courseFS, nil
}

func relocate(err error, file string) error {
	es, ok := err.(Errors)
	if !ok {
		return fmt.Errorf("%s: %v", file, err)
	}
	for _, e := range es {
		e.File = file
	}
	return es
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// osFS reads paths as the operating system does (relative to the working
// directory), for lessons named by path on the command line.
type osFS struct{}

func (osFS) Open(name string) (fs.File, error) { return os.Open(name) }

func readFile(fsys fs.FS, name string) ([]byte, error) {
	if _, ok := fsys.(osFS); ok {
		return os.ReadFile(name)
	}
	return fs.ReadFile(fsys, name)
}
