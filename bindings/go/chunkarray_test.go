package chunkarray

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func data(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i*37%101)/7.0 - 5.0
	}
	return v
}

func near(t *testing.T, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("length %d, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9*(1+math.Abs(want[i])) {
			t.Fatalf("element %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// mk unwraps (value, error), panicking (which fails the test) on error.
func mk[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ctxT(t *testing.T, n int) *Context {
	c := mk(NewContext(n))
	t.Cleanup(c.Close)
	return c
}

func TestVersion(t *testing.T) {
	num, abi, err := VersionNumber()
	if err != nil {
		t.Fatal(err)
	}
	s := mk(Version())
	if abi != 1 || s != fmt.Sprintf("%d.%d.%d", num/10000, num/100%100, num%100) {
		t.Fatalf("version %q / %d / abi %d", s, num, abi)
	}
}

func TestModelAndRoundtrip(t *testing.T) {
	ctx := ctxT(t, 2)
	v := data(13 * 17)
	x := mk(FromFloat64s(v, []int64{13, 17}, []int64{5, 4}))
	defer x.Close()
	if fmt.Sprint(x.Shape()) != "[13 17]" || fmt.Sprint(x.Chunks()) != "[[5 5 3] [4 4 4 4 1]]" || x.DType() != Float64 || x.Size() != 221 {
		t.Fatalf("model: %v %v %v %v", x.Shape(), x.Chunks(), x.DType(), x.Size())
	}
	near(t, mk(x.ComputeFloat64s(ctx)), v)
	if x.Name() == "" {
		t.Fatal("empty name")
	}
	x.Close()
	x.Close() // idempotent
	i := mk(FromInt64s([]int64{1, 2, 3}, []int64{3}, []int64{2}))
	if got := mk(i.ComputeInt64s(ctx)); fmt.Sprint(got) != "[1 2 3]" {
		t.Fatal(got)
	}
	if _, err := i.ComputeFloat64s(ctx); err == nil || err.(*Error).Code() != "CA_ETYPE" {
		t.Fatalf("dtype mismatch: %v", err)
	}
}

func TestElementwiseReductionsScan(t *testing.T) {
	ctx := ctxT(t, -1)
	v := data(120)
	x := mk(FromFloat64s(v, []int64{12, 10}, []int64{5, 3}))
	y := mk(mk(x.Scalar(OpMul, 2, false)).Scalar(OpAdd, 1, false))
	want := make([]float64, len(v))
	total := 0.0
	for i, a := range v {
		want[i] = 2*a + 1
		total += want[i]
	}
	near(t, mk(y.ComputeFloat64s(ctx)), want)
	near(t, mk(mk(y.Sum()).ComputeFloat64s(ctx)), []float64{total})
	cs := make([]float64, 10)
	for r := 0; r < 12; r++ {
		for c := 0; c < 10; c++ {
			cs[c] += want[r*10+c]
		}
	}
	near(t, mk(mk(y.Sum(0)).ComputeFloat64s(ctx)), cs)
	rm := make([]float64, 12)
	for r := range rm {
		rm[r] = math.Inf(-1)
		for c := 0; c < 10; c++ {
			rm[r] = math.Max(rm[r], v[r*10+c])
		}
	}
	near(t, mk(mk(x.Max(1)).ComputeFloat64s(ctx)), rm)
	abs := make([]float64, len(v))
	for i, a := range v {
		abs[i] = math.Abs(a)
	}
	near(t, mk(mk(mk(x.Binary(OpMul, x)).Unary(OpSqrt)).ComputeFloat64s(ctx)), abs)
	cum := append([]float64(nil), v...)
	for r := 0; r < 12; r++ {
		for c := 1; c < 10; c++ {
			cum[r*10+c] += cum[r*10+c-1]
		}
	}
	near(t, mk(mk(x.Scan(ScanCumSum, 1)).ComputeFloat64s(ctx)), cum)
	gt := mk(x.Scalar(OpGt, 0, false))
	if gt.DType() != Bool {
		t.Fatal(gt.DType())
	}
}

func TestCreationRechunk(t *testing.T) {
	ctx := ctxT(t, 1)
	a := mk(Arange(0, 10, 1, 3, Int64))
	if fmt.Sprint(a.Chunks()) != "[[3 3 3 1]]" {
		t.Fatal(a.Chunks())
	}
	r := mk(a.Rechunk([]int64{4}))
	if fmt.Sprint(r.Chunks()) != "[[4 4 2]]" || fmt.Sprint(mk(r.ComputeInt64s(ctx))) != "[0 1 2 3 4 5 6 7 8 9]" {
		t.Fatal(r.Chunks())
	}
	f := mk(Full([]int64{2, 2}, []int64{-1, -1}, Float64, 2.5))
	near(t, mk(f.ComputeFloat64s(ctx)), []float64{2.5, 2.5, 2.5, 2.5})
	z := mk(Zeros([]int64{0, 3}, []int64{1, 1}, Float64))
	if got := mk(z.ComputeFloat64s(ctx)); len(got) != 0 {
		t.Fatal(got)
	}
	u1 := mk(mk(RandomUniform([]int64{50, 40}, []int64{20, 15}, 9, 0, 1)).ComputeFloat64s(ctx))
	u2 := mk(mk(RandomUniform([]int64{50, 40}, []int64{20, 15}, 9, 0, 1)).ComputeFloat64s(ctx))
	near(t, u1, u2)
}

func TestGoKernel(t *testing.T) {
	ctx := ctxT(t, 2)
	var calls int64
	err := ctx.RegisterKernel("go.affine", func(ka *KernelArgs) (*Block, error) {
		atomic.AddInt64(&calls, 1)
		b := ka.Args[0].Block
		k, ok := ka.Args[1].AsFloat()
		if b == nil || !ok {
			return nil, errors.New("want (block, number)")
		}
		xs, err := b.Float64s()
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(xs))
		for i, a := range xs {
			out[i] = a*k + float64(ka.BlockIndex[0])
		}
		return NewBlockFloat64(b.Shape(), out)
	})
	if err != nil {
		t.Fatal(err)
	}
	v := data(20)
	x := mk(FromFloat64s(v, []int64{20}, []int64{6}))
	y := mk(x.MapBlocks("go.affine", nil, []interface{}{3.0}, 0))
	want := make([]float64, 20)
	for i, a := range v {
		want[i] = a*3 + float64(i/6)
	}
	near(t, mk(y.ComputeFloat64s(ctx)), want)
	if atomic.LoadInt64(&calls) != 4 {
		t.Fatal(calls)
	}
	// two inputs and a dtype change
	if err := ctx.RegisterKernel("go.greater", func(ka *KernelArgs) (*Block, error) {
		a, _ := ka.Args[0].Block.Float64s()
		b, _ := ka.Args[1].Block.Float64s()
		o := make([]int64, len(a))
		for i := range a {
			if a[i] > b[i] {
				o[i] = 1
			}
		}
		return NewBlockInt64(ka.Args[0].Block.Shape(), o)
	}); err != nil {
		t.Fatal(err)
	}
	z := mk(Zeros([]int64{20}, []int64{6}, Float64))
	g := mk(x.MapBlocks("go.greater", []*Array{z}, nil, Int64))
	got := mk(g.ComputeInt64s(ctx))
	for i, a := range v {
		if (a > 0) != (got[i] == 1) {
			t.Fatalf("element %d", i)
		}
	}
}

func TestKernelPanicsAndErrors(t *testing.T) {
	ctx := ctxT(t, 2)
	ok(t, ctx.RegisterKernel("go.panics", func(*KernelArgs) (*Block, error) { panic("kaboom 42") }))
	ok(t, ctx.RegisterKernel("go.fails", func(*KernelArgs) (*Block, error) { return nil, errors.New("no good") }))
	x := mk(Ones([]int64{10}, []int64{3}, Float64))
	_, err := mk(x.MapBlocks("go.panics", nil, nil, 0)).Compute(ctx)
	var e *Error
	if !errors.As(err, &e) || e.Status != -5 || !strings.Contains(e.Message, "kaboom 42") {
		t.Fatalf("panic: %v", err)
	}
	_, err = mk(x.MapBlocks("go.fails", nil, nil, 0)).Compute(ctx)
	if !errors.As(err, &e) || e.Code() != "CA_EKERNEL" || !strings.Contains(e.Message, "no good") {
		t.Fatalf("error: %v", err)
	}
	near(t, mk(mk(x.Sum()).ComputeFloat64s(ctx)), []float64{10})
}

func TestBadInput(t *testing.T) {
	if _, err := FromFloat64s([]float64{1, 2}, []int64{3}, []int64{1}); err == nil || err.(*Error).Status != -1 {
		t.Fatal(err)
	}
	x := mk(Ones([]int64{4, 5}, []int64{2, 2}, Float64))
	_, err := x.Sum(3)
	if err == nil || err.(*Error).Code() != "CA_EINVAL" || !strings.Contains(err.Error(), "3") {
		t.Fatal(err)
	}
	y := mk(Ones([]int64{3, 5}, []int64{2, 2}, Float64))
	if _, err := x.Binary(OpAdd, y); err == nil || err.(*Error).Message == "" {
		t.Fatal(err)
	}
	ctx := ctxT(t, 0)
	_, err = mk(x.MapBlocks("no.such.kernel", nil, nil, 0)).Compute(ctx)
	if err == nil || err.(*Error).Code() != "CA_ENOTFOUND" || !strings.Contains(err.Error(), "no.such.kernel") {
		t.Fatal(err)
	}
	if err := ctx.SetConfig("nope", "1"); err == nil || err.(*Error).Code() != "CA_ENOTFOUND" {
		t.Fatal(err)
	}
}

// Many goroutines failing at once: each must see its own message (read on its own OS thread).
func TestErrorsPerGoroutine(t *testing.T) {
	x := mk(Ones([]int64{4}, []int64{2}, Float64))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ax := int32(5 + i%20)
			runtime.Gosched()
			_, err := x.Sum(ax)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprint(ax)) {
				errs <- fmt.Errorf("axis %d: %v", ax, err)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestComputeManyPersistPictures(t *testing.T) {
	ctx := ctxT(t, 2)
	v := data(30)
	x := mk(FromFloat64s(v, []int64{30}, []int64{7}))
	s := mk(x.Sum())
	m := mk(x.Mean())
	bs := mk(ComputeMany(ctx, s, m))
	sum := 0.0
	for _, a := range v {
		sum += a
	}
	near(t, mk(bs[0].Float64s()), []float64{sum})
	near(t, mk(bs[1].Float64s()), []float64{sum / 30})
	p := mk(mk(x.Scalar(OpAdd, 1, false)).Persist(ctx))
	if fmt.Sprint(p.Chunks()) != fmt.Sprint(x.Chunks()) {
		t.Fatal(p.Chunks())
	}
	if svg := mk(x.SVG(0)); !strings.HasPrefix(svg, "<svg") {
		t.Fatal(svg)
	}
	g := mk(s.Graph())
	if g.NumTasks() <= 0 || g.NumLayers() < 2 || !strings.Contains(mk(g.Dot()), "digraph") {
		t.Fatal("graph")
	}
	path := filepath.Join(t.TempDir(), "x.npy")
	ok(t, x.ToNpy(ctx, path))
	near(t, mk(mk(FromNpy(path)).ComputeFloat64s(ctx)), v)
}

func TestSaveWithContextRecordsKernelVersions(t *testing.T) {
	if !HasFunction("ca_save") || !HasFunction("ca_graph_kernel_version") {
		t.Skip("the loaded library has no kernel versions in graph files")
	}
	ctx := ctxT(t, 1)
	x := mk(mk(Arange(0, 12, 1, 5, Float64)).Scalar(OpMul, 2, false))
	g := mk(x.Graph())
	if v, err := g.KernelVersion("ca.fused"); err != nil || v != 0 {
		t.Fatalf("in memory: version %d, %v; want 0 (not recorded)", v, err)
	}
	if _, err := g.KernelVersion("nope"); err == nil || err.(*Error).Code() != "CA_ENOTFOUND" {
		t.Fatalf("unused kernel: %v", err)
	}
	dir := t.TempDir()
	ok(t, g.SaveWithContext(filepath.Join(dir, "g"), ctx))
	h := mk(LoadGraph(filepath.Join(dir, "g")))
	if v, err := h.KernelVersion("ca.fused"); err != nil || v != 1 {
		t.Fatalf("loaded: version %d, %v; want 1", v, err)
	}
	ok(t, x.SaveWithContext(filepath.Join(dir, "a"), ctx))
	y := mk(Load(filepath.Join(dir, "a")))
	want := make([]float64, 12)
	for i := range want {
		want[i] = 2 * float64(i)
	}
	near(t, mk(y.ComputeFloat64s(ctx)), want)
	hy := mk(y.Graph())
	if v, err := hy.KernelVersion("ca.fused"); err != nil || v != 1 {
		t.Fatalf("loaded array: version %d, %v; want 1", v, err)
	}
}

func TestGraphAndArrayFiles(t *testing.T) {
	ctx := ctxT(t, 1)
	x := mk(mk(Arange(0, 12, 1, 5, Float64)).Scalar(OpMul, 2, false))
	dir := t.TempDir()
	g := mk(x.Graph())
	if HasFunction("ca_save") && HasFunction("ca_load") {
		ok(t, g.Save(filepath.Join(dir, "g")))
		h := mk(LoadGraph(filepath.Join(dir, "g")))
		if h.NumTasks() != g.NumTasks() || h.NumLayers() != g.NumLayers() {
			t.Fatal("graph differs after save/load")
		}
	} else if err := g.Save(filepath.Join(dir, "g")); err == nil || err.(*Error).Code() != "CA_EUNSUPPORTED" {
		t.Fatal(err)
	}
	if HasFunction("ca_save") && HasFunction("ca_load") {
		ok(t, x.Save(filepath.Join(dir, "a")))
		y := mk(Load(filepath.Join(dir, "a")))
		if y.Name() != x.Name() || fmt.Sprint(y.Chunks()) != fmt.Sprint(x.Chunks()) {
			t.Fatal("array differs after save/load")
		}
		want := make([]float64, 12)
		for i := range want {
			want[i] = 2 * float64(i)
		}
		near(t, mk(y.ComputeFloat64s(ctx)), want)
	} else if err := x.Save(filepath.Join(dir, "a")); err == nil || err.(*Error).Code() != "CA_EUNSUPPORTED" {
		t.Fatal(err)
	}
}

// Handles dropped without Close are freed by finalizers.
func TestFinalizers(t *testing.T) {
	for i := 0; i < 200; i++ {
		x, _ := Ones([]int64{100}, []int64{10}, Float64)
		_, _ = x.Sum()
	}
	runtime.GC()
	runtime.GC()
}

func TestMain(m *testing.M) {
	if os.Getenv("CHUNKARRAY_LIB") == "" {
		fmt.Fprintln(os.Stderr, "note: CHUNKARRAY_LIB is not set; loading libchunkarray.so.1 from the loader path")
	}
	os.Exit(m.Run())
}
