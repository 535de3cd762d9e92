package repl

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// exprList is a list of objects an expression can name.
type exprList struct {
	name string
	kind *kinds.Kind
}

// exprLists are the lists the contract names, each in its Kubernetes JSON
// shape (as `kubectl get -o json` prints the items), in every namespace.
var exprLists = []exprList{
	{"pods", kinds.Pod}, {"nodes", kinds.Node}, {"deployments", kinds.Deployment},
	{"replicasets", kinds.ReplicaSet}, {"services", kinds.Service},
	{"endpointslices", kinds.EndpointSlice}, {"hpas", kinds.HPA}, {"events", kinds.Event},
	{"namespaces", kinds.Namespace}, {"pdbs", kinds.PDB}, {"priorityclasses", kinds.PriorityClass},
}

// exprFuncs documents the helpers for `help assert`; the implementations
// are in exprOptions.
var exprFuncs = []struct{ sig, doc string }{
	{"ready(pod)", "true when the pod's Ready condition is True"},
	{"phase(pod)", `the pod's status.phase ("Pending", "Running", ...)`},
	{"restarts(pod)", "the sum of its containers' restartCount"},
	{"age(obj)", "seconds since the object's creationTimestamp"},
	{"since(timestamp)", "seconds from a timestamp (an object's field, or now) until now"},
	{"duration(text)", `a duration in seconds: duration("5m") == 300`},
	{"labels(obj)", "the object's labels (a map; {} when it has none)"},
	{"name(obj)", "metadata.name"},
	{"node(pod)", "spec.nodeName, \"\" while unscheduled"},
}

// compiledExpr is an expression ready to evaluate over the cluster.
type compiledExpr struct {
	src  string
	prog *vm.Program
	// uses lists the cluster lists the expression names: only those are
	// built when it runs, so `until` over 10,000 pods does not also convert
	// every event and node.
	uses []exprList
	// timeDependent is true when the value can change with time alone
	// (now, age, since), not only with a write.
	timeDependent bool
}

// exprOptions are the compile options: the environment's names and types,
// the helpers, and expr's wall-clock builtin `now` replaced by virtual time.
func (s *Session) exprOptions() []expr.Option {
	env := map[string]any{"now": ""}
	for _, l := range exprLists {
		env[l.name] = []any{}
	}
	obj := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	path := func(v any, keys ...string) any {
		for _, k := range keys {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		}
		return v
	}
	since := func(ts any) (any, error) {
		str, _ := ts.(string)
		if str == "" {
			return nil, fmt.Errorf("since: %v is not a timestamp", ts)
		}
		t, err := time.Parse(time.RFC3339, str)
		if err != nil {
			return nil, fmt.Errorf("since: %v", err)
		}
		return s.Now().Time().Sub(t).Seconds(), nil
	}
	return []expr.Option{
		expr.Env(env),
		expr.Timezone("UTC"),
		expr.Patch(nilSafe{}),
		expr.Function(safeIndexFunc, func(p ...any) (any, error) { return safeIndex(p[0], p[1]), nil }, new(func(any, any) any)),
		expr.Function("ready", func(p ...any) (any, error) {
			conds, _ := path(p[0], "status", "conditions").([]any)
			for _, c := range conds {
				if m := obj(c); m["type"] == "Ready" {
					return m["status"] == "True", nil
				}
			}
			return false, nil
		}, new(func(any) bool)),
		expr.Function("phase", func(p ...any) (any, error) {
			ph, _ := path(p[0], "status", "phase").(string)
			return ph, nil
		}, new(func(any) string)),
		expr.Function("restarts", func(p ...any) (any, error) {
			n := 0.0
			for _, list := range []string{"initContainerStatuses", "containerStatuses"} {
				cs, _ := path(p[0], "status", list).([]any)
				for _, c := range cs {
					if r, ok := obj(c)["restartCount"].(float64); ok {
						n += r
					}
				}
			}
			return int(n), nil
		}, new(func(any) int)),
		expr.Function("age", func(p ...any) (any, error) {
			return since(path(p[0], "metadata", "creationTimestamp"))
		}, new(func(any) float64)),
		expr.Function("since", func(p ...any) (any, error) { return since(p[0]) }, new(func(any) float64)),
		expr.Function("duration", func(p ...any) (any, error) {
			d, err := ParseDuration(p[0].(string))
			if err != nil {
				return nil, err
			}
			return d.Seconds(), nil
		}, new(func(string) float64)),
		expr.Function("labels", func(p ...any) (any, error) {
			if l, ok := path(p[0], "metadata", "labels").(map[string]any); ok {
				return l, nil
			}
			return map[string]any{}, nil
		}, new(func(any) map[string]any)),
		expr.Function("name", func(p ...any) (any, error) {
			n, _ := path(p[0], "metadata", "name").(string)
			return n, nil
		}, new(func(any) string)),
		expr.Function("node", func(p ...any) (any, error) {
			n, _ := path(p[0], "spec", "nodeName").(string)
			return n, nil
		}, new(func(any) string)),
	}
}

// nilSafe makes every member access optional, as if written a?.b: in JSON
// a missing field reads as null, and so does a field of something missing.
// Without it `find(deployments, .metadata.name == "api").status.replicas`
// would be an error until the deployment exists, and `until` would stop at
// its first check instead of waiting for it.
type nilSafe struct{}

func (nilSafe) Visit(n *ast.Node) {
	m, ok := (*n).(*ast.MemberNode)
	if !ok || m.Method {
		return
	}
	if _, named := m.Property.(*ast.StringNode); !named {
		// An index, pods[0] or m[key]: past the end, or on something
		// missing, it reads as null too, so that `until pods[0].status.phase
		// == "Running"` waits for the first pod instead of failing.
		call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: safeIndexFunc}, Arguments: []ast.Node{m.Node, m.Property}}
		call.SetLocation(m.Location())
		*n = call
		return
	}
	m.Optional = true
	*n = &ast.ChainNode{Node: m}
}

// safeIndexFunc is the function nilSafe turns an index into.
const safeIndexFunc = "index"

// safeIndex is a[i] for nilSafe: a list element (negative counts from the
// end, as expr's own index does) or a map value, and nil where there is
// none.
func safeIndex(a, i any) any {
	switch a := a.(type) {
	case []any:
		n, ok := i.(int)
		if !ok {
			return nil
		}
		if n < 0 {
			n += len(a)
		}
		if n < 0 || n >= len(a) {
			return nil
		}
		return a[n]
	case map[string]any:
		k, _ := i.(string)
		return a[k]
	}
	return nil
}

// compileExpr compiles src for assert, eval and until.
func (s *Session) compileExpr(src string) (*compiledExpr, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return nil, usagef("missing expression")
	}
	prog, err := expr.Compile(src, s.exprOptions()...)
	if err != nil {
		// "assert x == 3  # why" : a trailing comment, as on other lines.
		// In expr "#" is also the current element (count(pods, # != nil)),
		// so a "#" only starts a comment if the text before it compiles.
		for _, cut := range commentCuts(src) {
			if p, cerr := expr.Compile(src[:cut], s.exprOptions()...); cerr == nil {
				src, prog, err = strings.TrimSpace(src[:cut]), p, nil
				break
			}
		}
	}
	if err != nil {
		return nil, exprError(src, err)
	}
	c := &compiledExpr{src: src, prog: prog}
	names := map[string]bool{}
	node := prog.Node()
	ast.Walk(&node, identVisitor(func(n ast.Node) {
		switch n := n.(type) {
		case *ast.IdentifierNode:
			names[n.Value] = true
		case *ast.CallNode:
			if id, ok := n.Callee.(*ast.IdentifierNode); ok {
				names[id.Value] = true
			}
		}
	}))
	for _, l := range exprLists {
		if names[l.name] {
			c.uses = append(c.uses, l)
		}
	}
	c.timeDependent = names["now"] || names["age"] || names["since"]
	return c, nil
}

// commentCuts lists where a "#" preceded by a blank, outside quotes, could
// start a comment, leftmost first.
func commentCuts(src string) []int {
	var cuts []int
	var quote byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '#' && i > 0 && (src[i-1] == ' ' || src[i-1] == '\t'):
			cuts = append(cuts, i)
		}
	}
	return cuts
}

type identVisitor func(ast.Node)

func (v identVisitor) Visit(n *ast.Node) { v(*n) }

// exprEnv builds the environment for one evaluation: only the lists c
// uses, converted through the session's cache so that unchanged objects
// are not converted again.
func (s *Session) exprEnv(c *compiledExpr) map[string]any {
	env := map[string]any{"now": s.Now().Time().UTC().Format(time.RFC3339)}
	for _, l := range c.uses {
		env[l.name] = s.jsonCache.Values(s.Eng.Store.List(l.kind, ""))
	}
	s.jsonCache.Sweep()
	return env
}

// evalExpr runs c over the cluster as it is now.
func (s *Session) evalExpr(c *compiledExpr) (any, map[string]any, error) {
	env := s.exprEnv(c)
	v, err := expr.Run(c.prog, env)
	if err != nil {
		return nil, env, exprError(c.src, err)
	}
	return v, env, nil
}

// evalBool runs c and insists on a true/false answer.
func (s *Session) evalBool(c *compiledExpr) (bool, map[string]any, error) {
	v, env, err := s.evalExpr(c)
	if err != nil {
		return false, env, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, env, fmt.Errorf("%s is %s, not true or false; compare it with something (== 3, > 0)", c.src, shortValue(v))
	}
	return b, env, nil
}

// exprError words an expr-lang error for a learner: the message, then the
// expression with a caret under the column expr points at.
func exprError(src string, err error) error {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return err
	}
	msg := fe.Message
	if strings.HasPrefix(msg, "unknown name ") {
		name := strings.TrimPrefix(msg, "unknown name ")
		cands := []string{"now"}
		for _, l := range exprLists {
			cands = append(cands, l.name)
		}
		if best := nearest(name, cands); best != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", best)
		} else {
			msg += " (the lists are " + listNames() + ")"
		}
	}
	line := src
	col := fe.Column
	if fe.Line > 1 {
		lines := strings.Split(src, "\n")
		if fe.Line-1 < len(lines) {
			line = lines[fe.Line-1]
		}
	}
	if col > len(line) {
		col = len(line)
	}
	return fmt.Errorf("%s\n  %s\n  %s^", msg, line, strings.Repeat(" ", col))
}

func listNames() string {
	var names []string
	for _, l := range exprLists {
		names = append(names, l.name)
	}
	return strings.Join(names, ", ")
}

// explain evaluates the parts of c an assertion looked at and returns one
// line per part, "  part = value": the operands of each comparison, the
// calls and member chains, and now. Parts inside predicates (the
// `.status.phase` of count(pods, .status.phase == "Running")) have no
// value of their own and are left out.
func (s *Session) explain(c *compiledExpr, env map[string]any) []string {
	tree, err := parser.Parse(c.src)
	if err != nil {
		return nil
	}
	var parts []ast.Node
	var visit, operand func(ast.Node)
	visit = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.BinaryNode:
			switch n.Operator {
			case "&&", "||", "and", "or":
				visit(n.Left)
				visit(n.Right)
				return
			}
			operand(n.Left)
			operand(n.Right)
			return
		case *ast.UnaryNode:
			visit(n.Node)
			return
		case *ast.ConditionalNode:
			visit(n.Cond)
			return
		}
		operand(n)
	}
	operand = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.IntegerNode, *ast.FloatNode, *ast.StringNode, *ast.BoolNode, *ast.NilNode, *ast.ConstantNode:
			return
		case *ast.BinaryNode, *ast.UnaryNode:
			visit(n)
			return
		case *ast.MemberNode:
			// A chain is only as good as its base: show the base too, so
			// that "find(...) = nil" explains a failed ".status".
			base := n.Node
			for {
				m, ok := base.(*ast.MemberNode)
				if !ok {
					break
				}
				base = m.Node
			}
			switch base.(type) {
			case *ast.PointerNode, *ast.IdentifierNode:
			default:
				operand(base)
			}
		}
		parts = append(parts, n)
	}
	visit(tree.Node)
	var out []string
	seen := map[string]bool{}
	opts := s.exprOptions()
	for _, p := range parts {
		text := p.String()
		if seen[text] {
			continue
		}
		seen[text] = true
		var val string
		prog, err := expr.Compile(text, opts...)
		if err == nil {
			var v any
			if v, err = expr.Run(prog, env); err == nil {
				val = shortValue(v)
			}
		}
		if err != nil {
			var fe *file.Error
			if errors.As(err, &fe) {
				err = errors.New(fe.Message)
			}
			val = "(error: " + firstLine(err.Error()) + ")"
		}
		out = append(out, fmt.Sprintf("  %s = %s", text, val))
	}
	out = append(out, fmt.Sprintf("  now = %s (virtual time %s, seed %d)", env["now"], FormatTick(s.Now()), s.Eng.Seed))
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// shortValue prints a value on one line: objects by kind and name, lists by
// length and a few names, everything else JSON-ish.
func shortValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case float64:
		return formatNumber(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case time.Duration:
		return x.String()
	case map[string]any:
		if ref := objectRef(x); ref != "" {
			return ref
		}
		b, _ := json.Marshal(x)
		return clip(string(b), 120)
	case []any:
		var names []string
		for i, e := range x {
			if i == 5 {
				names = append(names, fmt.Sprintf("... %d more", len(x)-5))
				break
			}
			names = append(names, shortValue(e))
		}
		items := "items"
		if len(x) == 1 {
			items = "item"
		}
		if len(x) == 0 {
			return "[] (0 items)"
		}
		return clip(fmt.Sprintf("[%s] (%d %s)", strings.Join(names, ", "), len(x), items), 200)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b), 120)
}

// objectRef names an object in JSON shape as "pod default/web-1".
func objectRef(m map[string]any) string {
	kind, _ := m["kind"].(string)
	md, _ := m["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if kind == "" || name == "" {
		return ""
	}
	if ns, _ := md["namespace"].(string); ns != "" {
		name = ns + "/" + name
	}
	return strings.ToLower(kind) + " " + name
}

func formatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// longValue prints a value in full for eval: JSON indented by two spaces
// with sorted keys, or the plain value for scalars.
func longValue(v any) string {
	switch x := v.(type) {
	case nil, string, bool, int, float64, time.Time, time.Duration:
		return shortValue(x)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// FormatTick prints virtual time compactly, as the prompt shows it: 0s,
// 45s, 1m30s, 2h, 1h0m5s, 1.5s.
func FormatTick(t sim.Tick) string {
	if t == 0 {
		return "0s"
	}
	neg := ""
	if t < 0 {
		neg, t = "-", -t
	}
	h := t / sim.Hour
	m := (t % sim.Hour) / sim.Minute
	sec := t % sim.Minute
	var b strings.Builder
	b.WriteString(neg)
	if h > 0 {
		b.WriteString(strconv.FormatInt(int64(h), 10) + "h")
	}
	if m > 0 || (h > 0 && sec > 0) {
		b.WriteString(strconv.FormatInt(int64(m), 10) + "m")
	}
	if sec > 0 {
		if sec%sim.Second == 0 {
			b.WriteString(strconv.FormatInt(int64(sec/sim.Second), 10) + "s")
		} else {
			s := strconv.FormatFloat(float64(sec)/float64(sim.Second), 'f', 3, 64)
			b.WriteString(strings.TrimRight(s, "0") + "s")
		}
	}
	return b.String()
}
