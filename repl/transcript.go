package repl

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// recordingLines remembers the lines a Scanner reads, with their numbers.
type recordingLines struct {
	r     LineReader
	n     int
	lines []numberedLine
}

type numberedLine struct {
	n    int
	text string
}

func (r *recordingLines) ReadLine(more bool) (string, error) {
	line, err := r.r.ReadLine(more)
	if err == nil {
		r.n++
		r.lines = append(r.lines, numberedLine{r.n, line})
	}
	return line, err
}

// Transcript runs a script and writes it to w as a session at a terminal
// would show it: each command echoed after "> " (its here-document too),
// then what it printed, errors included; comments and blank lines are kept,
// so that the transcript reads as the narrated script (ivy's demo.out).
// Unlike RunScript it goes on after a failed command, whose message is part
// of the transcript, and it reports how many commands failed. Golden files
// of whole sessions (tests, lessons) are transcripts.
func (s *Session) Transcript(name string, r io.Reader, w io.Writer) (failures int, err error) {
	out, errOut := s.Out, s.Err
	s.Out, s.Err = w, w
	defer func() { s.Out, s.Err = out, errOut }()
	rec := &recordingLines{r: newReaderLines(r)}
	sc := NewScanner(name, rec)
	flush := func(stmtLine int) {
		for _, l := range rec.lines {
			if l.n < stmtLine || stmtLine == 0 {
				fmt.Fprintln(w, l.text)
			} else {
				fmt.Fprintln(w, strings.TrimRight("> "+l.text, " "))
			}
		}
		rec.lines = rec.lines[:0]
	}
	for !s.quit {
		st, err := sc.Next()
		if err == io.EOF {
			flush(0)
			return failures, nil
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			flush(se.Pos.Line)
			s.printErr(Pos{}, err, nil)
			failures++
			continue
		}
		if err != nil {
			return failures, err
		}
		flush(st.Pos.Line)
		if s.do(st, false) != nil {
			failures++
		}
	}
	return failures, nil
}
