// Command customarray is dask's "custom array function" in Go: eye and diag written as a graph of
// tasks keyed (name, i, j), then an array over them (dask's Array(graph, name, chunks, dtype)), the
// way dask's documentation builds them and examples/eye.c and examples/diag.c do in C.
//
//	go run ./examples/customarray
//
// dask:
//
//	def eye(n, blocksize):
//	    chunks = ((blocksize,) * (n // blocksize), (blocksize,) * (n // blocksize))
//	    name = 'eye' + next(tokens)
//	    dsk = {(name, i, j): (np.eye, blocksize) if i == j else (np.zeros, (blocksize, blocksize))
//	           for i in range(n // blocksize) for j in range(n // blocksize)}
//	    return Array(dsk, name, chunks, np.eye(0).dtype)
//
//	def diag(v):                                  # v: a chunked 1-d array
//	    name = 'diag-' + tokenize(v)
//	    dsk = {(name, i, j): (np.diag, (v.name, i)) if i == j else (np.zeros, (m, n))
//	           for i, m in enumerate(v.chunks[0]) for j, n in enumerate(v.chunks[0])}
//	    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[v])
//	    return Array(graph, name, (v.chunks[0], v.chunks[0]), v.dtype)
//
// Eye here also takes a last, smaller block when blocksize does not divide n (dask's version needs
// it to divide). main_test.go checks both against plain loops.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	chunkarray "github.com/chunkarray/chunkarray/bindings/go"
)

// npEye is np.eye(n): a float64 identity block.
func npEye(ka *chunkarray.KernelArgs) (*chunkarray.Block, error) {
	if len(ka.Args) != 1 || ka.Args[0].Kind != chunkarray.ArgInt64 || ka.Args[0].Int < 0 {
		return nil, errors.New("np.eye takes one size >= 0")
	}
	n := ka.Args[0].Int
	v := make([]float64, n*n)
	for i := int64(0); i < n; i++ {
		v[i*n+i] = 1
	}
	return chunkarray.NewBlockFloat64([]int64{n, n}, v)
}

// npZeros is np.zeros(shape, dtype): the dtype is a string literal ("float64", "int64").
func npZeros(ka *chunkarray.KernelArgs) (*chunkarray.Block, error) {
	if len(ka.Args) != 2 || ka.Args[0].Kind != chunkarray.ArgTuple || ka.Args[1].Kind != chunkarray.ArgString {
		return nil, errors.New("np.zeros takes a shape tuple and a dtype name")
	}
	dt := map[string]chunkarray.DType{"float64": chunkarray.Float64, "int64": chunkarray.Int64}[ka.Args[1].Str]
	if dt == 0 {
		return nil, fmt.Errorf("np.zeros: dtype %q is not float64 or int64", ka.Args[1].Str)
	}
	return chunkarray.ZerosBlock(ka.Args[0].Tuple, dt)
}

// npDiag is np.diag(v): a square block with the 1-d block v (float64 or int64) on its diagonal.
func npDiag(ka *chunkarray.KernelArgs) (*chunkarray.Block, error) {
	if len(ka.Args) != 1 || ka.Args[0].Kind != chunkarray.ArgBlock || len(ka.Args[0].Block.Shape()) != 1 {
		return nil, errors.New("np.diag takes one 1-d block")
	}
	b := ka.Args[0].Block
	switch b.DType() {
	case chunkarray.Float64:
		d, _ := b.Float64s()
		n := int64(len(d))
		v := make([]float64, n*n)
		for i, x := range d {
			v[int64(i)*n+int64(i)] = x
		}
		return chunkarray.NewBlockFloat64([]int64{n, n}, v)
	case chunkarray.Int64:
		d, _ := b.Int64s()
		n := int64(len(d))
		v := make([]int64, n*n)
		for i, x := range d {
			v[int64(i)*n+int64(i)] = x
		}
		return chunkarray.NewBlockInt64([]int64{n, n}, v)
	}
	return nil, fmt.Errorf("np.diag: dtype %v is not float64 or int64", b.DType())
}

// RegisterNumpyKernels registers the kernels the graphs below call.
func RegisterNumpyKernels(c *chunkarray.Context) error {
	for name, f := range map[string]chunkarray.KernelFunc{"np.eye": npEye, "np.zeros": npZeros, "np.diag": npDiag} {
		if err := c.RegisterKernel(name, f); err != nil {
			return err
		}
	}
	return nil
}

// Eye is dask's eye(n, blocksize): the n x n identity in blocks of blocksize (the last one smaller
// if blocksize does not divide n; one empty block if n is 0, as dask's normalize_chunks).
func Eye(n, blocksize int64) (*chunkarray.Array, error) {
	if n < 0 || blocksize <= 0 {
		return nil, fmt.Errorf("eye(%d, %d): n >= 0 and blocksize > 0", n, blocksize)
	}
	var sizes []int64
	for i := int64(0); i < n/blocksize; i++ {
		sizes = append(sizes, blocksize)
	}
	if n%blocksize != 0 || n == 0 {
		sizes = append(sizes, n%blocksize)
	}
	name := fmt.Sprintf("eye-%d-%d", n, blocksize)
	g, err := chunkarray.NewGraph()
	if err != nil {
		return nil, err
	}
	defer g.Close()
	for i, m := range sizes {
		for j, k := range sizes {
			key := chunkarray.NewKey(name, int64(i), int64(j))
			if i == j {
				err = g.AddTask(key, "np.eye", chunkarray.IntArg(m))
			} else {
				err = g.AddTask(key, "np.zeros", chunkarray.TupleArg(m, k), chunkarray.StrArg("float64"))
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return chunkarray.NewArray(g, name, [][]int64{sizes, sizes}, chunkarray.Float64)
}

// Diag is dask's diag(v) of a chunked 1-d array v: the tasks reference v's blocks (v.Name(), i),
// and the graph starts from v's own layers.
func Diag(v *chunkarray.Array) (*chunkarray.Array, error) {
	c := v.Chunks()[0]
	name := "diag-" + v.Name()
	zerosDType := "float64"
	if v.DType() == chunkarray.Int64 {
		zerosDType = "int64"
	}
	g, err := v.Graph()
	if err != nil {
		return nil, err
	}
	defer g.Close()
	for i, m := range c {
		for j, n := range c {
			key := chunkarray.NewKey(name, int64(i), int64(j))
			if i == j {
				err = g.AddTask(key, "np.diag", chunkarray.KeyArg(v.Name(), int64(i)))
			} else {
				err = g.AddTask(key, "np.zeros", chunkarray.TupleArg(m, n), chunkarray.StrArg(zerosDType))
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return chunkarray.NewArray(g, name, [][]int64{c, c}, v.DType())
}

// chunksString prints chunks as dask does: ((2, 2, 2), (2, 2, 2)).
func chunksString(chunks [][]int64) string {
	dims := make([]string, len(chunks))
	for d, c := range chunks {
		s := make([]string, len(c))
		for i, x := range c {
			s[i] = fmt.Sprint(x)
		}
		if len(s) == 1 {
			dims[d] = "(" + s[0] + ",)"
		} else {
			dims[d] = "(" + strings.Join(s, ", ") + ")"
		}
	}
	return "(" + strings.Join(dims, ", ") + ")"
}

func run() error {
	ctx, err := chunkarray.NewContext(-1)
	if err != nil {
		return err
	}
	defer ctx.Close()
	if err := RegisterNumpyKernels(ctx); err != nil {
		return err
	}

	e, err := Eye(6, 2)
	if err != nil {
		return err
	}
	defer e.Close()
	fmt.Println("eye(6, 2): chunks", chunksString(e.Chunks()))
	got, err := e.ComputeFloat64s(ctx)
	if err != nil {
		return err
	}
	for i := 0; i < 6; i++ {
		row := make([]string, 6)
		for j := range row {
			row[j] = fmt.Sprintf("%g.", got[i*6+j])
			if want := map[bool]float64{true: 1, false: 0}[i == j]; got[i*6+j] != want {
				return fmt.Errorf("eye(6, 2)[%d, %d] = %g, want %g", i, j, got[i*6+j], want)
			}
		}
		fmt.Printf("  [%s]\n", strings.Join(row, " "))
	}

	// v = arange(9) in ragged blocks (2, 3, 4)
	a, err := chunkarray.Arange(0, 9, 1, 4, chunkarray.Int64)
	if err != nil {
		return err
	}
	defer a.Close()
	v, err := a.RechunkTo([][]int64{{2, 3, 4}})
	if err != nil {
		return err
	}
	defer v.Close()
	d, err := Diag(v)
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Println("diag(arange(9)): chunks", chunksString(d.Chunks()))
	dv, err := d.ComputeInt64s(ctx)
	if err != nil {
		return err
	}
	for i := 0; i < 9; i++ {
		for j := 0; j < 9; j++ {
			want := int64(0)
			if i == j {
				want = int64(i)
			}
			if dv[i*9+j] != want {
				return fmt.Errorf("diag[%d, %d] = %d, want %d", i, j, dv[i*9+j], want)
			}
		}
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "customarray:", err)
		os.Exit(1)
	}
}
