package repl

// rollout status|history|undo|pause|resume|restart, as kubectl's
// pkg/cmd/rollout and pkg/polymorphichelpers (v0.34) word them, for
// Deployments.

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/controller"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/internal/printers"
)

// Annotations kubectl's rollout commands read or write.
const (
	changeCauseAnnotation = "kubernetes.io/change-cause"
	restartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"
)

// rolloutWaitMargin is how much virtual time `rollout status` waits beyond
// the Deployment's progressDeadlineSeconds, since the Deployment last
// changed, when no --timeout is given (kubectl would wait for ever): by
// then the controller has either finished the rollout or reported
// ProgressDeadlineExceeded.
const rolloutWaitMargin = sim.Minute

// rolloutFlags are the flags of every rollout subcommand; rolloutFlagsOf
// says which subcommand takes which.
var rolloutFlags = []Flag{
	FlagNamespace,
	{Name: "timeout", Value: "DURATION", Default: "0s", Usage: "status: how much virtual time to wait; 0 waits until the rollout ends"},
	{Name: "watch", Short: "w", Default: "true", Usage: "status: wait for the rollout to finish (--watch=false prints the status once)"},
	{Name: "revision", Value: "N", Default: "0", Usage: "status: the revision to follow; history: show that revision's pod template"},
	{Name: "to-revision", Value: "N", Default: "0", Usage: "undo: the revision to go back to (default: the previous one)"},
}

var rolloutFlagsOf = map[string][]string{
	"status":  {"timeout", "watch", "revision"},
	"history": {"revision"},
	"undo":    {"to-revision"},
}

var rolloutSubcommands = []string{"history", "pause", "restart", "resume", "status", "undo"}

func init() {
	register(&Command{
		Name:  "rollout",
		Usage: "rollout status|history|undo|pause|resume|restart (KIND NAME | KIND/NAME) [--timeout DURATION] [--watch=false] [--revision N] [--to-revision N]",
		Short: "follow, list, undo, pause, resume or restart a Deployment's rollouts",
		Long: `rollout works on a Deployment's rollouts, as kubectl rollout does:

  status   follow the rollout until it finishes, printing kubectl's lines; it
           advances virtual time while it waits (up to --timeout, or
           progressDeadlineSeconds plus a minute without a change)
  history  list the revisions (one per ReplicaSet) and their change-cause
           annotation; --revision N shows that revision's pod template
  undo     put the previous revision's pod template (or --to-revision N's)
           back: its old ReplicaSet becomes the new one again
  pause    stop rolling out template changes (spec.paused)
  resume   carry on rolling out
  restart  replace every pod, by stamping kubectl.kubernetes.io/restartedAt on
           the pod template (a new template, so a new rollout)`,
		Example: "rollout status deployment/api\nrollout history deployment/api\nrollout undo deployment/api --to-revision=1\nrollout restart deployment/api",
		Flags:   rolloutFlags,
		Complete: func(s *Session, args []string, word string) []string {
			if len(args) == 0 {
				return prefixed(rolloutSubcommands, word)
			}
			return completeKindSlashName(s, word)
		},
		Run: runRollout,
	})
}

func prefixed(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}

// completeKindSlashName offers deployment/NAME for the Deployments in the
// session's namespace.
func completeKindSlashName(s *Session, word string) []string {
	var out []string
	for _, o := range s.Eng.Store.List(kinds.Deployment, s.Namespace) {
		if c := "deployment/" + o.GetName(); strings.HasPrefix(c, word) {
			out = append(out, c)
		}
	}
	return out
}

func runRollout(s *Session, args []string, _ string) error {
	known := func(sub string) bool {
		i := sort.SearchStrings(rolloutSubcommands, sub)
		return i < len(rolloutSubcommands) && rolloutSubcommands[i] == sub
	}
	f, err := s.Parse(args)
	if err != nil {
		// The subcommand first, as kubectl: an unknown one is the error.
		if sub := FirstArg(s.cmd.Flags, args); sub != "" && !known(sub) {
			return usagef("unknown command %q for \"kubectl rollout\"", sub)
		}
		return err
	}
	if len(f.Args) == 0 {
		return usagef("rollout needs a subcommand: %s", strings.Join(rolloutSubcommands, ", "))
	}
	sub := f.Args[0]
	if !known(sub) {
		return usagef("unknown command %q for \"kubectl rollout\"", sub)
	}
	for _, fl := range []string{"timeout", "watch", "revision", "to-revision"} {
		if f.Changed(fl) && !contains(rolloutFlagsOf[sub], fl) {
			return usagef("unknown flag: --%s", fl)
		}
	}
	resources := f.Args[1:]
	if len(resources) == 0 {
		return kerrorf("required resource not specified")
	}
	refs, err := parseResources(resources, false)
	if err != nil {
		return err
	}
	targets, errs := findObjects(s, refs, findOpts{namespace: namespaceFlag(s, f)})
	if sub == "status" {
		if err := joinErrors(errs); err != nil {
			return err
		}
		if len(targets) != 1 {
			return kerrorf("rollout status is only supported on individual resources and resource collections - %d resources were found", len(targets))
		}
		return rolloutStatus(s, f, targets[0])
	}
	for _, t := range targets {
		var err error
		switch sub {
		case "history":
			err = rolloutHistory(s, f, t)
		case "undo":
			err = rolloutUndo(s, f, t)
		case "pause", "resume":
			err = rolloutPause(s, t, sub == "pause")
		case "restart":
			err = rolloutRestart(s, t)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func groupKind(k *kinds.Kind) string { return k.GroupVersionKind().GroupKind().String() }

// resourceName is "deployments.apps", as kubectl's patch errors name it.
func resourceName(k *kinds.Kind) string { return qualifiedResource(k) }

// --- status ---

// deploymentStatus is kubectl's DeploymentStatusViewer.Status.
func deploymentStatus(d *appsv1.Deployment, revision int64) (string, bool, error) {
	if revision > 0 {
		if rev := controller.Revision(d); rev != revision {
			return "", false, kerrorf("desired revision (%d) is different from the running revision (%d)", revision, rev)
		}
	}
	if d.Generation > d.Status.ObservedGeneration {
		return "Waiting for deployment spec update to be observed...\n", false, nil
	}
	if c := controller.GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing); c != nil && c.Reason == controller.TimedOutReason {
		return "", false, kerrorf("deployment %q exceeded its progress deadline", d.Name)
	}
	st := d.Status
	if d.Spec.Replicas != nil && st.UpdatedReplicas < *d.Spec.Replicas {
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d out of %d new replicas have been updated...\n", d.Name, st.UpdatedReplicas, *d.Spec.Replicas), false, nil
	}
	if st.Replicas > st.UpdatedReplicas {
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d old replicas are pending termination...\n", d.Name, st.Replicas-st.UpdatedReplicas), false, nil
	}
	if st.AvailableReplicas < st.UpdatedReplicas {
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d of %d updated replicas are available...\n", d.Name, st.AvailableReplicas, st.UpdatedReplicas), false, nil
	}
	return fmt.Sprintf("deployment %q successfully rolled out\n", d.Name), true, nil
}

// rolloutStatus prints the status for the Deployment as it is, then, as
// kubectl's watch does, once for every write to it, advancing virtual time
// until the rollout is done, fails, or the wait runs out.
func rolloutStatus(s *Session, f *Flags, t target) error {
	if t.kind != kinds.Deployment {
		return kerrorf("no status viewer has been implemented for %s", groupKind(t.kind))
	}
	timeout, err := f.Duration("timeout")
	if err != nil {
		return err
	}
	rev, err := f.Int("revision")
	if err != nil {
		return err
	}
	if rev < 0 {
		return kerrorf("revision must be a positive integer: %d", rev)
	}
	watch := f.Bool("watch")
	d := t.obj.(*appsv1.Deployment)
	ns, name, uid := d.Namespace, d.Name, d.UID

	done := false
	var failed error
	shown := 0
	show := func(d *appsv1.Deployment) {
		shown++
		msg, ok, err := deploymentStatus(d, int64(rev))
		if err != nil {
			failed, done = err, true
			return
		}
		fmt.Fprint(s.Out, msg)
		done = ok || !watch
	}
	show(d)
	if done {
		return failed
	}

	cursor := s.Eng.Store.Rev()
	// follow replays the writes to the Deployment since the cursor, as the
	// watch delivers them.
	follow := func() bool {
		evs, err := s.Eng.Store.SinceOf(cursor, kinds.Deployment)
		if err != nil { // compacted: read the object as it is
			evs = nil
			if o, ok := s.Eng.Store.Lookup(kinds.Deployment, ns, name); ok {
				evs = []store.Event{{Type: store.Modified, Kind: kinds.Deployment, Object: o}}
			}
		}
		for _, ev := range evs {
			if done {
				break
			}
			if ev.Kind != kinds.Deployment || ev.Object.GetNamespace() != ns || ev.Object.GetName() != name || ev.Object.GetUID() != uid {
				continue
			}
			if ev.Type == store.Deleted {
				failed, done = kerrorf("object has been deleted"), true
				break
			}
			show(ev.Object.(*appsv1.Deployment))
		}
		cursor = s.Eng.Store.Rev()
		return done
	}

	limit := sim.FromDuration(timeout)
	explicit := limit > 0
	if !explicit {
		limit = rolloutWaitMargin + 10*sim.Minute
		if controller.HasProgressDeadline(d) {
			limit = sim.Seconds(int64(*d.Spec.ProgressDeadlineSeconds)) + rolloutWaitMargin
		}
	}
	start := s.Eng.Now()
	deadline := start + limit
	// Advance a second of virtual time at a time, as delete's wait does,
	// so that Ctrl-C stops at a settled instant.
	for !done && s.Eng.Now() < deadline {
		if s.Interrupted() {
			return errInterrupted
		}
		step := min(sim.Second, deadline-s.Eng.Now())
		before := shown
		s.Eng.AdvanceUntil(follow, step)
		if !explicit && shown > before {
			// The Deployment changed: wait as long again from here, as
			// the controller's own progress deadline restarts.
			deadline = max(deadline, s.Eng.Now()+limit)
		}
	}
	if done {
		return failed
	}
	if explicit {
		return kerrorf("timed out waiting for the condition")
	}
	fmt.Fprintf(s.Err, "kubeloop stopped waiting after %s of virtual time; the rollout is not finished "+
		"(kubectl would wait for ever; use --timeout to choose, or --watch=false)\n", humanTicks(s.Eng.Now()-start))
	return nil
}

// --- history ---

// ownedReplicaSets are the ReplicaSets the Deployment controls, oldest
// first.
func ownedReplicaSets(s *Session, d *appsv1.Deployment) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, o := range s.Eng.Store.List(kinds.ReplicaSet, d.Namespace) {
		if ref := metav1.GetControllerOfNoCopy(o); ref != nil && ref.UID == d.UID {
			out = append(out, o.(*appsv1.ReplicaSet))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
	return out
}

// rolloutHistory is kubectl's DeploymentHistoryViewer.ViewHistory, printed
// through the name printer ("deployment.apps/api " and the table).
func rolloutHistory(s *Session, f *Flags, t target) error {
	if t.kind != kinds.Deployment {
		return kerrorf("no history viewer has been implemented for %q", groupKind(t.kind))
	}
	rev, err := f.Int("revision")
	if err != nil {
		return err
	}
	if rev < 0 {
		return kerrorf("revision must be a positive integer: %d", rev)
	}
	d := t.obj.(*appsv1.Deployment)
	templates := map[int64]*corev1.PodTemplateSpec{}
	causes := map[int64]string{}
	for _, rs := range ownedReplicaSets(s, d) {
		v, err := strconv.ParseInt(rs.Annotations[controller.RevisionAnnotation], 10, 64)
		if err != nil {
			continue
		}
		templates[v] = rs.Spec.Template.DeepCopy()
		causes[v] = rs.Annotations[changeCauseAnnotation]
		if causes[v] != "" {
			if templates[v].Annotations == nil {
				templates[v].Annotations = map[string]string{}
			}
			templates[v].Annotations[changeCauseAnnotation] = causes[v]
		} else {
			causes[v] = templates[v].Annotations[changeCauseAnnotation]
		}
	}
	var info string
	switch {
	case len(templates) == 0:
		info = "No rollout history found."
	case rev > 0:
		tpl, ok := templates[int64(rev)]
		if !ok {
			return kerrorf("unable to find the specified revision")
		}
		var b bytes.Buffer
		_ = printers.DescribePodTemplate(&b, tpl)
		info = b.String()
	default:
		revs := make([]int64, 0, len(templates))
		for r := range templates {
			revs = append(revs, r)
		}
		sort.Slice(revs, func(i, j int) bool { return revs[i] < revs[j] })
		var b bytes.Buffer
		tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		fmt.Fprintf(tw, "REVISION\tCHANGE-CAUSE\n")
		for _, r := range revs {
			cause := causes[r]
			if cause == "" {
				cause = "<none>"
			}
			fmt.Fprintf(tw, "%d\t%s\n", r, cause)
		}
		_ = tw.Flush()
		info = b.String()
	}
	with := ""
	if rev > 0 {
		with = fmt.Sprintf("with revision #%d", rev)
	}
	fmt.Fprintf(s.Out, "%s %s\n%s\n", t.ref(), with, info)
	return nil
}

// --- undo ---

// rollbackSkipAnnotations are kubectl's annotationsToSkip: kept from the
// Deployment, never copied from the ReplicaSet.
var rollbackSkipAnnotations = map[string]bool{
	corev1.LastAppliedConfigAnnotation:   true,
	controller.RevisionAnnotation:        true,
	controller.RevisionHistoryAnnotation: true,
	controller.DesiredReplicasAnnotation: true,
	controller.MaxReplicasAnnotation:     true,
	appsv1.DeprecatedRollbackTo:          true,
}

// rolloutUndo is kubectl's DeploymentRollbacker.Rollback.
func rolloutUndo(s *Session, f *Flags, t target) error {
	if t.kind != kinds.Deployment {
		return kerrorf("no rollbacker has been implemented for %s", groupKind(t.kind))
	}
	to, err := f.Int("to-revision")
	if err != nil {
		return err
	}
	if to < 0 {
		return kerrorf("unable to find specified revision %d in history", to)
	}
	d := t.obj.(*appsv1.Deployment)
	rs, err := revisionReplicaSet(s, d, int64(to))
	if err != nil {
		return err
	}
	if d.Spec.Paused {
		return kerrorf("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume deployment/%s' and try again", d.Name)
	}
	if controller.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
		fmt.Fprintf(s.Out, "%s skipped rollback (current template already matches revision %d)\n", t.ref(), to)
		return nil
	}
	cp := d.DeepCopy()
	cp.Spec.Template = *rs.Spec.Template.DeepCopy()
	delete(cp.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	annotations := map[string]string{}
	for k := range rollbackSkipAnnotations {
		if v, ok := d.Annotations[k]; ok {
			annotations[k] = v
		}
	}
	for k, v := range rs.Annotations {
		if !rollbackSkipAnnotations[k] {
			annotations[k] = v
		}
	}
	cp.Annotations = annotations
	if _, err := writeChange(s, cp, dryRunNone); err != nil {
		return kerrorf("failed restoring revision %d: %v", to, kubectlMessage(err))
	}
	fmt.Fprintf(s.Out, "%s rolled back\n", t.ref())
	return nil
}

// revisionReplicaSet finds the ReplicaSet of revision to, or for 0 the
// second-highest revision (kubectl's deploymentRevision).
func revisionReplicaSet(s *Session, d *appsv1.Deployment, to int64) (*appsv1.ReplicaSet, error) {
	var latest, previous *appsv1.ReplicaSet
	latestRev, previousRev := int64(-1), int64(-1)
	for _, rs := range ownedReplicaSets(s, d) {
		v, err := strconv.ParseInt(rs.Annotations[controller.RevisionAnnotation], 10, 64)
		if err != nil {
			continue
		}
		switch {
		case to > 0:
			if v == to {
				return rs, nil
			}
		case latestRev < v:
			previous, previousRev = latest, latestRev
			latest, latestRev = rs, v
		case previousRev < v:
			previous, previousRev = rs, v
		}
	}
	if to > 0 {
		return nil, kerrorf("unable to find specified revision %d in history", to)
	}
	if previous == nil {
		return nil, kerrorf("no rollout history found for deployment %q", d.Name)
	}
	return previous, nil
}

// --- pause, resume ---

func rolloutPause(s *Session, t target, pause bool) error {
	verb, noun := "paused", "pausing"
	if !pause {
		verb, noun = "resumed", "resuming"
	}
	d, ok := t.obj.(*appsv1.Deployment)
	if !ok {
		return kerrorf("%s %q %s is not supported", resourceName(t.kind), t.obj.GetName(), noun)
	}
	switch {
	case pause && d.Spec.Paused:
		return kerrorf("%s %q is already paused", resourceName(t.kind), d.Name)
	case !pause && !d.Spec.Paused:
		return kerrorf("%s %q is not paused", resourceName(t.kind), d.Name)
	}
	cp := d.DeepCopy()
	cp.Spec.Paused = pause
	if _, err := writeChange(s, cp, dryRunNone); err != nil {
		return kerrorf("failed to patch: %v", kubectlMessage(err))
	}
	fmt.Fprintf(s.Out, "%s %s\n", t.ref(), verb)
	return nil
}

// --- restart ---

// rolloutRestart stamps the pod template with the virtual time, in
// RFC 3339 as kubectl's time.Now().Format(time.RFC3339) does.
func rolloutRestart(s *Session, t target) error {
	d, ok := t.obj.(*appsv1.Deployment)
	if !ok {
		return kerrorf("%s %q restarting is not supported", resourceName(t.kind), t.obj.GetName())
	}
	if d.Spec.Paused {
		return kerrorf("%s %q can't restart paused deployment (run rollout resume first)", resourceName(t.kind), d.Name)
	}
	cp := d.DeepCopy()
	if cp.Spec.Template.Annotations == nil {
		cp.Spec.Template.Annotations = map[string]string{}
	}
	cp.Spec.Template.Annotations[restartedAtAnnotation] = s.Eng.Now().Time().Format(time.RFC3339)
	if equality.Semantic.DeepEqual(cp.Spec.Template, d.Spec.Template) {
		return kerrorf("failed to create patch for %s: if restart has already been triggered within the past second, please wait before attempting to trigger another", d.Name)
	}
	if _, err := writeChange(s, cp, dryRunNone); err != nil {
		return kerrorf("failed to patch: %v", kubectlMessage(err))
	}
	fmt.Fprintf(s.Out, "%s restarted\n", t.ref())
	return nil
}
