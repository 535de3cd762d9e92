package apiserver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RequestError is one rejected document of a request, located for a
// learner. It keeps Kubernetes' own error (Err: an *apierrors.StatusError
// for what kube-apiserver rejects, a plain error for what kubectl rejects
// before sending anything) and adds where it is: the file, the document, the
// line and the field.
//
// It prints two lines: first exactly what kubectl prints, so that a learner
// who moves to a real cluster recognises it, then kubeloop's locating line
// ("deploy.yaml:9: spec.replica: unknown field (did you mean
// spec.replicas?)"). apierrors.IsInvalid, IsNotFound and the like work on it.
type RequestError struct {
	Source string // the file name as given; "-" is stdin
	Doc    int    // 0-based index of the YAML document (or List item) in the file
	Line   int    // 1-based line in the file of the offending field (or document); 0 if unknown
	Field  string // the field path, "spec.template.spec.containers[0].image"; "" for the whole document
	// Verb is kubectl's word for the request: "creating" or "patching".
	Verb string
	// Err is the Kubernetes error.
	Err error
	// Client marks errors kubectl raises itself (parsing, unknown kinds):
	// it prints them as "error: ..." and never reaches the server.
	Client bool
	// Hint is kubeloop's explanation for the locating line: "unknown
	// field (did you mean spec.replicas?)". Empty means the Kubernetes
	// message is used.
	Hint string
	// More locates further fields the same error names (a strict decoding
	// error lists every unknown field), one locating line each.
	More []Location
}

// Location is one field of a document, for a locating line.
type Location struct {
	Line  int
	Field string
	Hint  string
}

// SourceName is how kubectl names a source in messages: "STDIN" for "-".
func SourceName(source string) string {
	if source == "-" || source == "" {
		return "STDIN"
	}
	return source
}

// Error is the kubectl line, a newline, and the locating line.
func (e *RequestError) Error() string {
	return e.Kubectl() + "\n" + e.Locate()
}

// Unwrap gives the Kubernetes error.
func (e *RequestError) Unwrap() error { return e.Err }

// Status makes a RequestError an apierrors.APIStatus, so that
// apierrors.IsInvalid(err) and friends see through it. Errors raised by
// kubectl itself have no reason.
func (e *RequestError) Status() metav1.Status {
	var st apierrors.APIStatus
	if errors.As(e.Err, &st) {
		return st.Status()
	}
	return metav1.Status{Status: metav1.StatusFailure, Message: e.Err.Error()}
}

// Kubectl is the line kubectl would print for this error (without a final
// newline), following kubectl's cmdutil.CheckErr: invalid objects as "The
// Deployment "api" is invalid: ...", other server errors as "Error from
// server (Reason): error when creating "file": ...", and its own errors as
// "error: ...".
func (e *RequestError) Kubectl() string {
	if e.Client {
		msg := e.Err.Error()
		if !strings.HasPrefix(msg, "error: ") {
			msg = "error: " + msg
		}
		return msg
	}
	var se apierrors.APIStatus
	if !errors.As(e.Err, &se) {
		return "error: " + e.Err.Error()
	}
	st := se.Status()
	if st.Reason == metav1.StatusReasonInvalid && st.Details != nil {
		s := fmt.Sprintf("The %s %q is invalid", st.Details.Kind, st.Details.Name)
		var causes []string
		seen := map[string]bool{}
		for _, c := range st.Details.Causes {
			msg := c.Field + ": " + c.Message
			if !seen[msg] {
				seen[msg] = true
				causes = append(causes, msg)
			}
		}
		switch len(causes) {
		case 0:
			return s
		case 1:
			return s + ": " + causes[0]
		}
		return s + ": \n* " + strings.Join(causes, "\n* ")
	}
	msg := st.Message
	if e.Source != "" {
		msg = fmt.Sprintf("error when %s %q: %s", e.verb(), SourceName(e.Source), msg)
	}
	if st.Reason == "" {
		return "Error from server: " + msg
	}
	return fmt.Sprintf("Error from server (%s): %s", st.Reason, msg)
}

func (e *RequestError) verb() string {
	if e.Verb == "" {
		return "creating"
	}
	return e.Verb
}

// Locate is kubeloop's own line, file:line: field: what is wrong, and one
// more line for each further field in More.
func (e *RequestError) Locate() string {
	hint := e.Hint
	if hint == "" {
		hint = e.summary()
	}
	lines := []string{locLine(e.Source, Location{Line: e.Line, Field: e.Field, Hint: hint})}
	for _, l := range e.More {
		lines = append(lines, locLine(e.Source, l))
	}
	return strings.Join(lines, "\n")
}

func locLine(source string, l Location) string {
	var b strings.Builder
	b.WriteString(SourceName(source))
	if l.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(l.Line))
	}
	b.WriteString(": ")
	if l.Field != "" {
		b.WriteString(l.Field)
		b.WriteString(": ")
	}
	b.WriteString(l.Hint)
	return b.String()
}

// summary is the Kubernetes message, shortened to what concerns e.Field.
func (e *RequestError) summary() string {
	var se apierrors.APIStatus
	if errors.As(e.Err, &se) {
		st := se.Status()
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				if c.Field == e.Field {
					return c.Message
				}
			}
		}
		return st.Message
	}
	msg := e.Err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// RequestErrors is every rejected document of one request (an apply of a
// file rejects the whole file if any document is bad). It unwraps to its
// members, so errors.As and apierrors.IsInvalid find the first of a kind.
type RequestErrors []*RequestError

// Error prints each error's two lines, one error after another.
func (es RequestErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap gives the members.
func (es RequestErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Status is the status of the first error, so that apierrors.ReasonForError
// works on the whole set.
func (es RequestErrors) Status() metav1.Status {
	if len(es) == 0 {
		return metav1.Status{Status: metav1.StatusSuccess}
	}
	return es[0].Status()
}
