package printers

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// ToJSONValue returns obj in its Kubernetes JSON shape, exactly what
// json.Unmarshal into an `any` gives for the bytes the API server sends:
// map[string]any for objects, []any for arrays, float64 for numbers, string,
// bool and nil. apiVersion and kind are always set, from the object's type.
//
// It walks the typed object directly (with per-type plans built once by
// reflection, following encoding/json's rules and the MarshalJSON methods of
// metav1.Time, MicroTime, resource.Quantity and intstr.IntOrString) instead
// of marshalling and unmarshalling, which costs about half the CPU. The
// result is freshly allocated and shares nothing with obj.
func ToJSONValue(obj kinds.Object) map[string]any {
	m := encodeValue(reflect.ValueOf(obj)).(map[string]any)
	k := kinds.Of(obj)
	m["apiVersion"] = k.APIVersion()
	m["kind"] = k.Kind
	return m
}

// ToJSONValues converts a list of objects with ToJSONValue. Long lists are
// converted on all CPUs: each object is independent and the cost is almost
// all allocation, so this is the one lever that halves `until` over 10,000
// pods. The result does not depend on the scheduling.
func ToJSONValues(objs []kinds.Object) []any {
	out := make([]any, len(objs))
	convertAll(len(objs), func(i int) { out[i] = ToJSONValue(objs[i]) })
	return out
}

// parallelMin is the list length from which conversion is spread over CPUs.
const parallelMin = 512

// convertAll calls f(0..n-1), in parallel chunks for long lists.
func convertAll(n int, f func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < parallelMin || workers < 2 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// JSONCache converts objects to their JSON shape once and hands out the same
// value while the object is unchanged. Objects in kubeloop's store are
// immutable (a write stores a new object), so an object pointer with the same
// resourceVersion always has the same JSON shape; repeated `until` and
// `assert` evaluations over thousands of pods then only pay for the objects
// that changed. The returned values are shared: callers must not modify
// them. The zero JSONCache is ready to use; it is not safe for concurrent use.
type JSONCache struct {
	entries map[kinds.Object]*cacheEntry
	gen     uint64
}

type cacheEntry struct {
	rv   string
	val  map[string]any
	seen uint64
}

// Value returns obj's JSON shape, from the cache when obj is unchanged.
func (c *JSONCache) Value(obj kinds.Object) map[string]any {
	if c.entries == nil {
		c.entries = map[kinds.Object]*cacheEntry{}
	}
	e := c.entries[obj]
	if e == nil || e.rv != obj.GetResourceVersion() {
		e = &cacheEntry{rv: obj.GetResourceVersion(), val: ToJSONValue(obj)}
		c.entries[obj] = e
	}
	e.seen = c.gen
	return e.val
}

// Values returns the JSON shapes of objs, as a list for expressions; the
// objects not in the cache are converted as ToJSONValues does.
func (c *JSONCache) Values(objs []kinds.Object) []any {
	if c.entries == nil {
		c.entries = map[kinds.Object]*cacheEntry{}
	}
	out := make([]any, len(objs))
	var miss []int
	for i, o := range objs {
		if e := c.entries[o]; e != nil && e.rv == o.GetResourceVersion() {
			e.seen = c.gen
			out[i] = e.val
		} else {
			miss = append(miss, i)
		}
	}
	vals := make([]map[string]any, len(miss))
	convertAll(len(miss), func(j int) { vals[j] = ToJSONValue(objs[miss[j]]) })
	for j, i := range miss {
		o := objs[i]
		c.entries[o] = &cacheEntry{rv: o.GetResourceVersion(), val: vals[j], seen: c.gen}
		out[i] = vals[j]
	}
	return out
}

// Sweep forgets every object not asked for since the previous Sweep, so the
// cache holds at most the objects of the last evaluation. Call it once per
// evaluation round (for instance after each `until` check).
func (c *JSONCache) Sweep() {
	for k, e := range c.entries {
		if e.seen != c.gen {
			delete(c.entries, k)
		}
	}
	c.gen++
}

// Len is the number of cached objects.
func (c *JSONCache) Len() int { return len(c.entries) }

// encoder turns a reflect.Value of one type into its JSON value.
type encoder func(v reflect.Value) any

var encoders sync.Map // reflect.Type -> encoder

var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	durationType  = reflect.TypeFor[metav1.Duration]()
	quantityType  = reflect.TypeFor[resource.Quantity]()
	intOrStrType  = reflect.TypeFor[intstr.IntOrString]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshType = reflect.TypeFor[encoding.TextMarshaler]()
)

// smallNumbers holds the boxed float64 values 0..1023: counts, ports,
// seconds and replicas are mostly small, and boxing one allocates.
var smallNumbers = func() (a [1024]any) {
	for i := range a {
		a[i] = float64(i)
	}
	return a
}()

func number(i int64) any {
	if i >= 0 && i < int64(len(smallNumbers)) {
		return smallNumbers[i]
	}
	return float64(i)
}

// valueOf reads a T out of v without boxing it when v is addressable (the
// usual case: values reached through the object pointer).
func valueOf[T any](v reflect.Value) T {
	if v.CanAddr() {
		return *v.Addr().Interface().(*T)
	}
	return v.Interface().(T)
}

func encodeValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	return encoderFor(v.Type())(v)
}

// encoderFor returns the (cached) encoder of t. Recursive types get an
// indirection that resolves once the real encoder is built.
func encoderFor(t reflect.Type) encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(encoder)
	}
	var (
		wg sync.WaitGroup
		f  encoder
	)
	wg.Add(1)
	e, loaded := encoders.LoadOrStore(t, encoder(func(v reflect.Value) any {
		wg.Wait()
		return f(v)
	}))
	if loaded {
		return e.(encoder)
	}
	f = newEncoder(t)
	wg.Done()
	encoders.Store(t, f)
	return f
}

func newEncoder(t reflect.Type) encoder {
	// The API machinery types with their own MarshalJSON, done by hand for
	// speed: these are in every object.
	switch t {
	case timeType:
		return func(v reflect.Value) any {
			tm := valueOf[metav1.Time](v)
			if tm.IsZero() {
				return nil
			}
			return tm.UTC().Format(time.RFC3339)
		}
	case microTimeType:
		return func(v reflect.Value) any {
			tm := valueOf[metav1.MicroTime](v)
			if tm.IsZero() {
				return nil
			}
			return tm.UTC().Format(metav1.RFC3339Micro)
		}
	case durationType:
		return func(v reflect.Value) any { return valueOf[metav1.Duration](v).Duration.String() }
	case quantityType:
		return func(v reflect.Value) any {
			q := valueOf[resource.Quantity](v) // a copy: String caches its result
			return q.String()
		}
	case intOrStrType:
		return func(v reflect.Value) any {
			is := valueOf[intstr.IntOrString](v)
			if is.Type == intstr.String {
				return is.StrVal
			}
			return number(int64(is.IntVal))
		}
	}
	if t.Kind() != reflect.Pointer && t.Implements(marshalerType) {
		return marshalerEncoder
	}
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(marshalerType) {
		return addrMarshalerEncoder
	}
	if t.Kind() != reflect.Pointer && t.Implements(textMarshType) {
		return func(v reflect.Value) any {
			b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				panic("printers: MarshalText: " + err.Error())
			}
			return string(b)
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(v reflect.Value) any { return v.Bool() }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) any { return number(v.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(v reflect.Value) any {
			if u := v.Uint(); u < uint64(len(smallNumbers)) {
				return smallNumbers[u]
			}
			return float64(v.Uint())
		}
	case reflect.Float32, reflect.Float64:
		return func(v reflect.Value) any { return v.Float() }
	case reflect.String:
		return func(v reflect.Value) any { return v.String() }
	case reflect.Interface:
		return func(v reflect.Value) any {
			if v.IsNil() {
				return nil
			}
			return encodeValue(v.Elem())
		}
	case reflect.Pointer:
		ee := encoderFor(t.Elem())
		return func(v reflect.Value) any {
			if v.IsNil() {
				return nil
			}
			return ee(v.Elem())
		}
	case reflect.Struct:
		return newStructEncoder(t)
	case reflect.Map:
		return newMapEncoder(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(marshalerType) {
			return func(v reflect.Value) any {
				if v.IsNil() {
					return nil
				}
				return base64.StdEncoding.EncodeToString(v.Bytes())
			}
		}
		ee := encoderFor(t.Elem())
		return func(v reflect.Value) any {
			if v.IsNil() {
				return nil
			}
			out := make([]any, v.Len())
			for i := range out {
				out[i] = ee(v.Index(i))
			}
			return out
		}
	case reflect.Array:
		ee := encoderFor(t.Elem())
		return func(v reflect.Value) any {
			out := make([]any, v.Len())
			for i := range out {
				out[i] = ee(v.Index(i))
			}
			return out
		}
	}
	panic("printers: cannot encode type " + t.String() + " as JSON")
}

// marshalerEncoder is the slow path for other types with a MarshalJSON:
// marshal, then decode into an any.
func marshalerEncoder(v reflect.Value) any {
	if v.Kind() == reflect.Interface && v.IsNil() {
		return nil
	}
	return decodeMarshaler(v.Interface().(json.Marshaler))
}

func addrMarshalerEncoder(v reflect.Value) any {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return decodeMarshaler(p.Interface().(json.Marshaler))
}

func decodeMarshaler(m json.Marshaler) any {
	b, err := m.MarshalJSON()
	if err != nil {
		panic("printers: MarshalJSON: " + err.Error())
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic("printers: MarshalJSON output: " + err.Error())
	}
	return out
}

func newMapEncoder(t reflect.Type) encoder {
	kt := t.Key()
	var keyString func(reflect.Value) string
	switch {
	case kt.Kind() == reflect.String:
		keyString = func(k reflect.Value) string { return k.String() }
	case kt.Implements(textMarshType):
		keyString = func(k reflect.Value) string {
			b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				panic("printers: map key: " + err.Error())
			}
			return string(b)
		}
	case kt.Kind() >= reflect.Int && kt.Kind() <= reflect.Int64:
		keyString = func(k reflect.Value) string { return strconv.FormatInt(k.Int(), 10) }
	case kt.Kind() >= reflect.Uint && kt.Kind() <= reflect.Uintptr:
		keyString = func(k reflect.Value) string { return strconv.FormatUint(k.Uint(), 10) }
	default:
		panic("printers: unsupported map key type " + kt.String())
	}
	ee := encoderFor(t.Elem())
	return func(v reflect.Value) any {
		if v.IsNil() {
			return nil
		}
		out := make(map[string]any, v.Len())
		// Copy each entry into one addressable key and value: MapIter's
		// Key and Value allocate a copy per entry, and an addressable
		// value lets the Quantity and Time encoders read it in place.
		key := reflect.New(kt).Elem()
		val := reflect.New(t.Elem()).Elem()
		it := v.MapRange()
		for it.Next() {
			key.SetIterKey(it)
			val.SetIterValue(it)
			out[keyString(key)] = ee(val)
		}
		return out
	}
}

// field is one JSON member of a struct.
type field struct {
	name      string
	index     []int
	omitEmpty bool
	omitZero  bool
	quoted    bool // the ",string" option
	typ       reflect.Type
	enc       encoder
	isZero    func(reflect.Value) bool // omitzero's test for typ
}

func newStructEncoder(t reflect.Type) encoder {
	fields := structFields(t)
	if len(fields) > 256 {
		panic("printers: struct " + t.String() + " has more than 256 JSON members")
	}
	for i := range fields {
		fields[i].enc = encoderFor(fields[i].typ)
		fields[i].isZero = zeroTest(fields[i].typ)
	}
	return func(v reflect.Value) any {
		// First find the members present, then size the map exactly: API
		// structs have dozens of optional fields and few set, and a map
		// sized for all of them costs more than the encoding. The bit set
		// lives in a few words, not an array of values, because clearing a
		// big stack array per struct is measurable at 10,000 pods.
		var present [4]uint64 // structs have at most 256 members
		n := 0
		for i := range fields {
			if _, ok := fields[i].value(v); !ok {
				continue
			}
			present[i/64] |= 1 << (i % 64)
			n++
		}
		out := make(map[string]any, n)
		for i := range fields {
			if present[i/64]&(1<<(i%64)) == 0 {
				continue
			}
			f := &fields[i]
			fv, _ := f.value(v)
			val := f.enc(fv)
			if f.quoted {
				val = quote(val)
			}
			out[f.name] = val
		}
		return out
	}
}

// value returns the member's value in struct v, and whether it is encoded
// at all (not omitted, not behind a nil embedded pointer).
func (f *field) value(v reflect.Value) (reflect.Value, bool) {
	var fv reflect.Value
	if len(f.index) == 1 {
		fv = v.Field(f.index[0])
	} else {
		var ok bool
		if fv, ok = fieldByIndex(v, f.index); !ok {
			return fv, false
		}
	}
	if f.omitEmpty && isEmptyValue(fv) {
		return fv, false
	}
	if f.omitZero && f.isZero(fv) {
		return fv, false
	}
	return fv, true
}

// fieldByIndex follows index through embedded structs; ok is false when an
// embedded pointer on the way is nil (encoding/json then omits the field).
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

func quote(v any) any {
	switch x := v.(type) {
	case string:
		b, _ := json.Marshal(x)
		return string(b)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return v
}

// structFields lists t's JSON members as encoding/json does: exported
// fields by tag name, anonymous struct fields without a tag name promoted,
// shallower fields winning over deeper ones of the same name.
func structFields(t reflect.Type) []field {
	type queued struct {
		typ   reflect.Type
		index []int
	}
	var out []field
	seen := map[string]int{} // name -> depth
	level := []queued{{typ: t}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(level) > 0; depth++ {
		var next []queued
		var found []field
		for _, q := range level {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := 0; i < q.typ.NumField(); i++ {
				sf := q.typ.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(append([]int(nil), q.index...), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, queued{typ: ft, index: index})
					continue
				}
				if name == "" {
					name = sf.Name
				}
				f := field{name: name, index: index, typ: sf.Type}
				for opts != "" {
					var o string
					o, opts, _ = strings.Cut(opts, ",")
					switch o {
					case "omitempty":
						f.omitEmpty = true
					case "omitzero":
						f.omitZero = true
					case "string":
						switch sf.Type.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
							reflect.Float32, reflect.Float64, reflect.String:
							f.quoted = true
						}
					}
				}
				found = append(found, f)
			}
		}
		// Within one depth a name used twice is ambiguous and dropped, as in
		// encoding/json (this does not happen in the Kubernetes API types).
		count := map[string]int{}
		for _, f := range found {
			count[f.name]++
		}
		for _, f := range found {
			if _, shadowed := seen[f.name]; shadowed || count[f.name] > 1 {
				continue
			}
			out = append(out, f)
		}
		for _, f := range found {
			if _, ok := seen[f.name]; !ok {
				seen[f.name] = depth
			}
		}
		level = next
	}
	return out
}

// isEmptyValue is encoding/json's omitempty test.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type isZeroer interface{ IsZero() bool }

var isZeroerType = reflect.TypeFor[isZeroer]()

// zeroTest returns encoding/json's omitzero test for t: its IsZero method
// when it has one, else the zero value.
func zeroTest(t reflect.Type) func(reflect.Value) bool {
	if t.Implements(isZeroerType) {
		return func(v reflect.Value) bool {
			if v.Kind() == reflect.Pointer && v.IsNil() {
				return true
			}
			return v.Interface().(isZeroer).IsZero()
		}
	}
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(isZeroerType) {
		return func(v reflect.Value) bool {
			if v.CanAddr() {
				return v.Addr().Interface().(isZeroer).IsZero()
			}
			return v.IsZero()
		}
	}
	return reflect.Value.IsZero
}
