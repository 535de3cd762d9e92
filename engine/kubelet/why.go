package kubelet

// The annotations of the kubelet's trace steps: one true sentence each on
// why Kubernetes takes the step, for a learner.
const (
	whyIPAM          = "The controller manager gives each node its own pod CIDR, so pod IPs never collide across nodes."
	whyStart         = "A node joins the cluster when its kubelet starts and registers it; the kubelet is the only component that runs pods there."
	whyLabels        = "Every kubelet labels its node with hostname, OS and architecture, which nodeSelectors and topology spread rely on."
	whyNodeStatus    = "The kubelet reports the node's conditions, addresses and capacity; the scheduler only places pods on nodes that report Ready."
	whyNodeImages    = "The kubelet lists the images cached on its node; the scheduler's ImageLocality plugin prefers nodes that already have a pod's images."
	whyLease         = "A Lease renewed every 10 s is the node's cheap heartbeat; if it stops, the node lifecycle controller marks the node unreachable."
	whyAdmit         = "The kubelet watches for pods bound to its node and takes them on; until all their containers run they are Pending."
	whyNotSimulated  = "kubeloop says what it does not simulate rather than skipping it silently."
	whySandbox       = "Each pod first gets a sandbox (the pause container) holding its network namespace; the pod's IP comes from it and all its containers share it."
	whySandboxFailed = "The network plugin could not give the pod an IP, so its sandbox cannot start; the kubelet keeps retrying."
	whyPresent       = "With imagePullPolicy IfNotPresent the kubelet reuses an image already on the node, so nothing is downloaded."
	whyPulling       = "The kubelet makes sure the image is on the node before it can create the container; pulls are cached per node."
	whyPullingQueued = "The kubelet makes sure the image is on the node before it can create the container; it pulls one image at a time (serializeImagePulls), so this pull waits its turn."
	whyPulled        = "A pull takes time in proportion to the image's size; the node now keeps the image for later pods."
	whyPullFailed    = "The container runtime could not fetch the image, so the container cannot be created; the kubelet reports ErrImagePull and retries with a back-off."
	whyBackOff       = "Failed pulls are retried with exponential back-off (10 s doubling to 5 min), so a wrong image name does not hammer the registry."
	whyNeverPull     = "imagePullPolicy Never forbids pulling: the image must already be on the node."
	whyInvalidImage  = "The image reference cannot be parsed, so there is nothing to pull; only changing the pod's image fixes it."
	whyCreated       = "The container runtime creates the container from the image: its filesystem, command, environment and limits."
	whyStarted       = "Starting the container runs the image's process; without a readiness probe the kubelet counts it ready as soon as it runs."
	whyStartedProbed = "Starting the container runs its process; with a readiness probe the kubelet counts it ready only once that probe passes."
	whyStatus        = "The kubelet reports what it sees through the pod's status; the pod is Running once all its containers started, Ready once all are ready."
	whyKilling       = "Deleting a pod asks its kubelet to stop it gracefully: the stop signal first, SIGKILL only if the process outlives the grace period."
	whySIGKILL       = "A process that ignores its stop signal is killed when the grace period runs out, which is why such pods take 30 s to delete."
	whyExited        = "The process handled its stop signal and shut down cleanly within the grace period."
	whyForceDeleted  = "A force deletion removes the pod from the API at once, but the containers still run until the kubelet stops them."
	whyTerminal      = "Before the pod object goes, the kubelet records how it ended, so its final phase is visible."
	whyDelete        = "Only the kubelet can confirm a pod's containers have stopped, so it removes the pod object for good (grace period 0)."
)

// The annotations of the Maintain steps: crashes, restarts and probes.
const (
	whyStartError   = "The container runtime could not start the command: it is not in the image. The container ends at once with exit code 128 (StartError) and is restarted as restartPolicy says, behind the crash back-off."
	whyCrashed      = "A container's main process ended; the kubelet reports the exit code and, as restartPolicy says, restarts it in place: same pod, same IP, a new container."
	whyOOM          = "The kernel killed the process because its cgroup passed the container's memory limit; containerd reports it as OOMKilled with exit code 137."
	whyProbeKilled  = "A container killed for failing its probe ends like any other; what happens next is restartPolicy's decision."
	whyCrashBackOff = "A container that keeps exiting is restarted with a growing delay (10 s doubling to 5 min), so a broken container does not keep the node busy; the pod shows CrashLoopBackOff meanwhile."
	whyRestart      = "restartPolicy asks the kubelet to restart the container; the crash back-off decides when, and 10 minutes of running resets it."
	whyLivenessKill = "A failing liveness (or startup) probe means the container is stuck: the kubelet kills it with the pod's grace period and lets restartPolicy restart it."
	whyUnready      = "A failing readiness probe only marks the container not ready: the pod's Ready condition turns False and Services stop sending it traffic; it is never restarted for that."
	whyReady        = "The readiness probe passed, so the container is ready; once all its containers are, the pod is Ready and its Services route to it."
	whyStartupDone  = "A startup probe holds back the liveness and readiness probes until the application has started, so a slow start is not mistaken for a hang."
	whyBroken       = "You broke the endpoint by hand; the kubelet only notices through a probe, at that probe's next period."
	whyHealed       = "The endpoint answers again; the probe notices at its next period."
	whyNoProbe      = "Kubernetes only knows what its probes tell it: without a probe on this endpoint, a broken application stays Running and Ready."
)

// whyProbeFailing explains a probe's first failure in a run, by probe type.
var whyProbeFailing = [numProbeKinds]string{
	"The liveness probe failed; one failure is not enough: the kubelet acts after failureThreshold failures in a row.",
	"The readiness probe failed; after failureThreshold failures in a row the container is marked not ready (it is never restarted for this).",
	"The startup probe failed; the application has failureThreshold × periodSeconds to start before the kubelet restarts it.",
}

// whyThreshold explains a liveness or startup probe reaching its threshold.
var whyThreshold = [numProbeKinds]string{
	"failureThreshold consecutive liveness failures tell the kubelet the container is stuck: it restarts it.",
	"",
	"The application did not start within initialDelaySeconds + failureThreshold × periodSeconds: the kubelet restarts it.",
}
