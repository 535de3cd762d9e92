package shell

import (
	"strings"
)

// part is a piece of a word: literal text, or a variable to expand.
type part struct {
	lit   string
	name  string // variable name when lit is unused ("?" for $?)
	isVar bool
}

// word is one shell word before expansion.
type word struct {
	parts  []part
	quoted bool // some part was quoted: never a keyword
}

func (w word) plain() (string, bool) {
	if w.quoted || len(w.parts) != 1 || w.parts[0].isVar {
		if len(w.parts) == 0 && !w.quoted {
			return "", true
		}
		return "", false
	}
	return w.parts[0].lit, true
}

type tokKind uint8

const (
	tWord     tokKind = iota
	tSemi             // ; or newline
	tAnd              // &&
	tOr               // ||
	tBang             // !
	tGreat            // >
	tDGreat           // >>
	tDup              // 2>&1 (and >&2, 2>/dev/null is a redirect of fd 2)
	tErrGreat         // 2>
	tEOF
)

type token struct {
	kind tokKind
	w    word
	text string
}

// SyntaxError is a script busybox's sh would refuse; its message is the
// shell's ("sh: syntax error: unexpected \"done\"").
type SyntaxError struct{ Msg string }

func (e *SyntaxError) Error() string { return "sh: " + e.Msg }

func syntaxErr(format string, args ...string) error {
	msg := format
	for _, a := range args {
		msg = strings.Replace(msg, "%s", a, 1)
	}
	return &SyntaxError{Msg: msg}
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (!first && '0' <= c && c <= '9')
}

// lex splits a script into tokens.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '\n' || c == ';':
			if c == ';' && i+1 < len(src) && src[i+1] == ';' {
				return nil, syntaxErr(`syntax error: unexpected ";;"`)
			}
			toks = append(toks, token{kind: tSemi, text: string(c)})
			i++
			continue
		case c == '&':
			if i+1 < len(src) && src[i+1] == '&' {
				toks = append(toks, token{kind: tAnd, text: "&&"})
				i += 2
				continue
			}
			// A background job: kubeloop runs it in the foreground.
			toks = append(toks, token{kind: tSemi, text: "&"})
			i++
			continue
		case c == '|':
			if i+1 < len(src) && src[i+1] == '|' {
				toks = append(toks, token{kind: tOr, text: "||"})
				i += 2
				continue
			}
			return nil, &SyntaxError{Msg: "pipes (|) are not simulated by kubeloop's shell"}
		case c == '(' || c == ')':
			return nil, &SyntaxError{Msg: "subshells ( ... ) are not simulated by kubeloop's shell"}
		case c == '`':
			return nil, &SyntaxError{Msg: "command substitution is not simulated by kubeloop's shell"}
		case c == '>':
			if strings.HasPrefix(src[i:], ">>") {
				toks = append(toks, token{kind: tDGreat, text: ">>"})
				i += 2
			} else if strings.HasPrefix(src[i:], ">&") {
				toks = append(toks, token{kind: tDup, text: ">&"})
				i += 2
				for i < len(src) && '0' <= src[i] && src[i] <= '9' {
					i++
				}
			} else {
				toks = append(toks, token{kind: tGreat, text: ">"})
				i++
			}
			continue
		case c == '<':
			return nil, &SyntaxError{Msg: "input redirection (<) is not simulated by kubeloop's shell"}
		case c == '!' && (i+1 == len(src) || src[i+1] == ' ' || src[i+1] == '\t'):
			toks = append(toks, token{kind: tBang, text: "!"})
			i++
			continue
		case c == '2' && strings.HasPrefix(src[i:], "2>&1"):
			toks = append(toks, token{kind: tDup, text: "2>&1"})
			i += 4
			continue
		case c == '2' && strings.HasPrefix(src[i:], "2>"):
			toks = append(toks, token{kind: tErrGreat, text: "2>"})
			i += 2
			if i < len(src) && src[i] == '>' {
				i++
			}
			continue
		}
		// A word.
		var w word
		var lit strings.Builder
		flush := func() {
			if lit.Len() > 0 {
				w.parts = append(w.parts, part{lit: lit.String()})
				lit.Reset()
			}
		}
		readVar := func() error {
			// src[i] == '$'
			i++
			if i >= len(src) {
				lit.WriteByte('$')
				return nil
			}
			switch {
			case src[i] == '?' || src[i] == '$' || src[i] == '#' || ('0' <= src[i] && src[i] <= '9'):
				flush()
				w.parts = append(w.parts, part{name: string(src[i]), isVar: true})
				i++
			case src[i] == '{':
				j := strings.IndexByte(src[i:], '}')
				if j < 0 {
					return syntaxErr("syntax error: missing '}'")
				}
				name := src[i+1 : i+j]
				flush()
				w.parts = append(w.parts, part{name: name, isVar: true})
				i += j + 1
			case src[i] == '(':
				return &SyntaxError{Msg: "command substitution $( ... ) is not simulated by kubeloop's shell"}
			case isNameByte(src[i], true):
				j := i
				for j < len(src) && isNameByte(src[j], false) {
					j++
				}
				flush()
				w.parts = append(w.parts, part{name: src[i:j], isVar: true})
				i = j
			default:
				lit.WriteByte('$')
			}
			return nil
		}
	word:
		for i < len(src) {
			c := src[i]
			switch c {
			case ' ', '\t', '\r', '\n', ';', '&', '|', '>', '<', '(', ')', '`':
				break word
			case '\\':
				if i+1 < len(src) {
					lit.WriteByte(src[i+1])
					w.quoted = true
					i += 2
				} else {
					i++
				}
			case '\'':
				j := strings.IndexByte(src[i+1:], '\'')
				if j < 0 {
					return nil, syntaxErr("syntax error: unterminated quoted string")
				}
				lit.WriteString(src[i+1 : i+1+j])
				w.quoted = true
				i += j + 2
			case '"':
				w.quoted = true
				i++
				for {
					if i >= len(src) {
						return nil, syntaxErr("syntax error: unterminated quoted string")
					}
					if src[i] == '"' {
						i++
						break
					}
					if src[i] == '\\' && i+1 < len(src) && strings.IndexByte("\"\\$`", src[i+1]) >= 0 {
						lit.WriteByte(src[i+1])
						i += 2
						continue
					}
					if src[i] == '`' {
						return nil, &SyntaxError{Msg: "command substitution is not simulated by kubeloop's shell"}
					}
					if src[i] == '$' {
						if err := readVar(); err != nil {
							return nil, err
						}
						continue
					}
					lit.WriteByte(src[i])
					i++
				}
			case '$':
				if err := readVar(); err != nil {
					return nil, err
				}
			default:
				lit.WriteByte(c)
				i++
			}
		}
		flush()
		if len(w.parts) == 0 && w.quoted {
			w.parts = []part{{lit: ""}}
		}
		toks = append(toks, token{kind: tWord, w: w})
	}
	toks = append(toks, token{kind: tEOF})
	return toks, nil
}

// Instructions of a compiled script.
type opcode uint8

const (
	opCmd     opcode = iota // run a simple command; sets the status
	opJmp                   // jump to arg
	opJz                    // jump to arg if the status is 0
	opJnz                   // jump to arg if the status is not 0
	opNot                   // negate the status
	opForInit               // start a for loop: the words to iterate
	opForNext               // next for item into the variable, or jump to arg
	opSave                  // remember the status in loop slot arg (a loop body's last status)
	opRestore               // set the status from loop slot arg (a loop's own status)
	opClear                 // set loop slot arg to 0 (a loop whose body never ran)
)

type redirect struct {
	fd       int // 1 or 2
	appendTo bool
	target   word
	dup      bool // 2>&1 or >&2: fd joins stdout
}

type instr struct {
	op      opcode
	arg     int
	argv    []word
	assigns [][2]word // NAME=value before the command (name in [0] as a literal)
	redirs  []redirect
	name    string // for loops: the variable
}

type parser struct {
	toks []token
	pos  int
	prog []instr
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token { t := p.toks[p.pos]; p.pos++; return t }

func (p *parser) keyword() string {
	t := p.peek()
	if t.kind != tWord {
		return ""
	}
	s, ok := t.w.plain()
	if !ok {
		return ""
	}
	switch s {
	case "while", "until", "do", "done", "if", "then", "elif", "else", "fi", "for", "in", "case", "esac", "function":
		return s
	}
	return ""
}

func (p *parser) emit(in instr) int {
	p.prog = append(p.prog, in)
	return len(p.prog) - 1
}

func (p *parser) skipSeparators() {
	for p.peek().kind == tSemi {
		p.next()
	}
}

func unexpected(t token) error {
	switch t.kind {
	case tEOF:
		return syntaxErr("syntax error: unexpected end of file")
	case tWord:
		s, _ := t.w.plain()
		return syntaxErr(`syntax error: unexpected "%s"`, s)
	}
	return syntaxErr(`syntax error: unexpected "%s"`, t.text)
}

// list parses commands until one of the stop keywords (or the end).
func (p *parser) list(stops ...string) error {
	p.skipSeparators()
	n := 0
	for {
		t := p.peek()
		if t.kind == tEOF {
			if len(stops) > 0 {
				return unexpected(t)
			}
			return nil
		}
		if kw := p.keyword(); kw != "" {
			for _, s := range stops {
				if kw == s {
					if n == 0 {
						return unexpected(t)
					}
					return nil
				}
			}
		}
		if err := p.andOr(); err != nil {
			return err
		}
		n++
		t = p.peek()
		if t.kind != tSemi && t.kind != tEOF {
			if p.keyword() == "" {
				return unexpected(t)
			}
			found := false
			for _, s := range stops {
				found = found || p.keyword() == s
			}
			if !found {
				return unexpected(t)
			}
		}
		p.skipSeparators()
	}
}

func (p *parser) andOr() error {
	if err := p.pipeline(); err != nil {
		return err
	}
	var patches []int
	for {
		t := p.peek()
		if t.kind != tAnd && t.kind != tOr {
			break
		}
		p.next()
		op := opJnz // a && b: skip b when a failed
		if t.kind == tOr {
			op = opJz
		}
		patches = append(patches, p.emit(instr{op: op}))
		for p.peek().kind == tSemi && p.peek().text == "\n" {
			p.next()
		}
		if err := p.pipeline(); err != nil {
			return err
		}
		// Every jump lands after the whole chain: the status is the last
		// command's that ran, as in sh for chains of one operator kind.
		end := len(p.prog)
		for _, i := range patches[len(patches)-1:] {
			p.prog[i].arg = end
		}
	}
	return nil
}

func (p *parser) pipeline() error {
	neg := false
	if p.peek().kind == tBang {
		p.next()
		neg = true
	}
	if err := p.command(); err != nil {
		return err
	}
	if neg {
		p.emit(instr{op: opNot})
	}
	return nil
}

func (p *parser) expectKeyword(kw string) error {
	if p.keyword() != kw {
		return unexpected(p.peek())
	}
	p.next()
	return nil
}

func (p *parser) command() error {
	switch kw := p.keyword(); kw {
	case "while", "until":
		p.next()
		slot := p.emit(instr{op: opClear})
		p.prog[slot].arg = slot
		top := len(p.prog)
		if err := p.list("do"); err != nil {
			return err
		}
		op := opJnz
		if kw == "until" {
			op = opJz
		}
		exit := p.emit(instr{op: op})
		p.next() // do
		if err := p.list("done"); err != nil {
			return err
		}
		p.next() // done
		p.emit(instr{op: opSave, arg: slot})
		p.emit(instr{op: opJmp, arg: top})
		p.prog[exit].arg = len(p.prog)
		p.emit(instr{op: opRestore, arg: slot})
		return nil
	case "if":
		p.next()
		var ends []int
		for {
			if err := p.list("then"); err != nil {
				return err
			}
			p.next() // then
			skip := p.emit(instr{op: opJnz})
			if err := p.list("elif", "else", "fi"); err != nil {
				return err
			}
			ends = append(ends, p.emit(instr{op: opJmp}))
			p.prog[skip].arg = len(p.prog)
			kw := p.keyword()
			p.next()
			if kw == "elif" {
				continue
			}
			if kw == "else" {
				if err := p.list("fi"); err != nil {
					return err
				}
				p.next() // fi
			}
			break
		}
		for _, e := range ends {
			p.prog[e].arg = len(p.prog)
		}
		return nil
	case "for":
		p.next()
		t := p.next()
		name, ok := t.w.plain()
		if t.kind != tWord || !ok || name == "" || !isNameByte(name[0], true) {
			return unexpected(t)
		}
		var words []word
		if p.keyword() == "in" {
			p.next()
			for p.peek().kind == tWord {
				words = append(words, p.next().w)
			}
		}
		p.skipSeparators()
		if err := p.expectKeyword("do"); err != nil {
			return err
		}
		init := p.emit(instr{op: opForInit, argv: words})
		loop := p.emit(instr{op: opForNext, name: name, arg: init})
		if err := p.list("done"); err != nil {
			return err
		}
		p.next()
		p.emit(instr{op: opJmp, arg: loop})
		p.prog[loop].arg = len(p.prog)
		p.prog[init].arg = loop
		return nil
	case "case", "function":
		return &SyntaxError{Msg: kw + " is not simulated by kubeloop's shell"}
	case "do", "done", "then", "elif", "else", "fi", "in":
		return unexpected(p.peek())
	}
	return p.simple()
}

func (p *parser) simple() error {
	in := instr{op: opCmd}
	for {
		t := p.peek()
		switch t.kind {
		case tWord:
			p.next()
			if len(in.argv) == 0 && !t.w.quoted && len(t.w.parts) > 0 && !t.w.parts[0].isVar {
				if name, val, ok := strings.Cut(t.w.parts[0].lit, "="); ok && name != "" && validName(name) {
					rest := append([]part{{lit: val}}, t.w.parts[1:]...)
					in.assigns = append(in.assigns, [2]word{{parts: []part{{lit: name}}}, {parts: rest}})
					continue
				}
			}
			in.argv = append(in.argv, t.w)
		case tGreat, tDGreat, tErrGreat:
			p.next()
			target := p.next()
			if target.kind != tWord {
				return unexpected(target)
			}
			fd := 1
			if t.kind == tErrGreat {
				fd = 2
			}
			in.redirs = append(in.redirs, redirect{fd: fd, appendTo: t.kind == tDGreat, target: target.w})
		case tDup:
			p.next()
			in.redirs = append(in.redirs, redirect{fd: 2, dup: true})
		default:
			if len(in.argv) == 0 && len(in.assigns) == 0 && len(in.redirs) == 0 {
				return unexpected(t)
			}
			p.emit(in)
			return nil
		}
	}
}

func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return true
}

// compile parses a script into instructions.
func compile(src string) ([]instr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	if err := p.list(); err != nil {
		return nil, err
	}
	return p.prog, nil
}
