package shell

import (
	"sort"
	"strings"
)

// FS is a container's filesystem: files by absolute path, and directories.
// It starts with the directories of a busybox image.
type FS struct {
	files map[string]string
	dirs  map[string]bool
}

// NewFS returns the filesystem of a fresh container.
func NewFS() *FS {
	fs := &FS{files: map[string]string{}, dirs: map[string]bool{}}
	for _, d := range []string{"/", "/bin", "/dev", "/etc", "/home", "/proc", "/root", "/sys", "/tmp", "/usr", "/var", "/var/log", "/var/run"} {
		fs.dirs[d] = true
	}
	fs.files["/etc/hostname"] = ""
	return fs
}

// Clean makes a path absolute (relative to /, the working directory) and
// removes "." and "..".
func Clean(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	var out []string
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, part)
		}
	}
	return "/" + strings.Join(out, "/")
}

func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// Exists reports whether a file or directory exists.
func (fs *FS) Exists(p string) bool {
	p = Clean(p)
	_, f := fs.files[p]
	return f || fs.dirs[p]
}

// IsFile reports whether p is a regular file.
func (fs *FS) IsFile(p string) bool {
	_, ok := fs.files[Clean(p)]
	return ok
}

// IsDir reports whether p is a directory.
func (fs *FS) IsDir(p string) bool { return fs.dirs[Clean(p)] }

// Read returns a file's content.
func (fs *FS) Read(p string) (string, bool) {
	s, ok := fs.files[Clean(p)]
	return s, ok
}

// Write sets (or, with appendTo, extends) a file; it fails if the parent
// directory does not exist or p is a directory.
func (fs *FS) Write(p, content string, appendTo bool) bool {
	p = Clean(p)
	if !fs.dirs[parent(p)] || fs.dirs[p] {
		return false
	}
	if appendTo {
		content = fs.files[p] + content
	}
	fs.files[p] = content
	return true
}

// Remove deletes a file, or a directory and everything below it.
func (fs *FS) Remove(p string) bool {
	p = Clean(p)
	if _, ok := fs.files[p]; ok {
		delete(fs.files, p)
		return true
	}
	if !fs.dirs[p] || p == "/" {
		return false
	}
	prefix := p + "/"
	for f := range fs.files {
		if strings.HasPrefix(f, prefix) {
			delete(fs.files, f)
		}
	}
	for d := range fs.dirs {
		if d == p || strings.HasPrefix(d, prefix) {
			delete(fs.dirs, d)
		}
	}
	return true
}

// Mkdir creates a directory (and, with parents, the ones above it).
func (fs *FS) Mkdir(p string, parents bool) bool {
	p = Clean(p)
	if fs.dirs[p] {
		return parents
	}
	if _, isFile := fs.files[p]; isFile {
		return false
	}
	if !fs.dirs[parent(p)] {
		if !parents || !fs.Mkdir(parent(p), true) {
			return false
		}
	}
	fs.dirs[p] = true
	return true
}

// Files lists the regular files, sorted.
func (fs *FS) Files() []string {
	out := make([]string, 0, len(fs.files))
	for f := range fs.files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
