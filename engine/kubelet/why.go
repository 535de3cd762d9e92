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
	whyStatus        = "The kubelet reports what it sees through the pod's status; the pod is Running once all its containers started, Ready once all are ready."
	whyKilling       = "Deleting a pod asks its kubelet to stop it gracefully: the stop signal first, SIGKILL only if the process outlives the grace period."
	whySIGKILL       = "A process that ignores its stop signal is killed when the grace period runs out, which is why such pods take 30 s to delete."
	whyExited        = "The process handled its stop signal and shut down cleanly within the grace period."
	whyForceDeleted  = "A force deletion removes the pod from the API at once, but the containers still run until the kubelet stops them."
	whyTerminal      = "Before the pod object goes, the kubelet records how it ended, so its final phase is visible."
	whyDelete        = "Only the kubelet can confirm a pod's containers have stopped, so it removes the pod object for good (grace period 0)."
)
