package main

import (
	"errors"
	"fmt"
	"testing"

	chunkarray "github.com/chunkarray/chunkarray/bindings/go"
)

// must unwraps (value, error), panicking (which fails the test) on error.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func newCtx(t *testing.T) *chunkarray.Context {
	c := must(chunkarray.NewContext(2))
	t.Cleanup(func() { c.Close() })
	if err := RegisterNumpyKernels(c); err != nil {
		t.Fatal(err)
	}
	return c
}

// Eye against a plain loop, blocksize dividing n or not, size 1 and empty.
func TestEyeMatchesTheIdentity(t *testing.T) {
	ctx := newCtx(t)
	for _, c := range [][2]int64{{6, 2}, {7, 3}, {5, 5}, {5, 8}, {1, 1}, {4, 1}, {10, 4}, {0, 3}} {
		n, bs := c[0], c[1]
		e := must(Eye(n, bs))
		var want []int64
		for i := int64(0); i < n/bs; i++ {
			want = append(want, bs)
		}
		if n%bs != 0 || n == 0 {
			want = append(want, n%bs)
		}
		if fmt.Sprint(e.Chunks()) != fmt.Sprint([][]int64{want, want}) || fmt.Sprint(e.Shape()) != fmt.Sprint([]int64{n, n}) {
			t.Fatalf("eye(%d, %d): chunks %v shape %v", n, bs, e.Chunks(), e.Shape())
		}
		got := must(e.ComputeFloat64s(ctx))
		if int64(len(got)) != n*n {
			t.Fatalf("eye(%d, %d): %d elements", n, bs, len(got))
		}
		for i := int64(0); i < n; i++ {
			for j := int64(0); j < n; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if got[i*n+j] != want {
					t.Fatalf("eye(%d, %d)[%d, %d] = %g", n, bs, i, j, got[i*n+j])
				}
			}
		}
		// composes with the library: the trace
		tr := must(must(e.Sum()).ComputeFloat64s(ctx))
		if tr[0] != float64(n) {
			t.Fatalf("trace of eye(%d, %d) = %g", n, bs, tr[0])
		}
	}
}

// Diag against a plain loop over several ragged chunkings, float64 and int64.
func TestDiagMatchesALoop(t *testing.T) {
	ctx := newCtx(t)
	vals := make([]float64, 11)
	for i := range vals {
		vals[i] = float64(i)*1.5 - 4
	}
	for _, chunks := range [][]int64{{11}, {4, 4, 3}, {1, 2, 3, 5}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}} {
		x := must(chunkarray.FromFloat64s(vals, []int64{11}, []int64{11}))
		v := must(x.RechunkTo([][]int64{chunks}))
		d := must(Diag(v))
		if fmt.Sprint(d.Chunks()) != fmt.Sprint([][]int64{chunks, chunks}) {
			t.Fatalf("chunks %v", d.Chunks())
		}
		got := must(d.ComputeFloat64s(ctx))
		for i := 0; i < 11; i++ {
			for j := 0; j < 11; j++ {
				want := 0.0
				if i == j {
					want = vals[i]
				}
				if got[i*11+j] != want {
					t.Fatalf("chunks %v: diag[%d, %d] = %g, want %g", chunks, i, j, got[i*11+j], want)
				}
			}
		}
	}
	v := must(chunkarray.Arange(0, 9, 1, 4, chunkarray.Int64))
	d := must(Diag(v))
	rows := must(must(d.Sum(1)).ComputeInt64s(ctx))
	for i, r := range rows {
		if r != int64(i) {
			t.Fatalf("row sums %v", rows)
		}
	}
}

// A kernel failing inside the custom graph reaches the caller as StatusKernel with its message.
func TestKernelErrorsSurface(t *testing.T) {
	ctx := newCtx(t)
	g := must(chunkarray.NewGraph())
	if err := g.AddTask(chunkarray.NewKey("bad", 0), "np.eye", chunkarray.IntArg(-1)); err != nil {
		t.Fatal(err)
	}
	a := must(chunkarray.NewArray(g, "bad", [][]int64{{1}}, chunkarray.Float64))
	_, err := a.Compute(ctx)
	var e *chunkarray.Error
	if !errors.As(err, &e) || !errors.Is(err, chunkarray.StatusKernel) || e.Message == "" {
		t.Fatalf("got %v", err)
	}
	if _, err := Eye(-1, 2); err == nil {
		t.Fatal("eye(-1, 2) accepted")
	}
}
