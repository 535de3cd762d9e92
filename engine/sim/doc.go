// Package sim holds the simulation's clock, its event loop and its seeded
// randomness: the three things that make kubeloop deterministic.
//
// Determinism contract. Virtual time is a Tick (milliseconds) owned by the
// Loop and only ever moved by it. Timed work is a heap ordered by (tick,
// sequence number), so two timers due at the same tick run in the order they
// were set. All randomness comes from one root seed; each component gets its
// own Rand derived from the root in a fixed order, so adding draws in one
// component does not shift another's. Nothing in engine/ reads the wall clock,
// starts a goroutine, touches os, or ranges over a map in an order that can
// reach behaviour or output: the same commands with the same seed give the
// same bytes.
package sim
