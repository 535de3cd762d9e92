package repl

import (
	"fmt"
	"strings"
)

// unknownCommand names the nearest command, by edit distance, when one is
// close enough to be a typo.
func unknownCommand(name string) error {
	if best := nearest(name, commandWords()); best != "" {
		return fmt.Errorf("unknown command %q; did you mean %q? (type help for the list)", name, best)
	}
	return fmt.Errorf("unknown command %q (type help for the list)", name)
}

// nearest returns the candidate closest to word by Levenshtein distance,
// if it is within a third of the word's length (at least 1, at most 3); the
// first in candidates' order wins a tie.
func nearest(word string, candidates []string) string {
	limit := min(max(len(word)/3, 1), 3)
	best, bestD := "", limit+1
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if d := levenshtein(lw, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// levenshtein is the edit distance between a and b (insertions, deletions
// and substitutions of bytes).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
