package repl

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/engine/sim"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
		err  string
	}{
		{`get pods`, []string{"get", "pods"}, ""},
		{`  get   pods  -o   wide `, []string{"get", "pods", "-o", "wide"}, ""},
		{`label pod x 'a=b c'`, []string{"label", "pod", "x", "a=b c"}, ""},
		{`label pod x "a=\"b\""`, []string{"label", "pod", "x", `a="b"`}, ""},
		{`get pods -l 'tier in (web,api)'`, []string{"get", "pods", "-l", "tier in (web,api)"}, ""},
		{`echo a\ b`, []string{"echo", "a b"}, ""},
		{`get pods # all of them`, []string{"get", "pods"}, ""},
		{`get pods#x`, []string{"get", "pods#x"}, ""},
		{`x ''`, []string{"x", ""}, ""},
		{`x "a\nb"`, []string{"x", `a\nb`}, ""},
		{`x 'unterminated`, nil, "unterminated quoted string: missing closing '"},
		{`x "unterminated`, nil, `unterminated quoted string: missing closing "`},
		{`get pods | grep x`, nil, "pipes (|) are not supported: kubeloop is not a shell"},
		{`get pods > out`, nil, "redirections (>) are not supported: use -f FILE or a here-document (<<EOF)"},
		{`get pods -l 'a|b'`, []string{"get", "pods", "-l", "a|b"}, ""},
	}
	for _, tt := range tests {
		got, err := SplitWords(tt.line)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("SplitWords(%q) error = %v; want %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}

// scanAll parses src as a script named "t".
func scanAll(src string) ([]*Stmt, error) {
	sc := NewScanner("t", newReaderLines(strings.NewReader(src)))
	var out []*Stmt
	for {
		st, err := sc.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, st)
	}
}

func TestScanner(t *testing.T) {
	src := "# a comment\n" +
		"\n" +
		"kubectl get pods -n kube-system\n" +
		"! get pod missing\n" +
		"apply -f - <<EOF\n" +
		"apiVersion: v1\n" +
		"kind: Namespace\n" +
		"metadata:\n" +
		"  name: x\n" +
		"EOF\n" +
		"apply -f -<<'END'\n" +
		"\ttabbed\n" +
		"END\n" +
		"create -f - <<-EOF\n" +
		"\ta\n" +
		"\t\tb\n" +
		"\tEOF\n" +
		"get pods \\\n" +
		"  -o wide\n" +
		"assert count(pods, .status.phase == \"Running\") == 3 # not a comment\n" +
		"kubectl   eval  \"a\"\n"
	got, err := scanAll(src)
	if err != nil {
		t.Fatal(err)
	}
	type stmt struct {
		Line   int
		Text   string
		Negate bool
		Name   string
		Args   []string
		Input  string
	}
	var gots []stmt
	for _, s := range got {
		gots = append(gots, stmt{s.Pos.Line, s.Text, s.Negate, s.Name, s.Args, s.Input})
	}
	want := []stmt{
		{3, "get pods -n kube-system", false, "get", []string{"pods", "-n", "kube-system"}, ""},
		{4, "get pod missing", true, "get", []string{"pod", "missing"}, ""},
		{5, "apply -f - <<EOF", false, "apply", []string{"-f", "-"}, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n"},
		{11, "apply -f -<<'END'", false, "apply", []string{"-f", "-"}, "\ttabbed\n"},
		{14, "create -f - <<-EOF", false, "create", []string{"-f", "-"}, "a\nb\n"},
		{18, "get pods   -o wide", false, "get", []string{"pods", "-o", "wide"}, ""},
		{20, `assert count(pods, .status.phase == "Running") == 3 # not a comment`, false, "assert",
			[]string{`count(pods, .status.phase == "Running") == 3 # not a comment`}, ""},
		{21, `eval  "a"`, false, "eval", []string{`"a"`}, ""},
	}
	if !reflect.DeepEqual(gots, want) {
		t.Errorf("statements:\n got %+v\nwant %+v", gots, want)
	}
}

func TestScannerErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"get pods\napply -f - <<EOF\nkind: x\n", "t:2: here-document <<EOF is not terminated: wanted a line \"EOF\""},
		{"!\n", "t:1: ! needs a command after it"},
		{"kubectl\n", "t:1: kubectl needs a command after it (try \"help\")"},
		{"get pods \\\n", "t:1: unexpected end of input after a trailing backslash"},
		{"\n\nget 'x\n", "t:3: unterminated quoted string: missing closing '"},
		{"get <<\n", "t:1: here-document needs a delimiter: <<EOF"},
	}
	for _, tt := range tests {
		_, err := scanAll(tt.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("scan %q: error %v; want a SyntaxError", tt.src, err)
			continue
		}
		if got := se.Pos.String() + ": " + se.Msg; got != tt.want {
			t.Errorf("scan %q: %s; want %s", tt.src, got, tt.want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	defs := []Flag{FlagOutput, FlagNamespace, FlagAllNamespaces, FlagSelector, FlagQuiet,
		{Name: "label", Value: "KEY=VALUE"}, {Name: "replicas", Value: "N", Default: "1"}}
	get := func(name string) func(*Flags) string { return func(f *Flags) string { return f.String(name) } }
	tests := []struct {
		args     []string
		wantArgs []string
		check    func(f *Flags) string
		want     string
		err      string
	}{
		{[]string{"pods", "-o", "wide"}, []string{"pods"}, get("output"), "wide", ""},
		{[]string{"-owide", "pods"}, []string{"pods"}, get("output"), "wide", ""},
		{[]string{"-o=yaml", "pods"}, []string{"pods"}, get("output"), "yaml", ""},
		{[]string{"pods", "--output=json"}, []string{"pods"}, get("output"), "json", ""},
		{[]string{"pods", "--output", "name", "x"}, []string{"pods", "x"}, get("output"), "name", ""},
		{[]string{"-A", "pods"}, []string{"pods"}, get("all-namespaces"), "true", ""},
		{[]string{"-Aq", "pods"}, []string{"pods"}, get("quiet"), "true", ""},
		{[]string{"-qn", "kube-system"}, nil, get("namespace"), "kube-system", ""},
		{[]string{"--all-namespaces=false"}, nil, func(f *Flags) string { return boolStr(f.Bool("all-namespaces")) }, "false", ""},
		{[]string{"-l", "app=api", "pods"}, []string{"pods"}, get("selector"), "app=api", ""},
		{[]string{"--label", "a=b", "--label=c=d"}, nil, func(f *Flags) string { return strings.Join(f.Strings("label"), ",") }, "a=b,c=d", ""},
		{[]string{"x"}, []string{"x"}, get("replicas"), "1", ""},
		{[]string{"--", "-o", "x"}, []string{"-o", "x"}, func(f *Flags) string { return boolStr(f.Changed("output")) }, "false", ""},
		{[]string{"-", "x"}, []string{"-", "x"}, get("output"), "", ""},
		{[]string{"-f", "-"}, nil, nil, "", "unknown shorthand flag: \"f\" in -f"},
		{[]string{"--bogus"}, nil, nil, "", "unknown flag: --bogus"},
		{[]string{"pods", "-o"}, nil, nil, "", "flag needs an argument: \"o\" in -o"},
		{[]string{"--output"}, nil, nil, "", "flag needs an argument: --output"},
		{[]string{"--quiet=maybe"}, nil, nil, "", "invalid argument \"maybe\" for \"--quiet\" flag: strconv.ParseBool: parsing: invalid syntax"},
	}
	for _, tt := range tests {
		f, err := ParseFlags(defs, tt.args)
		if tt.err != "" {
			var u *usageError
			if err == nil || err.Error() != tt.err || !errors.As(err, &u) {
				t.Errorf("ParseFlags(%q) error = %v; want usage error %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseFlags(%q): %v", tt.args, err)
			continue
		}
		if !reflect.DeepEqual(f.Args, tt.wantArgs) {
			t.Errorf("ParseFlags(%q).Args = %q; want %q", tt.args, f.Args, tt.wantArgs)
		}
		if got := tt.check(f); got != tt.want {
			t.Errorf("ParseFlags(%q): got %q; want %q", tt.args, got, tt.want)
		}
	}
	f, _ := ParseFlags(defs, []string{"--replicas", "x"})
	if _, err := f.Int("replicas"); err == nil || err.Error() != `invalid argument "x" for "--replicas" flag: strconv.ParseInt: parsing "x": invalid syntax` {
		t.Errorf("Int(replicas=x) error = %v", err)
	}
}

// FirstArg skips flags and their values as ParseFlags reads them, taking
// a flag it does not know to have none.
func TestFirstArg(t *testing.T) {
	defs := []Flag{FlagOutput, FlagNamespace, FlagAllNamespaces, FlagSelector, FlagQuiet}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"resources", "deployment/api", "--limits=cpu=1"}, "resources"},
		{[]string{"-n", "default", "env", "--bogus"}, "env"},
		{[]string{"--namespace", "default", "env"}, "env"},
		{[]string{"--namespace=default", "env"}, "env"},
		{[]string{"-ndefault", "env"}, "env"},
		{[]string{"-qn", "default", "env"}, "env"},
		{[]string{"-A", "env"}, "env"},
		{[]string{"--limits", "x"}, "x"}, // unknown: no value
		{[]string{"--", "-o"}, "-o"},
		{[]string{"-o", "wide"}, ""},
		{nil, ""},
	} {
		if got := FirstArg(defs, tt.args); got != tt.want {
			t.Errorf("FirstArg(%q) = %q; want %q", tt.args, got, tt.want)
		}
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestNearest(t *testing.T) {
	cands := []string{"advance", "apply", "assert", "get", "describe", "delete", "until"}
	tests := []struct{ word, want string }{
		{"avance", "advance"}, {"aply", "apply"}, {"gte", "get"}, {"desribe", "describe"},
		{"xyz", ""}, {"untill", "until"}, {"GET", "get"}, {"deleet", "delete"},
	}
	for _, tt := range tests {
		if got := nearest(tt.word, cands); got != tt.want {
			t.Errorf("nearest(%q) = %q; want %q", tt.word, got, tt.want)
		}
	}
	if d := levenshtein("kitten", "sitting"); d != 3 {
		t.Errorf("levenshtein(kitten, sitting) = %d; want 3", d)
	}
}

func TestSplitTrailingFlags(t *testing.T) {
	defs := []Flag{flagTimeout, FlagQuiet}
	tests := []struct {
		raw, expr string
		flags     []string
	}{
		{`count(pods) == 3`, `count(pods) == 3`, nil},
		{`count(pods) == 3 --timeout 2m`, `count(pods) == 3`, []string{"--timeout", "2m"}},
		{`count(pods) == 3 --timeout=2m -q`, `count(pods) == 3`, []string{"--timeout=2m", "-q"}},
		{`a  -  b == 1 -q --timeout 1m`, `a  -  b == 1`, []string{"-q", "--timeout", "1m"}},
		{`len(pods) > 0 --other`, `len(pods) > 0 --other`, nil},
	}
	for _, tt := range tests {
		e, f := splitTrailingFlags(tt.raw, defs)
		if e != tt.expr || !reflect.DeepEqual(f, tt.flags) {
			t.Errorf("splitTrailingFlags(%q) = %q, %q; want %q, %q", tt.raw, e, f, tt.expr, tt.flags)
		}
	}
}

func TestFormatTick(t *testing.T) {
	tests := []struct {
		ms   int64
		want string
	}{
		{0, "0s"}, {1500, "1.5s"}, {45000, "45s"}, {90000, "1m30s"}, {3600000, "1h"},
		{3605000, "1h0m5s"}, {3720000, "1h2m"}, {250, "0.25s"}, {60000, "1m"},
	}
	for _, tt := range tests {
		if got := FormatTick(sim.Tick(tt.ms)); got != tt.want {
			t.Errorf("FormatTick(%d) = %q; want %q", tt.ms, got, tt.want)
		}
	}
}
