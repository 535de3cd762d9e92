package repl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Pos is where a statement starts: a file (or "stdin") and a 1-based line.
// The zero Pos means "typed at the prompt" and prints as nothing.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return ""
	}
	if p.File == "" {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Stmt is one parsed command: kubeloop's language has one command per line,
// optionally followed by a here-document.
type Stmt struct {
	Pos Pos
	// Text is the command as written, without a leading "! " or "kubectl "
	// and without the here-document body: what the trace records.
	Text string
	// Negate is set by a leading "! ": the command is expected to fail.
	Negate bool
	// Name is the command word; Args the words after it (for Raw commands,
	// the rest of the line as one string, or none).
	Name string
	Args []string
	// Input is the here-document body (with its final newline); HasInput
	// says whether there was one (an empty body is still input).
	Input    string
	HasInput bool
}

// LineReader supplies a Scanner with lines, without their newline. more is
// true while a statement is incomplete (inside a here-document, or after a
// trailing backslash), so that a terminal can show a continuation prompt.
// At the end of input it returns io.EOF.
type LineReader interface {
	ReadLine(more bool) (string, error)
}

// SyntaxError is a statement that cannot be parsed.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Scanner reads statements from lines: blank lines and lines starting with
// `#` are skipped, words are split as a POSIX shell splits them (single and
// double quotes, backslash escapes, `#` comments at the start of a word, a
// trailing backslash continuing the line), and `<<EOF`, `<<'EOF'`,
// `<<"EOF"` and `<<-EOF` (strip leading tabs) open a here-document that ends
// at a line holding only the delimiter. There is no variable expansion, so
// quoted and unquoted delimiters mean the same. Pipes and redirections are
// rejected: kubeloop is not a shell.
type Scanner struct {
	r    LineReader
	file string
	line int // lines read so far
}

// NewScanner reads statements from r; file names the source in positions
// ("" for the prompt).
func NewScanner(file string, r LineReader) *Scanner {
	return &Scanner{r: r, file: file}
}

// Next returns the next statement, io.EOF at the end of input, or a
// *SyntaxError (after which scanning can go on at the next line). An error
// from the LineReader other than io.EOF is returned as it is.
func (sc *Scanner) Next() (*Stmt, error) {
	for {
		text, err := sc.r.ReadLine(false)
		if err != nil {
			return nil, err
		}
		sc.line++
		pos := Pos{File: sc.file, Line: sc.line}
		if sc.file == "" {
			pos.Line = 0 // at the prompt, line numbers mean nothing
		}
		// A trailing backslash joins the next line, as in a shell, so that
		// multi-line kubectl commands can be pasted.
		for trailingBackslash(text) {
			next, err := sc.r.ReadLine(true)
			if err == io.EOF {
				return nil, &SyntaxError{pos, "unexpected end of input after a trailing backslash"}
			}
			if err != nil {
				return nil, err
			}
			sc.line++
			text = text[:len(text)-1] + next
		}
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		st, hd, err := parseLine(trimmed)
		if err != nil {
			return nil, &SyntaxError{pos, err.Error()}
		}
		st.Pos = pos
		if hd != nil {
			body, err := sc.readHereDoc(hd)
			if err != nil {
				return nil, &SyntaxError{pos, err.Error()}
			}
			st.Input, st.HasInput = body, true
		}
		return st, nil
	}
}

func trailingBackslash(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

type hereDoc struct {
	delim     string
	stripTabs bool
}

func (sc *Scanner) readHereDoc(hd *hereDoc) (string, error) {
	var b strings.Builder
	for {
		line, err := sc.r.ReadLine(true)
		if err == io.EOF {
			return "", fmt.Errorf("here-document <<%s is not terminated: wanted a line %q", hd.delim, hd.delim)
		}
		if err != nil {
			return "", err
		}
		sc.line++
		if hd.stripTabs {
			line = strings.TrimLeft(line, "\t")
		}
		if line == hd.delim || strings.TrimRight(line, " \t\r") == hd.delim {
			return b.String(), nil
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
}

// parseLine parses one trimmed, non-comment line.
func parseLine(line string) (*Stmt, *hereDoc, error) {
	st := &Stmt{}
	if line == "!" || strings.HasPrefix(line, "! ") || strings.HasPrefix(line, "!\t") {
		st.Negate = true
		line = strings.TrimSpace(line[1:])
		if line == "" {
			return nil, nil, errors.New("! needs a command after it")
		}
	}
	name, rest := firstWord(line)
	if name == "kubectl" {
		if rest == "" {
			return nil, nil, errors.New(`kubectl needs a command after it (try "help")`)
		}
		line = rest
		name, rest = firstWord(line)
	}
	st.Text = line
	if c, ok := lookup(name); ok && c.Raw {
		st.Name = name
		if rest != "" {
			st.Args = []string{rest}
		}
		return st, nil, nil
	}
	words, hd, err := splitWords(line)
	if err != nil {
		return nil, nil, err
	}
	if len(words) == 0 {
		return nil, nil, errors.New("missing command")
	}
	st.Name, st.Args = words[0], words[1:]
	if hd != nil {
		// The trace shows the command, not the body.
		st.Text = strings.TrimSpace(line)
	}
	return st, hd, nil
}

func firstWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// SplitWords splits a line into words as a POSIX shell would, without
// expansion; it is exported for lessons that show commands.
func SplitWords(line string) ([]string, error) {
	w, hd, err := splitWords(line)
	if err == nil && hd != nil {
		err = errors.New("here-documents are not allowed here")
	}
	return w, err
}

func splitWords(line string) ([]string, *hereDoc, error) {
	var (
		words []string
		hd    *hereDoc
		cur   strings.Builder
		inW   bool // inside a word (even an empty quoted one)
	)
	end := func() {
		if inW {
			words = append(words, cur.String())
			cur.Reset()
			inW = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			end()
		case c == '#' && !inW:
			i = len(line) // a comment runs to the end of the line
		case c == '\\':
			if i+1 < len(line) {
				i++
				cur.WriteByte(line[i])
			}
			inW = true
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, nil, errors.New("unterminated quoted string: missing closing '")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inW = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, nil, errors.New(`unterminated quoted string: missing closing "`)
			}
			inW = true
		case c == '<' && strings.HasPrefix(line[i:], "<<"):
			end()
			if hd != nil {
				return nil, nil, errors.New("only one here-document per command")
			}
			i += 2
			hd = &hereDoc{}
			if i < len(line) && line[i] == '-' {
				hd.stripTabs = true
				i++
			}
			for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				i++
			}
			// The delimiter is one word; quotes around it only say "no
			// expansion", which kubeloop never does anyway.
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '\t' {
				j++
			}
			delim := strings.NewReplacer("'", "", `"`, "").Replace(line[i:j])
			if delim == "" {
				return nil, nil, errors.New("here-document needs a delimiter: <<EOF")
			}
			hd.delim = delim
			i = j - 1
		case c == '|':
			return nil, nil, errors.New("pipes (|) are not supported: kubeloop is not a shell")
		case c == '<' || c == '>':
			return nil, nil, fmt.Errorf("redirections (%c) are not supported: use -f FILE or a here-document (<<EOF)", c)
		default:
			cur.WriteByte(c)
			inW = true
		}
	}
	end()
	return words, hd, nil
}

// readerLines adapts an io.Reader to a LineReader, for scripts.
type readerLines struct{ sc *bufio.Scanner }

func newReaderLines(r io.Reader) *readerLines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20) // manifests can have long lines
	return &readerLines{sc}
}

func (r *readerLines) ReadLine(bool) (string, error) {
	if r.sc.Scan() {
		return strings.TrimSuffix(r.sc.Text(), "\r"), nil
	}
	if err := r.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}
