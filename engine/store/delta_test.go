package store

import (
	"bytes"
	"strings"
	"testing"
)

// A delta rebuilds its version exactly, and costs what changed: a name
// of the same length an append, a longer one a copy at an offset after it.
func TestDeltaRebuildsAndCostsWhatChanged(t *testing.T) {
	ref := "\n\x19app-0097-f9744588d-qmq7j\x12\adefault\x1a\x06Pulled\"hSuccessfully pulled image \"nginx:1.27\" in 400ms (15.442s including waiting). Image size: 68857691 bytes."
	for _, c := range []struct {
		name, version string
		atMost        int
	}{
		{"the same", ref, 3},
		{"a name of the same length", strings.Replace(ref, "qmq7j", "zzq7k", 1), 12},
		{"a longer name", strings.Replace(ref, "f9744588d", "f9744588dd", 1), 10},
		{"a shorter name", strings.Replace(ref, "f9744588d", "f97488d", 1), 8},
		{"a duration", strings.Replace(ref, "15.442s", "9.1s", 1), 12},
		{"moved parts", ref[60:] + ref[:60], 10},
		{"empty", "", 0},
		{"nothing in common", strings.Repeat("\xff", 40), 42},
		{"longer than the reference", ref + ref + "tail", 20},
		{"a prefix", ref[:50], 3},
		{"a uid", strings.Replace(ref, "default", "9fe6992d-c808-4e10-a1a4-000000000007", 1), 23},
		{"a uid in capitals", strings.Replace(ref, "default", "9FE6992D-C808-4E10-A1A4-000000000007", 1), 42},
		{"a uid cut short", strings.Replace(ref, "default", "9fe6992d-c808-4e10-a1a4-00000000000", 1), 42},
		{"a uid's dashes with other bytes", strings.Replace(ref, "default", "9fe6992d-c808-4e10-a1a4-00000000000g", 1), 42},
		{"two uids", "x9fe6992d-c808-4e10-a1a4-000000000007e718f8f2-6771-407f-ab84-7a87addcd1d9y", 40},
	} {
		idx := newRefIndex(ref)
		d := idx.diff(nil, []byte(c.version))
		got, ok := patch(nil, ref, string(d))
		if !ok || string(got) != c.version {
			t.Errorf("%s: the delta rebuilds %q (ok=%v); want %q", c.name, got, ok, c.version)
		}
		if len(d) > c.atMost {
			t.Errorf("%s: the delta is %d bytes; want at most %d", c.name, len(d), c.atMost)
		}
	}
}

// patch refuses what is not a delta of its reference, without panicking.
func TestPatchRefusesBadDeltas(t *testing.T) {
	ref := "abcdefgh"
	for _, d := range []string{
		"\x80",                        // a cut uvarint
		"\x23",                        // op 3 of other than a UUID's length
		"\x93\x01abc",                 // a UUID cut short
		string([]byte{9 << 2}),        // a copy past the reference's end
		"\x05",                        // a copy at an offset that is missing
		"\x05\x11",                    // a copy before the reference's start
		string([]byte{5<<2 | 2, 'a'}), // a literal cut short
		"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", // a huge length
	} {
		if _, ok := patch(nil, ref, d); ok {
			t.Errorf("patch accepted %q", d)
		}
	}
}

// FuzzDelta: any version's delta against any reference rebuilds it, and
// patch never panics on any bytes.
func FuzzDelta(f *testing.F) {
	f.Add("\n\x19app-0097-f9744588d-qmq7j\x12\adefault", "\n\x19app-0098-f9744588d-abcde\x12\adefault", "\x05\x11")
	f.Add("", "x", "")
	f.Add("*$00b9f0de-b007-42bb-a476-55779df9b8a42", "*$e718f8f2-6771-407f-ab84-7a87addcd1d92", "\x93\x01e718f8f2-6771-407f")
	f.Add("aaaaaaaaaaaaaaaa", "aaaabaaaaaaaacaaaa", "\x09\x00")
	f.Fuzz(func(t *testing.T, ref, version, junk string) {
		d := newRefIndex(ref).diff(nil, []byte(version))
		got, ok := patch(nil, ref, string(d))
		if !ok || !bytes.Equal(got, []byte(version)) {
			t.Fatalf("the delta of %q against %q rebuilds %q (ok=%v)", version, ref, got, ok)
		}
		patch(nil, ref, junk)
	})
}

// A copy takes back from the literal before it the bytes that precede
// what it copies in the reference: a gram whose slot in the index holds
// another gram's position is not found, and without that the bytes after
// a longer node name in a kubelet's Event stayed a literal. A node name
// one digit longer, at every place of a reference long enough that some
// grams share a slot: no literal ends in the byte before its copy's
// source.
func TestCopyTakesBackTheLiteralBeforeIt(t *testing.T) {
	ref := "\x04\x00\x00\x00\x00\n\x10\n\x00\x12\x00\x1a\x00\"\x00*\x002\x008\x00B\x00\x121\n\x03Pod\x12\x00\x1a\x00\"\x00*\x02v12\x0553310:\x19spec.containers{app-0000}" +
		"\x1a\aPulling\"\x1aPulling image \"nginx:1.27\"*\x13\n\akubelet\x12\bnode-147\x32\x00:\x00@\x01J\x06NormalR\x00b\x00r\x00z\x00"
	idx := newRefIndex(ref)
	for at := range len(ref) {
		version := ref[:at] + "7" + ref[at:]
		d := idx.diff(nil, []byte(version))
		if got, ok := patch(nil, ref, string(d)); !ok || string(got) != version {
			t.Fatalf("a byte inserted at %d: the delta rebuilds %q (ok=%v)", at, got, ok)
		}
		var lastLit byte
		cur, afterLit := 0, false
		for rest := string(d); len(rest) > 0; {
			op, k := uvarint(rest)
			rest = rest[k:]
			n := int(op >> 2)
			switch op & 3 {
			case opCopyAt:
				z, k := uvarint(rest)
				rest = rest[k:]
				cur += unzigzag(z)
				fallthrough
			case opCopy:
				if afterLit && cur > 0 && ref[cur-1] == lastLit {
					t.Errorf("a byte inserted at %d: the literal before a copy of %d at %d ends in %q, the byte before it", at, n, cur, lastLit)
				}
				afterLit = false
			case opLiteral:
				lastLit, afterLit = rest[n-1], true
				rest = rest[n:]
			case opUUID:
				rest, afterLit = rest[16:], false
			}
			cur += n
		}
	}
}

// resync finds where a literal ends: the bytes after it go on as the
// reference does at the same offset, or one byte off either way.
func TestResync(t *testing.T) {
	const tail = "\x00:\x00@\x01J\x06NormalR\x00b\x00"
	for _, c := range []struct {
		name     string
		ref, b   string
		kb, kr   int
		wantNone bool
	}{
		{name: "a suffix of the same length", ref: "qmq7j" + tail, b: "zzq7k" + tail, kb: 5, kr: 5},
		{name: "one byte more", ref: "02" + tail, b: "102" + tail, kb: 1, kr: 0},
		{name: "one byte less", ref: "102" + tail, b: "02" + tail, kb: 1, kr: 2},
		{name: "a uid", ref: "fcfde81a-5d51-4c7c-aba1-4e01183d00bf" + tail, b: "89e666f1-ce29-44f5-9c9e-738c5d62944e" + tail, kb: 36, kr: 36},
		{name: "two more bytes", ref: "3" + tail, b: "168" + tail, wantNone: true},
		{name: "past the window", ref: strings.Repeat("a", 50) + tail, b: strings.Repeat("b", 50) + tail, wantNone: true},
		{name: "too short to say", ref: "ab1234567", b: "cd1234567", wantNone: true},
	} {
		kb, kr := resync(c.ref, []byte(c.b))
		if c.wantNone {
			c.kb, c.kr = 0, 0
		}
		if kb != c.kb || kr != c.kr {
			t.Errorf("%s: resync = %d, %d; want %d, %d", c.name, kb, kr, c.kb, c.kr)
		}
	}
}
