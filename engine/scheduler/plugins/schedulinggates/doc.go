// Package schedulinggates is the SchedulingGates plugin: a pod with
// spec.schedulingGates waits outside the activeQ until every gate is removed.
package schedulinggates
