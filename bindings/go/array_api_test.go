package chunkarray

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func wantStatus(t *testing.T, err error, st Status, needle string) {
	t.Helper()
	e, ok := err.(*Error)
	if !ok || e.Status != st || !strings.Contains(e.Message, needle) {
		t.Fatalf("got %v, want %v containing %q", err, st, needle)
	}
}

// The array API standard's promotion and scalar rule (ca_dtype_promote_std, ca_array_binary_std,
// ca_array_binary_scalar_std), CA_OP_FLOORDIV_STD, and exact integer full (ca_array_full_int64/_uint64).
func TestArrayAPIPromotionAndExactFull(t *testing.T) {
	ctx := ctxT(t, 0)
	for _, c := range []struct{ a, b, want DType }{{Int8, UInt8, Int16}, {UInt32, Int64, Int64}, {UInt8, UInt16, UInt16},
		{Float32, Float64, Float64}, {Bool, Bool, Bool}} {
		if got := mk(c.a.PromoteStd(c.b)); got != c.want {
			t.Fatalf("%v with %v: %v, want %v", c.a, c.b, got, c.want)
		}
	}
	for _, c := range [][2]DType{{Int64, Float32}, {Bool, Int8}, {Int64, UInt64}, {Float16, Float32}} {
		_, err := c[0].PromoteStd(c[1])
		wantStatus(t, err, StatusType, c[0].String())
		wantStatus(t, err, StatusType, c[1].String())
	}
	// int8 + uint8 -> int16, values against a plain loop, ragged chunks
	xs, ys := []int32{-128, -1, 0, 5, 127}, []int32{255, 1, 0, 200, 128}
	x := mk(mk(FromInt32s(xs, []int64{5}, []int64{2})).AsType(Int8))
	y := mk(mk(FromInt32s(ys, []int64{5}, []int64{3})).AsType(UInt8))
	s := mk(x.BinaryStd(OpAdd, y))
	if s.DType() != Int16 {
		t.Fatal(s.DType())
	}
	got := mk(mk(s.AsType(Int64)).ComputeInt64s(ctx))
	for i := range xs {
		if got[i] != int64(xs[i]+ys[i]) {
			t.Fatalf("%d: %d", i, got[i])
		}
	}
	f := mk(Full([]int64{5}, []int64{2}, Float32, 1.5))
	_, err := x.BinaryStd(OpMul, f)
	wantStatus(t, err, StatusType, "int8 and float32")
	// each operation takes its dtype category (numpy.array_api's operand checks, in C)
	_, err = x.BinaryStd(OpDiv, x)
	wantStatus(t, err, StatusType, "floating-point dtypes under the array API standard, not int8")
	// a scalar takes the array's dtype
	x1 := mk(x.ScalarIntStd(OpSub, 1, true))
	if x1.DType() != Int8 || fmt.Sprint(mk(mk(x1.AsType(Int64)).ComputeInt64s(ctx))) != "[-127 2 1 -4 -126]" {
		t.Fatal(x1.DType())
	}
	_, err = x.ScalarIntStd(OpAdd, 200, false)
	wantStatus(t, err, StatusInvalidArgument, "200 is out of bounds for int8")
	_, err = x.ScalarStd(OpAdd, 0.5, false)
	wantStatus(t, err, StatusType, "float scalar")
	fh := mk(f.ScalarStd(OpMul, 0.5, false))
	if fh.DType() != Float32 || fmt.Sprint(mk(fh.ComputeFloat32s(ctx))) != "[0.75 0.75 0.75 0.75 0.75]" {
		t.Fatal(fh.DType())
	}
	// floor_divide's special cases under CA_OP_FLOORDIV_STD
	num := mk(FromFloat64s([]float64{math.Inf(1), 1, -1, 7}, []int64{4}, []int64{3}))
	den := mk(FromFloat64s([]float64{2, math.Inf(1), math.Inf(1), -2}, []int64{4}, []int64{2}))
	q := mk(mk(num.BinaryStd(OpFloordiv_std, den)).ComputeFloat64s(ctx))
	if !math.IsInf(q[0], 1) || q[1] != 0 || math.Signbit(q[1]) || q[2] != 0 || !math.Signbit(q[2]) || q[3] != -4 {
		t.Fatal(q)
	}
	// full with exact integers past 2**53
	big := int64(1)<<53 + 1
	for _, v := range []int64{big, -big, math.MinInt64, math.MaxInt64} {
		for _, g := range mk(mk(FullInt64([]int64{5}, []int64{2}, Int64, v)).ComputeInt64s(ctx)) {
			if g != v {
				t.Fatalf("%d: got %d", v, g)
			}
		}
	}
	b := mk(mk(FullUint64([]int64{3}, []int64{2}, UInt64, math.MaxUint64)).Compute(ctx))
	defer b.Close()
	if fmt.Sprint(mk(b.Uint64s())) != "[18446744073709551615 18446744073709551615 18446744073709551615]" {
		t.Fatal(mk(b.Uint64s()))
	}
	_, err = FullInt64([]int64{2}, []int64{1}, Int8, 128)
	wantStatus(t, err, StatusInvalidArgument, "out of bounds for int8")
}
