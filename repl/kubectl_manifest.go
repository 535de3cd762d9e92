package repl

// Reading -f: files, directories (with -R, recursively) and "-" for the
// here-document, as kubectl's resource builder reads them.

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// manifestFile is one source of manifests: a file's name as kubectl names
// it in messages ("STDIN" for -) and its bytes.
type manifestFile struct {
	source string // the path as found; "-" for the here-document
	data   []byte
}

// manifestExtensions are the files kubectl reads from a directory.
var manifestExtensions = []string{".json", ".yaml", ".yml"}

// readManifestFiles reads every -f argument: "-" is the here-document, a
// directory contributes its .json, .yaml and .yml files in lexical order
// (subdirectories only with recursive), a file is read whatever its name.
func readManifestFiles(files []string, recursive bool, input string) ([]manifestFile, error) {
	var out []manifestFile
	for _, name := range files {
		if name == "-" {
			out = append(out, manifestFile{source: "-", data: []byte(input)})
			continue
		}
		info, err := os.Stat(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, kerrorf("the path %q does not exist", name)
			}
			return nil, kerrorf("%v", err)
		}
		if !info.IsDir() {
			data, err := os.ReadFile(name)
			if err != nil {
				return nil, kerrorf("%v", err)
			}
			out = append(out, manifestFile{source: name, data: data})
			continue
		}
		var paths []string
		err = filepath.WalkDir(name, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != name && !recursive {
					return filepath.SkipDir
				}
				return nil
			}
			for _, ext := range manifestExtensions {
				if filepath.Ext(path) == ext {
					paths = append(paths, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, kerrorf("%v", err)
		}
		sort.Strings(paths) // WalkDir is lexical already; say so in code
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, kerrorf("%v", err)
			}
			out = append(out, manifestFile{source: p, data: data})
		}
	}
	if len(out) == 0 {
		return nil, kerrorf("no objects passed to apply")
	}
	return out, nil
}

// manifestRef is what kubectl needs of a document to address its object:
// kind, name and namespace.
type manifestRef struct {
	source    string
	kind      *kinds.Kind
	name      string
	namespace string
}

// readManifestTargets reads the objects that -f names, for delete (and any
// command that only addresses objects): kubectl's builder reads apiVersion,
// kind and metadata and nothing else. A document's namespace must agree with
// an explicit -n, as kubectl requires.
func readManifestTargets(s *Session, files []string, recursive bool, input, ns string, explicitNS bool) ([]manifestRef, error) {
	srcs, err := readManifestFiles(files, recursive, input)
	if err != nil {
		return nil, err
	}
	var out []manifestRef
	for _, src := range srcs {
		dec := yaml.NewDecoder(bytes.NewReader(src.data))
		for {
			var doc struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Metadata   struct {
					Name      string `yaml:"name"`
					Namespace string `yaml:"namespace"`
				} `yaml:"metadata"`
				Items []struct {
					APIVersion string `yaml:"apiVersion"`
					Kind       string `yaml:"kind"`
					Metadata   struct {
						Name      string `yaml:"name"`
						Namespace string `yaml:"namespace"`
					} `yaml:"metadata"`
				} `yaml:"items"`
			}
			err := dec.Decode(&doc)
			if err == io.EOF {
				break
			}
			source := sourceName(src.source)
			if err != nil {
				return nil, kerrorf("error parsing %s: error converting YAML to JSON: %v", source, err)
			}
			type item struct{ apiVersion, kind, name, namespace string }
			items := []item{{doc.APIVersion, doc.Kind, doc.Metadata.Name, doc.Metadata.Namespace}}
			if doc.Kind == "List" {
				items = items[:0]
				for _, it := range doc.Items {
					items = append(items, item{it.APIVersion, it.Kind, it.Metadata.Name, it.Metadata.Namespace})
				}
			}
			for _, it := range items {
				if it.apiVersion == "" && it.kind == "" {
					continue // an empty document
				}
				k, ok := kinds.ForGVK(it.apiVersion, it.kind)
				if !ok {
					return nil, kerrorf("resource mapping not found for name: %q namespace: %q from %q: no matches for kind %q in version %q\nensure CRDs are installed first",
						it.name, it.namespace, source, it.kind, it.apiVersion)
				}
				objNS := ""
				if k.Namespaced {
					objNS = it.namespace
					if objNS == "" {
						objNS = ns
					} else if explicitNS && objNS != ns {
						return nil, kerrorf("the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.",
							objNS, ns, objNS)
					}
				}
				out = append(out, manifestRef{source: source, kind: k, name: it.name, namespace: objNS})
			}
		}
	}
	return out, nil
}

// sourceName is how kubectl names a source in messages.
func sourceName(source string) string {
	if source == "-" {
		return "STDIN"
	}
	return source
}

// isNotFound reports whether err is the API server's NotFound.
func isNotFound(err error) bool { return apierrors.IsNotFound(err) }
