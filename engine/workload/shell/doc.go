// Package shell is a tiny busybox shell for simulated containers: it runs
// the scripts that Kubernetes examples put in a container's command and
// args (`sh -c "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep
// 600"`) and the commands of exec probes (`cat /tmp/healthy`), against a
// per-container in-memory filesystem, on virtual time.
//
// A Machine is a step machine, not a goroutine: Run executes instructions
// until the script sleeps (it reports when to wake it) or exits. The
// script is compiled to a few instructions (run a command, jump, jump if
// the last status was zero or not), so `while`, `if`, `&&` and `||` need
// no recursion at run time.
//
// What it knows: the applets sleep, touch, rm, mkdir, echo, printf (plain),
// cat, test and [, exit, true, false, :, hostname, date; the operators ;,
// newline, &&, ||, ! and redirections >, >> and 2>&1 (and >/dev/null);
// while/until ... do ... done, if/elif/else/fi, for NAME in WORDS; and
// variables (NAME=value, $NAME, ${NAME}, $?). Anything else is "not found"
// with exit status 127, as busybox says it. Pipes, subshells and command
// substitution are not simulated: a script using them fails to parse with
// a message that says so.
//
// A loop that never sleeps would spin forever in a real container; here it
// runs at most MaxStepsPerInstant instructions at one instant and is then
// suspended for good (Status.Spinning), since kubeloop does not model CPU.
package shell
