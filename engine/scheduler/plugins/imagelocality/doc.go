// Package imagelocality is the ImageLocality plugin: prefer nodes that
// already have the pod's images (node.status.images, which kubelets report),
// weighted by how widely each image has spread, so that one node with a
// rare image does not attract every pod (the "node heating" problem).
package imagelocality
