package chunkarray

/*
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"strings"
	"unsafe"
)

// Key is a task key: dask's (name, i, j, ...). The key of block (i, j) of an array named name is
// NewKey(name, i, j).
type Key struct {
	Name  string
	Index []int64
}

// NewKey is the key (name, index...).
func NewKey(name string, index ...int64) Key { return Key{Name: name, Index: index} }

// String is the key as dask prints it: ('name', 0, 1).
func (k Key) String() string {
	var b strings.Builder
	b.WriteString("('" + k.Name + "'")
	for _, i := range k.Index {
		b.WriteString(", " + itoa(i))
	}
	b.WriteString(")")
	return b.String()
}

// ArgKind is the kind of a task argument (CA_ARG_*), as a kernel receives it in Value.Kind.
type ArgKind int32

// The argument kinds of include/chunkarray/kernel.h.
const (
	ArgNone    ArgKind = C.CA_ARG_NONE    // Python's None
	ArgInt64   ArgKind = C.CA_ARG_INT64   // Value.Int
	ArgFloat64 ArgKind = C.CA_ARG_FLOAT64 // Value.Float
	ArgString  ArgKind = C.CA_ARG_STRING  // Value.Str
	ArgBytes   ArgKind = C.CA_ARG_BYTES   // Value.Bytes
	ArgTuple   ArgKind = C.CA_ARG_TUPLE   // Value.Tuple
	ArgSlice   ArgKind = C.CA_ARG_SLICE   // Value.Slice
	ArgKey     ArgKind = C.CA_ARG_KEY     // a reference to another task (building graphs only)
	ArgBlock   ArgKind = C.CA_ARG_BLOCK   // Value.Block: what a kernel receives for an ArgKey
	ArgList    ArgKind = C.CA_ARG_LIST    // Value.List
	ArgIndexed ArgKind = C.CA_ARG_INDEXED // blockwise layers only
)

var argKindNames = map[ArgKind]string{ArgNone: "none", ArgInt64: "int64", ArgFloat64: "float64",
	ArgString: "string", ArgBytes: "bytes", ArgTuple: "tuple", ArgSlice: "slice", ArgKey: "key",
	ArgBlock: "block", ArgList: "list", ArgIndexed: "indexed"}

// String is the kind's name ("int64", "tuple", ...).
func (k ArgKind) String() string {
	if n, ok := argKindNames[k]; ok {
		return n
	}
	return "ArgKind(" + itoa(int64(k)) + ")"
}

// Arg is one argument of a task (Graph.AddTask) or an extra argument of Array.MapBlocks: a
// literal (IntArg, FloatArg, StrArg, BytesArg, TupleArg, ListArg, NoneArg) or a reference to
// another task's result (KeyArg), which the kernel receives as a block. The graph copies what it
// keeps.
type Arg struct {
	kind ArgKind
	i    int64
	f    float64
	s    string
	b    []byte
	t    []int64
	key  Key
	list []Arg
}

// Kind is the argument's kind.
func (a Arg) Kind() ArgKind { return a.kind }

// NoneArg is Python's None (as is the zero Arg).
func NoneArg() Arg { return Arg{kind: ArgNone} }

// IntArg is an int64 literal.
func IntArg(v int64) Arg { return Arg{kind: ArgInt64, i: v} }

// FloatArg is a float64 literal.
func FloatArg(v float64) Arg { return Arg{kind: ArgFloat64, f: v} }

// StrArg is a UTF-8 string literal (no NUL byte).
func StrArg(s string) Arg { return Arg{kind: ArgString, s: s} }

// BytesArg is a bytes literal.
func BytesArg(b []byte) Arg { return Arg{kind: ArgBytes, b: b} }

// TupleArg is a tuple of int64 (a shape, an index).
func TupleArg(items ...int64) Arg { return Arg{kind: ArgTuple, t: items} }

// KeyArg references the task (name, index...): the kernel receives its result as a block.
func KeyArg(name string, index ...int64) Arg { return Arg{kind: ArgKey, key: NewKey(name, index...)} }

// ListArg is nested arguments (a Python list).
func ListArg(items ...Arg) Arg { return Arg{kind: ArgList, list: items} }

// cArena holds C copies of keys and arguments until free: Go memory must not be kept by C, and a
// ca_arg_t may not hold Go pointers.
type cArena struct {
	ptrs []unsafe.Pointer
}

func (ar *cArena) alloc(n int) unsafe.Pointer {
	if n < 1 {
		n = 1
	}
	p := C.calloc(1, C.size_t(n))
	ar.ptrs = append(ar.ptrs, p)
	return p
}

func (ar *cArena) free() {
	for _, p := range ar.ptrs {
		C.free(p)
	}
	ar.ptrs = nil
}

func (ar *cArena) str(s string) (*C.char, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, newError(StatusInvalidArgument, "string %q contains a NUL byte", s)
	}
	p := (*C.char)(ar.alloc(len(s) + 1)) // zeroed: NUL-terminated
	copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(s)), s)
	return p, nil
}

func (ar *cArena) int64s(v []int64) *C.int64_t {
	p := (*C.int64_t)(ar.alloc(8 * len(v)))
	if len(v) > 0 {
		copy(unsafe.Slice((*int64)(unsafe.Pointer(p)), len(v)), v)
	}
	return p
}

func (ar *cArena) key(k Key) (*C.ca_key_t, error) {
	name, err := ar.str(k.Name)
	if err != nil {
		return nil, err
	}
	ck := (*C.ca_key_t)(ar.alloc(int(C.sizeof_ca_key_t)))
	ck.name = name
	ck.index = ar.int64s(k.Index)
	ck.nindex = C.int32_t(len(k.Index))
	return ck, nil
}

// args is a C array of len(args) ca_arg_t (at least one element, so never NULL).
func (ar *cArena) args(args []Arg) (*C.ca_arg_t, error) {
	p := (*C.ca_arg_t)(ar.alloc(len(args) * int(C.sizeof_ca_arg_t)))
	out := unsafe.Slice(p, len(args))
	for i, a := range args {
		if err := ar.set(&out[i], a); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (ar *cArena) set(c *C.ca_arg_t, a Arg) error {
	switch a.kind {
	case ArgNone:
		C.cag_set_arg_none(c)
	case ArgInt64:
		C.cag_set_arg_i64(c, C.int64_t(a.i))
	case ArgFloat64:
		C.cag_set_arg_f64(c, C.double(a.f))
	case ArgString:
		s, err := ar.str(a.s)
		if err != nil {
			return err
		}
		C.cag_set_arg_str(c, s, C.size_t(len(a.s)))
	case ArgBytes:
		p := ar.alloc(len(a.b))
		if len(a.b) > 0 {
			C.memcpy(p, unsafe.Pointer(&a.b[0]), C.size_t(len(a.b)))
		}
		C.cag_set_arg_bytes(c, p, C.size_t(len(a.b)))
	case ArgTuple:
		C.cag_set_arg_tuple(c, ar.int64s(a.t), C.size_t(len(a.t)))
	case ArgKey:
		k, err := ar.key(a.key)
		if err != nil {
			return err
		}
		C.cag_set_arg_key(c, k.name, k.index, k.nindex)
	case ArgList:
		items, err := ar.args(a.list)
		if err != nil {
			return err
		}
		C.cag_set_arg_list(c, items, C.size_t(len(a.list)))
	default:
		return newError(StatusInvalidArgument, "an Arg of kind %v cannot be built from Go (use the Arg constructors)", a.kind)
	}
	return nil
}

// Graph is a new graph holding the array's layers (shared): the start of a graph for an array built
// on this one (dask's HighLevelGraph.from_collections(name, dsk, dependencies=[a])).
func (a *Array) Graph() (*Graph, error) {
	var g *C.ca_graph_t
	if err := call(func() C.ca_status_t { return C.ca_array_graph(&g, a.h) }); err != nil {
		return nil, err
	}
	return wrapGraph(g), nil
}

// Graph is a task graph (dask's HighLevelGraph): named layers of tasks key = (kernel, args...).
// Build one with NewGraph and AddTask (or start from Array.Graph), then make an array over it with
// NewArray. A graph is modified by one goroutine at a time; computing only reads it.
type Graph struct {
	h *C.ca_graph_t
}

func wrapGraph(h *C.ca_graph_t) *Graph {
	g := &Graph{h: h}
	runtime.SetFinalizer(g, (*Graph).Close)
	return g
}

// Close frees the graph. Safe to call twice; the error is always nil (io.Closer).
func (g *Graph) Close() error {
	if g.h != nil {
		C.ca_graph_free(g.h)
		g.h = nil
	}
	runtime.SetFinalizer(g, nil)
	return nil
}

// NumTasks is the number of tasks (symbolic layers count their blocks).
func (g *Graph) NumTasks() int64 { return int64(C.ca_graph_num_tasks(g.h)) }

// NumLayers is the number of layers.
func (g *Graph) NumLayers() int64 { return int64(C.ca_graph_num_layers(g.h)) }

// NewGraph makes an empty graph.
func NewGraph() (*Graph, error) {
	var h *C.ca_graph_t
	if err := call(func() C.ca_status_t { return C.ca_graph_new(&h) }); err != nil {
		return nil, err
	}
	return wrapGraph(h), nil
}

// Copy is a new graph sharing g's (immutable) layers: O(number of layers).
func (g *Graph) Copy() (*Graph, error) {
	var h *C.ca_graph_t
	if err := call(func() C.ca_status_t { return C.ca_graph_copy(&h, g.h) }); err != nil {
		return nil, err
	}
	return wrapGraph(h), nil
}

// AddTask adds the task key = (kernel, args...) to the layer named key.Name. Keys referenced with
// KeyArg need not exist yet (they are checked when an array is made or computed); kernel is looked
// up in the context's registry at compute time. Errors: StatusInvalidArgument (an empty name, a
// NUL byte, an index count that differs from the layer's), StatusExists (a duplicate key, or the
// name of a symbolic layer).
func (g *Graph) AddTask(key Key, kernel string, args ...Arg) error {
	var ar cArena
	defer ar.free()
	ck, err := ar.key(key)
	if err != nil {
		return err
	}
	ca, err := ar.args(args)
	if err != nil {
		return err
	}
	kn, err := ar.str(kernel)
	if err != nil {
		return err
	}
	return call(func() C.ca_status_t { return C.ca_graph_add_task(g.h, ck, kn, ca, C.size_t(len(args))) })
}

// Merge adds every layer of other to g (layers of the same name must be the same layer).
func (g *Graph) Merge(other *Graph) error {
	return call(func() C.ca_status_t { return C.ca_graph_merge(g.h, other.h) })
}

// HasKey reports whether g holds the task key.
func (g *Graph) HasKey(key Key) bool {
	var ar cArena
	defer ar.free()
	ck, err := ar.key(key)
	return err == nil && C.ca_graph_has_key(g.h, ck) != 0
}

// Layers is the layers' names.
func (g *Graph) Layers() ([]string, error) {
	var list *C.ca_keylist_t
	if err := call(func() C.ca_status_t { return C.ca_graph_layers(&list, g.h) }); err != nil {
		return nil, err
	}
	defer C.ca_keylist_free(list)
	n := int(C.ca_keylist_size(list))
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		var k C.ca_key_t
		if err := call(func() C.ca_status_t { return C.ca_keylist_get(list, C.size_t(i), &k) }); err != nil {
			return nil, err
		}
		out = append(out, C.GoString(k.name))
	}
	return out, nil
}

// Dot is the graph in graphviz dot.
func (g *Graph) Dot() (string, error) {
	var s *C.char
	if err := call(func() C.ca_status_t { return C.ca_graph_to_dot(&s, g.h, nil, 0) }); err != nil {
		return "", err
	}
	defer C.ca_string_free(s)
	return C.GoString(s), nil
}

// Save writes the graph to a file (needs ca_save in the library).
func (g *Graph) Save(path string) error { return saveFile(path, g.h, nil, nil) }

// SaveWithKernelVersions is Save recording the kernel versions registered in c (see
// Array.SaveWithKernelVersions).
func (g *Graph) SaveWithKernelVersions(path string, c *Context) error {
	return saveFile(path, g.h, nil, c)
}

// SaveWithContext is the former name of SaveWithKernelVersions.
//
// Deprecated: the name reads as a context.Context variant; use SaveWithKernelVersions.
func (g *Graph) SaveWithContext(path string, c *Context) error {
	return g.SaveWithKernelVersions(path, c)
}

// KernelVersion is the version of kernel the graph records (0: not recorded, any version runs it);
// an error if no task uses that kernel or its layers record different versions.
func (g *Graph) KernelVersion(kernel string) (int32, error) {
	k := C.CString(kernel)
	defer C.free(unsafe.Pointer(k))
	var v C.int32_t
	err := call(func() C.ca_status_t { return C.ca_graph_kernel_version(&v, g.h, k) })
	return int32(v), err
}

// LoadGraph reads a graph saved with Save (needs ca_load in the library).
func LoadGraph(path string) (*Graph, error) {
	g, _, err := loadFile(path, true)
	if err != nil {
		return nil, err
	}
	return wrapGraph(g), nil
}
