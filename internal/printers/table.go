package printers

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// Options are kubectl get's table flags.
type Options struct {
	Wide          bool      // -o wide: add the priority-1 columns
	ShowLabels    bool      // --show-labels: add a LABELS column
	AllNamespaces bool      // -A: a NAMESPACE column first, for namespaced kinds
	NoHeaders     bool      // --no-headers
	WithKind      bool      // print names as kind/name, as kubectl does when one get prints several kinds
	Now           time.Time // the virtual now, for AGE and other "time since" cells
}

// The tabwriter settings of kubectl get (cli-runtime pkg/printers
// tabwriter.go): columns padded to their widest cell plus 3 spaces, at
// least 6 wide.
const (
	tableMinWidth = 6
	tableTabWidth = 4
	tablePadding  = 3
)

// column is one column of a kind's table, as k/k's printers.go defines it.
type column struct {
	name string // as defined ("Nominated Node"); printed upper-cased
	wide bool   // priority 1: only with -o wide
}

// table is a kind's columns and the function that computes one row's cells:
// all of them, wide ones included, in column order, as the API server
// computes them for kubectl (its TableConvertor always asks the printers
// for wide output; kubectl drops the priority-1 columns it was not asked
// for).
type table struct {
	columns []column
	row     func(obj kinds.Object, now time.Time) []string
}

var tables = map[*kinds.Kind]*table{}

func register(k *kinds.Kind, t *table) { tables[k] = t }

// HasTable reports whether PrintTable knows the kind's columns.
func HasTable(k *kinds.Kind) bool { return tables[k] != nil }

// PrintTable writes objs (all of kind k) as kubectl get's table, in the
// order given. kubectl prints what the API server returns, which is etcd key
// order: by namespace, then name; callers pass objects in that order.
//
// With no objects it writes nothing, not even the header, as kubectl does;
// the caller then prints NoResourcesFound to stderr.
func PrintTable(w io.Writer, k *kinds.Kind, objs []kinds.Object, opts Options) error {
	t := tables[k]
	if t == nil {
		return fmt.Errorf("printers: no table columns for %s", k.Kind)
	}
	if len(objs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, tableMinWidth, tableTabWidth, tablePadding, ' ', 0)
	withNamespace := opts.AllNamespaces && k.Namespaced
	nameCol := -1
	for i, c := range t.columns {
		if c.name == "Name" {
			nameCol = i
			break
		}
	}
	kindPrefix := ""
	if opts.WithKind {
		kindPrefix = KindPrefix(k)
	}

	buf := make([]byte, 0, 256)
	if !opts.NoHeaders {
		first := true
		sep := func() {
			if !first {
				buf = append(buf, '\t')
			}
			first = false
		}
		if withNamespace {
			sep()
			buf = append(buf, "NAMESPACE"...)
		}
		for _, c := range t.columns {
			if c.wide && !opts.Wide {
				continue
			}
			sep()
			buf = append(buf, strings.ToUpper(c.name)...)
		}
		if opts.ShowLabels {
			sep()
			buf = append(buf, "LABELS"...)
		}
		buf = append(buf, '\n')
		if _, err := tw.Write(buf); err != nil {
			return err
		}
	}
	for _, obj := range objs {
		cells := t.row(obj, opts.Now)
		buf = buf[:0]
		first := true
		sep := func() {
			if !first {
				buf = append(buf, '\t')
			}
			first = false
		}
		if withNamespace {
			sep()
			buf = appendCell(buf, obj.GetNamespace())
		}
		for i, c := range t.columns {
			if c.wide && !opts.Wide {
				continue
			}
			sep()
			if i == nameCol {
				buf = append(buf, kindPrefix...)
			}
			buf = appendCell(buf, cells[i])
		}
		if opts.ShowLabels {
			sep()
			buf = appendCell(buf, labels.FormatLabels(obj.GetLabels()))
		}
		buf = append(buf, '\n')
		if _, err := tw.Write(buf); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// appendCell appends a cell as cli-runtime's table printer writes it: cut
// at the first line break with "...", terminal escapes made harmless.
func appendCell(buf []byte, s string) []byte {
	if !strings.ContainsAny(s, "\f\n\r\x1b") {
		return append(buf, s...)
	}
	truncated := false
	if i := strings.IndexAny(s, "\f\n\r"); i >= 0 {
		s, truncated = s[:i], true
	}
	buf = append(buf, strings.ReplaceAll(s, "\x1b", "^[")...)
	if truncated {
		buf = append(buf, "..."...)
	}
	return buf
}

// NoResourcesFound is the line kubectl get prints to stderr when a table
// would be empty: "No resources found in default namespace." for a
// namespaced kind in one namespace, else "No resources found". kubectl does
// not print it for -o json, yaml or name.
func NoResourcesFound(k *kinds.Kind, namespace string, allNamespaces bool) string {
	if k.Namespaced && !allNamespaces {
		return fmt.Sprintf("No resources found in %s namespace.", namespace)
	}
	return "No resources found"
}

// since is kubectl's translateTimestampSince against the virtual now:
// "<unknown>" for an unset time, else duration.HumanDuration.
func since(t time.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}
