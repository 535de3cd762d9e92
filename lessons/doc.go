// Package lessons is kubeloop's guided course and the instructor's
// toolchain: the lesson format (YAML, decoded strictly), the loader that
// rejects unknown keys, wrong expressions and missing files with
// FILE:LINE and the step, the guided mode that follows a learner in the
// REPL (the `lesson` command), progress kept under the user's config
// directory, and the checker that runs a lesson's solution, requires every
// step's check to pass in order and compares the transcript with the golden
// file beside the lesson.
//
// The course lives in course/: NN-name.yaml, and beside it NN-name.golden,
// the transcript of its solution under its fixed seed (what a learner who
// follows the solution sees, then the whole trace). Goldens sit beside their
// lessons rather than in a top-level golden/ directory (STYLE.md rule 14
// allows either) so that both are embedded in the binary: `kubeloop lesson
// check` verifies the built-in course anywhere, and an instructor shares a
// lesson as one file and its transcript. TestCourse replays every lesson;
// `go test ./lessons -rewrite` rewrites the goldens (read every changed line
// before committing).
package lessons
