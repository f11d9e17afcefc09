package chunkarray

import (
	"errors"
	"strings"
	"testing"
)

// RandomParams (ca_array_random_params): a constant parameter array gives the scalar draw bit for
// bit, a (6,) parameter broadcasts along the rows, a non-broadcasting shape is refused, and a bad
// value fails the compute with NumPy's message.
func TestRandomParams(t *testing.T) {
	ctx := ctxT(t, 2)
	const gamma, poisson = 8, 20
	shp := mk(Full([]int64{40, 6}, []int64{-1, -1}, Float64, 2.5))
	a := mk(mk(RandomParams(gamma, []int64{40, 6}, []int64{15, 6}, Float64, 9, []float64{0, 2}, []*Array{shp, nil})).ComputeFloat64s(ctx))
	b := mk(mk(RandomParams(gamma, []int64{40, 6}, []int64{15, 6}, Float64, 9, []float64{2.5, 2}, nil)).ComputeFloat64s(ctx))
	if len(a) != 240 {
		t.Fatal(len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("element %d: %v != %v", i, a[i], b[i])
		}
	}
	lam := mk(FromFloat64s([]float64{0, 1, 2, 5, 10, 50}, []int64{6}, []int64{6}))
	p := mk(mk(RandomParams(poisson, []int64{40, 6}, []int64{15, 6}, Int64, 1, nil, []*Array{lam})).ComputeInt64s(ctx))
	for i := 0; i < len(p); i += 6 {
		if p[i] != 0 {
			t.Fatalf("poisson(0) gave %d", p[i])
		}
	}
	var e *Error
	if _, err := RandomParams(poisson, []int64{40, 5}, []int64{15, 5}, Int64, 1, nil, []*Array{lam}); !errors.As(err, &e) || e.Status != StatusInvalidArgument {
		t.Fatal(err)
	}
	sc := mk(FromFloat64s([]float64{1, -1}, []int64{2}, []int64{2}))
	g := mk(RandomParams(gamma, []int64{2}, []int64{2}, Float64, 1, []float64{1}, []*Array{nil, sc}))
	if _, err := g.ComputeFloat64s(ctx); !errors.As(err, &e) || e.Status != StatusKernel || !strings.Contains(e.Message, "scale < 0") {
		t.Fatal(err)
	}
}
