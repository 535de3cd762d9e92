package framework

import (
	"errors"
	"strconv"
	"strings"
)

// Code is a plugin's verdict, as in kube's framework.Code.
type Code int

// The codes kubeloop's plugins return. The numbering follows kube's, minus
// Wait and Pending, which belong to extension points kubeloop does not model
// (Permit, and DRA's PreFilter).
const (
	// Success means the plugin is happy; a nil *Status also means Success.
	Success Code = iota
	// Error is an internal failure (a bug or a broken invariant), not a
	// verdict about the pod.
	Error
	// Unschedulable means the node cannot run the pod now, but preemption
	// (evicting lower-priority pods) might change that.
	Unschedulable
	// UnschedulableAndUnresolvable means the node cannot run the pod and no
	// preemption on it would help (a taint, a selector, a cordon).
	UnschedulableAndUnresolvable
	// Skip, from PreFilter or PreScore, means the plugin has nothing to say
	// about this pod: its Filter or Score is not run in this cycle.
	Skip
)

var codeNames = []string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Skip"}

func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Code(" + strconv.Itoa(int(c)) + ")"
}

// Status is what a plugin returns: a code and the reasons, in Kubernetes'
// words. Statuses a plugin returns for every rejected node are best made
// once (package variables) so that filtering 5,000 nodes allocates nothing.
type Status struct {
	code    Code
	reasons []string
	err     error
}

// NewStatus makes a status.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// AsStatus wraps an internal error as an Error status.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, err: err}
}

// Code is the status's code; a nil status is Success.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// IsSuccess reports whether the status is Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsSkip reports whether the status is Skip.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports whether the pod was turned down (Unschedulable or
// UnschedulableAndUnresolvable), as opposed to an internal error.
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable
}

// Reasons are the status's reasons; an error's text comes first.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	if s.err != nil {
		return append([]string{s.err.Error()}, s.reasons...)
	}
	return s.reasons
}

// Message joins the reasons with ", ", as kube's Status.Message does.
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.Reasons(), ", ")
}

// AsError returns the status as an error (nil for Success and Skip).
func (s *Status) AsError() error {
	if s.IsSuccess() || s.IsSkip() {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// String prints the code and message: "UnschedulableAndUnresolvable:
// node(s) were unschedulable".
func (s *Status) String() string {
	if m := s.Message(); m != "" {
		return s.Code().String() + ": " + m
	}
	return s.Code().String()
}
