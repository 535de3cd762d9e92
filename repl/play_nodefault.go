package repl

import "fmt"

// runNodeFault is `node fail NAME` and `node recover NAME`: the node's
// kubelet stops (no Lease renewals, no status) or comes back. What
// follows, over the next minutes of virtual time, is the node lifecycle
// controller's and the taint-eviction controller's doing.
func runNodeFault(s *Session, args []string) error {
	if len(args) != 2 {
		return usagef("node %s needs one NAME", args[0])
	}
	name := args[1]
	cause := s.Actor().Cause
	var err error
	if args[0] == "fail" {
		err = s.Eng.FailNode(cause, name)
	} else {
		err = s.Eng.RecoverNode(cause, name)
	}
	if err != nil {
		return kubectlError(err)
	}
	if args[0] == "fail" {
		fmt.Fprintf(s.Out, "node/%s failed: its kubelet stopped renewing its Lease and posting status\n", name)
	} else {
		fmt.Fprintf(s.Out, "node/%s recovered: its kubelet posts status again\n", name)
	}
	return nil
}
