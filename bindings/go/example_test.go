package chunkarray_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	chunkarray "github.com/chunkarray/chunkarray/bindings/go"
)

// A custom array as dask writes one: tasks keyed (name, i) calling a kernel, then NewArray over
// them. examples/customarray builds dask's eye and diag the same way.
func ExampleNewArray() {
	ctx, _ := chunkarray.NewContext(2)
	defer ctx.Close()
	// np.arange(start, stop) as a Go kernel
	_ = ctx.RegisterKernel("my.arange", func(ka *chunkarray.KernelArgs) (*chunkarray.Block, error) {
		start, stop := ka.Args[0].Int, ka.Args[1].Int
		v := make([]float64, 0, stop-start)
		for i := start; i < stop; i++ {
			v = append(v, float64(i))
		}
		return chunkarray.NewBlockFloat64([]int64{stop - start}, v)
	})
	// dask: {('r', 0): (np.arange, 0, 3), ('r', 1): (np.arange, 3, 5)}; Array(dsk, 'r', ((3, 2),), float64)
	g, _ := chunkarray.NewGraph()
	defer g.Close()
	_ = g.AddTask(chunkarray.NewKey("r", 0), "my.arange", chunkarray.IntArg(0), chunkarray.IntArg(3))
	_ = g.AddTask(chunkarray.NewKey("r", 1), "my.arange", chunkarray.IntArg(3), chunkarray.IntArg(5))
	r, err := chunkarray.NewArray(g, "r", [][]int64{{3, 2}}, chunkarray.Float64)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	sq, _ := r.Binary(chunkarray.OpMul, r)
	v, _ := sq.ComputeFloat64s(ctx)
	fmt.Println(r.Chunks(), v)

	// a chunk grid the graph does not cover
	_, err = chunkarray.NewArray(g, "r", [][]int64{{3, 1, 1}}, chunkarray.Float64)
	fmt.Println(errors.Is(err, chunkarray.StatusNotFound), err)
	// Output:
	// [[3 2]] [0 1 4 9 16]
	// true CA_ENOTFOUND: ca_array_new: the graph is missing key ('r', 2) of the chunk grid ((3, 1, 1),)
}

// A deadline stops a computation through the library's cancellation.
func ExampleArray_ComputeContext() {
	c, _ := chunkarray.NewContext(1)
	defer c.Close()
	_ = c.RegisterKernel("my.slow", func(ka *chunkarray.KernelArgs) (*chunkarray.Block, error) {
		time.Sleep(10 * time.Millisecond)
		return chunkarray.ZerosBlock(ka.Args[0].Block.Shape(), chunkarray.Float64)
	})
	x, _ := chunkarray.Ones([]int64{1000}, []int64{1}, chunkarray.Float64)
	slow, _ := x.MapBlocks("my.slow", nil, nil, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := slow.ComputeContext(ctx, c)
	fmt.Println(errors.Is(err, context.DeadlineExceeded), errors.Is(err, chunkarray.StatusCanceled))
	// Output: true true
}

// NumPy's median and percentile along an axis: only that axis becomes one chunk (dask's median).
func ExampleArray_Median() {
	c, _ := chunkarray.NewContext(2)
	defer c.Close()
	x, _ := chunkarray.FromFloat64s([]float64{3, 1, 2, 10, 4, 8, 7, 6, 5, 9, 0, 11}, []int64{3, 4}, []int64{2, 2})
	m, _ := x.Median(false, 1)
	v, _ := m.ComputeFloat64s(c)
	fmt.Println(m.Chunks(), v)
	p, _ := x.Percentiles([]float64{0, 100}, []int32{0}, &chunkarray.QuantileOptions{Method: chunkarray.QuantileNearest})
	w, _ := p.ComputeFloat64s(c)
	fmt.Println(p.Shape(), w)
	// Output:
	// [[2 1]] [2.5 6.5 7]
	// [2 4] [3 1 0 6 5 9 7 11]
}

// Sorting, unique values with their counts, and searching them.
func ExampleArray_UniqueWith() {
	c, _ := chunkarray.NewContext(2)
	defer c.Close()
	x, _ := chunkarray.FromInt64s([]int64{4, 1, 4, 2, 1, 4}, []int64{6}, []int64{4})
	u, _ := x.UniqueWith(chunkarray.UniqueOptions{Counts: true})
	vals, _ := u.Values.ComputeInt64s(c)
	counts, _ := u.Counts.ComputeInt64s(c)
	s, _ := x.Sort(0, true)
	desc, _ := s.ComputeInt64s(c)
	q, _ := chunkarray.FromInt64s([]int64{0, 2, 5}, []int64{3}, []int64{3})
	pos, _ := u.Values.SearchSorted(q, chunkarray.SideLeft, nil)
	at, _ := pos.ComputeInt64s(c)
	fmt.Println(vals, counts, desc, at)
	// Output: [1 2 4] [2 1 3] [4 4 4 2 1 1] [0 1 3]
}
