// The bindings' common pipeline in Go: create, elementwise, reduce, a Go kernel, save the graph.
//
//	PKG_CONFIG_PATH=$PWD/../../build/meson-uninstalled LD_LIBRARY_PATH=$PWD/../../build/capi go run ./examples/pipeline [out-dir]
package main

import (
	"fmt"
	"os"
	"path/filepath"

	chunkarray "github.com/chunkarray/chunkarray/bindings/go"
)

func check[T any](v T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipeline:", err)
		os.Exit(1)
	}
	return v
}

func main() {
	outDir := os.TempDir()
	if len(os.Args) > 1 {
		outDir = os.Args[1]
	}
	ctx := check(chunkarray.NewContext(-1))
	defer ctx.Close()
	x := check(chunkarray.RandomUniform([]int64{2000, 1500}, []int64{500, 400}, 1, 0, 1)) // create
	y := check(check(check(x.Unary(chunkarray.OpSqrt)).Scalar(chunkarray.OpMul, 2, false)).Scalar(chunkarray.OpAdd, 1, false))
	colMeans := check(y.Mean(0)) // reduce
	// a user kernel written in Go
	check(0, ctx.RegisterKernel("pipeline.threshold", func(ka *chunkarray.KernelArgs) (*chunkarray.Block, error) {
		b := ka.Args[0].Block
		t, _ := ka.Args[1].AsFloat()
		xs, err := b.Float64s()
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(xs))
		for i, v := range xs {
			if v > t {
				out[i] = v
			}
		}
		return chunkarray.NewBlockFloat64(b.Shape(), out)
	}))
	z := check(y.MapBlocks("pipeline.threshold", nil, []interface{}{2.0}, 0))
	r := check(chunkarray.ComputeMany(ctx, check(y.Sum()), colMeans, check(z.Sum())))
	t, m, k := check(r[0].Float64s())[0], check(r[1].Float64s())[0], check(r[2].Float64s())[0]
	if !(k <= t && t > 0) {
		fmt.Fprintln(os.Stderr, "pipeline: unexpected results")
		os.Exit(1)
	}
	fmt.Printf("sum=%.6f mean[0]=%.6f kernel-sum=%.6f\n", t, m, k)
	g := check(colMeans.Graph())
	p := filepath.Join(outDir, "pipeline-go.graph")
	err := g.Save(p)
	if e, isErr := err.(*chunkarray.Error); isErr && e.Code() == "CA_EUNSUPPORTED" {
		// a library built without graph files (-Dcapnp=disabled)
		p = filepath.Join(outDir, "pipeline-go.dot")
		check(0, os.WriteFile(p, []byte(check(g.Dot())), 0o644))
		fmt.Println(e.Message+"; graphviz dot written to", p, "instead")
	} else {
		check(0, err)
		fmt.Println("graph saved to", p)
	}
}
