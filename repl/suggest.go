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

// levenshtein is the edit distance between a and b: insertions, deletions
// and substitutions of bytes, plus swaps of two adjacent bytes (the
// "optimal string alignment" variant), because "gte" is one slip from
// "get", not two.
func levenshtein(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
