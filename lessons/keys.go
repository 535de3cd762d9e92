package lessons

import (
	"reflect"
	"strconv"
	"strings"
)

// yamlKeys lists the YAML keys of a struct, for "unknown key" errors.
func yamlKeys(v any) []string {
	t := reflect.TypeOf(v)
	var out []string
	for i := range t.NumField() {
		tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
		if tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
