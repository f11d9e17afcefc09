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
