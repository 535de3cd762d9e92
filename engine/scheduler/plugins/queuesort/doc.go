// Package queuesort is the PrioritySort plugin: the order of the activeQ.
package queuesort
