package chunkarray

// MaskedArray against plain loops: masking, numpy.ma's log domain, a masked mean with an all-masked
// row, count, and a mask of the wrong shape.

import (
	"math"
	"strings"
	"testing"
)

func TestMaskedArray(t *testing.T) {
	ctx, err := NewContext(2)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	x := make([]float64, 12)
	rows := make([]bool, 12)
	for i := range x {
		x[i] = float64((i*5)%7) - 2
		rows[i] = i/4 == 1
	}
	xa, _ := FromFloat64s(x, []int64{3, 4}, []int64{2, 3})
	ma, _ := FromBools(rows, []int64{3, 4}, []int64{2, 3})
	m0, err := NewMaskedArray(xa, ma, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := m0.Compare(MaskLess, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]bool, 12)
	for i := range want {
		want[i] = rows[i] || x[i] < 0
	}
	d, k, err := m.ComputeFloat64s(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if k[i] != want[i] || d[i] != x[i] {
			t.Fatalf("element %d: got (%v, %v), want (%v, %v)", i, d[i], k[i], x[i], want[i])
		}
	}
	l, _ := m.Unary(OpLog)
	ld, lk, err := l.ComputeFloat64s(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if lk[i] != (want[i] || x[i] <= 0) {
			t.Fatalf("log mask %d: %v", i, lk[i])
		}
		if !lk[i] && math.Abs(ld[i]-math.Log(x[i])) > 1e-12 {
			t.Fatalf("log %d: %v", i, ld[i])
		}
	}
	mean, err := m.Reduce(RedMean, []int32{1}, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	md, mk, err := mean.ComputeFloat64s(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 3; r++ {
		s, n := 0.0, 0
		for c := 0; c < 4; c++ {
			if !want[r*4+c] {
				s += x[r*4+c]
				n++
			}
		}
		if mk[r] != (n == 0) || (n > 0 && math.Abs(md[r]-s/float64(n)) > 1e-12) {
			t.Fatalf("row %d: got (%v, %v), want mean of %d values %v", r, md[r], mk[r], n, s)
		}
	}
	cnt, _ := m.Count(nil, false)
	cv, err := cnt.ComputeInt64s(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for _, b := range want {
		if !b {
			n++
		}
	}
	if cv[0] != n {
		t.Fatalf("count %d, want %d", cv[0], n)
	}
	fv, _ := m.FillValue()
	if fv != 1e20 {
		t.Fatalf("fill value %v", fv)
	}
	bad, _ := FromBools([]bool{true, false}, []int64{2}, []int64{2})
	if _, err := NewMaskedArray(xa, bad, nil); err == nil || !strings.Contains(err.Error(), "Mask and data not compatible") {
		t.Fatalf("bad mask: %v", err)
	}
}
