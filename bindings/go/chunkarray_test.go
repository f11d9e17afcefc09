package chunkarray

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// skipWithoutGraphFiles skips a test whose subject is a graph file in a library built without them
// (-Dcapnp=disabled: saving says CA_EUNSUPPORTED), instead of failing there.
func skipWithoutGraphFiles(t *testing.T) {
	t.Helper()
	g, err := NewGraph()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	err = g.Save(filepath.Join(t.TempDir(), "probe"))
	if e, isErr := err.(*Error); isErr && e.Code() == "CA_EUNSUPPORTED" {
		t.Skip("this chunkarray was built without graph files (-Dcapnp=disabled)")
	}
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ctxT(t *testing.T, n int) *Context {
	c := mk(NewContext(n))
	t.Cleanup(func() { c.Close() })
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
	if !errors.As(err, &e) || e.Status != StatusKernel || !strings.Contains(e.Message, "kaboom 42") {
		t.Fatalf("panic: %v", err)
	}
	_, err = mk(x.MapBlocks("go.fails", nil, nil, 0)).Compute(ctx)
	if !errors.As(err, &e) || e.Code() != "CA_EKERNEL" || !strings.Contains(e.Message, "no good") {
		t.Fatalf("error: %v", err)
	}
	near(t, mk(mk(x.Sum()).ComputeFloat64s(ctx)), []float64{10})
}

func TestBadInput(t *testing.T) {
	if _, err := FromFloat64s([]float64{1, 2}, []int64{3}, []int64{1}); err == nil || err.(*Error).Status != StatusInvalidArgument {
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

func TestSaveWithKernelVersions(t *testing.T) {
	skipWithoutGraphFiles(t)
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
	ok(t, g.SaveWithKernelVersions(filepath.Join(dir, "g"), ctx))
	h := mk(LoadGraph(filepath.Join(dir, "g")))
	if v, err := h.KernelVersion("ca.fused"); err != nil || v != 1 {
		t.Fatalf("loaded: version %d, %v; want 1", v, err)
	}
	ok(t, x.SaveWithKernelVersions(filepath.Join(dir, "a"), ctx))
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
	skipWithoutGraphFiles(t)
	ctx := ctxT(t, 1)
	x := mk(mk(Arange(0, 12, 1, 5, Float64)).Scalar(OpMul, 2, false))
	dir := t.TempDir()
	g := mk(x.Graph())
	ok(t, g.Save(filepath.Join(dir, "g")))
	h := mk(LoadGraph(filepath.Join(dir, "g")))
	if h.NumTasks() != g.NumTasks() || h.NumLayers() != g.NumLayers() {
		t.Fatal("graph differs after save/load")
	}
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
	if !HasFunction("ca_save") || HasFunction("ca_no_such_function") {
		t.Fatal("HasFunction")
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

// The linked library is the one these headers describe.
func TestHeaderAndLibraryAgree(t *testing.T) {
	num, _, _ := VersionNumber()
	if num != HeaderVersionNumber {
		t.Fatalf("library version %d, headers %d", num, HeaderVersionNumber)
	}
}

// The seed's low level: NewGraph, AddTask with every literal kind and key references, NewArray.
func TestGraphBuilder(t *testing.T) {
	ctx := ctxT(t, 0)
	// a kernel that flattens its arguments into a float64 block
	ok(t, ctx.RegisterKernel("go.echo", func(ka *KernelArgs) (*Block, error) {
		var out []float64
		var walk func(vs []Value) error
		walk = func(vs []Value) error {
			for _, v := range vs {
				switch v.Kind {
				case ArgNone:
					out = append(out, -1)
				case ArgInt64, ArgFloat64:
					f, _ := v.AsFloat()
					out = append(out, f)
				case ArgString:
					out = append(out, float64(len(v.Str)))
				case ArgBytes:
					s := 0
					for _, b := range v.Bytes {
						s += int(b)
					}
					out = append(out, float64(s))
				case ArgTuple:
					for _, x := range v.Tuple {
						out = append(out, float64(x))
					}
				case ArgList:
					out = append(out, float64(len(v.List)))
					if err := walk(v.List); err != nil {
						return err
					}
				case ArgBlock:
					f, err := v.Block.Float64s()
					if err != nil {
						return err
					}
					out = append(out, f...)
				default:
					return fmt.Errorf("unexpected %v", v.Kind)
				}
			}
			return nil
		}
		if err := walk(ka.Args); err != nil {
			return nil, err
		}
		return NewBlockFloat64([]int64{int64(len(out))}, out)
	}))
	g := mk(NewGraph())
	defer g.Close()
	a0, a1 := NewKey("a", 0), NewKey("a", 1)
	ok(t, g.AddTask(a0, "go.echo", IntArg(7), FloatArg(0.5), StrArg("four"), BytesArg([]byte{1, 2, 3}),
		TupleArg(10, 20), ListArg(IntArg(1), NoneArg(), ListArg()), NoneArg()))
	ok(t, g.AddTask(a1, "go.echo", KeyArg("a", 0), IntArg(99)))
	if !g.HasKey(a0) || !g.HasKey(a1) || g.HasKey(NewKey("a", 2)) || g.NumTasks() != 2 {
		t.Fatal("keys")
	}
	if l := mk(g.Layers()); fmt.Sprint(l) != "[a]" {
		t.Fatalf("layers %v", l)
	}
	first := []float64{7, 0.5, 4, 6, 10, 20, 3, 1, -1, 0, -1}
	want := append(append(append([]float64{}, first...), first...), 99)
	x := mk(NewArray(g, "a", [][]int64{{11, 12}}, Float64))
	near(t, mk(x.ComputeFloat64s(ctx)), want)
	// the array keeps its layers: later changes to the graph do not reach it
	c := mk(g.Copy())
	ok(t, g.AddTask(NewKey("a", 2), "go.echo"))
	if c.HasKey(NewKey("a", 2)) {
		t.Fatal("copy shares later changes")
	}
	near(t, mk(x.ComputeFloat64s(ctx)), want)
	// 0-d
	ok(t, ctx.RegisterKernel("go.scalar", func(*KernelArgs) (*Block, error) { return NewBlockFloat64(nil, []float64{2.5}) }))
	g0 := mk(NewGraph())
	ok(t, g0.AddTask(NewKey("s"), "go.scalar"))
	s := mk(NewArray(g0, "s", nil, Float64))
	if s.Ndim() != 0 {
		t.Fatal("ndim")
	}
	near(t, mk(s.ComputeFloat64s(ctx)), []float64{2.5})
	ok(t, g.Merge(g0))
	if l := mk(g.Layers()); len(l) != 2 {
		t.Fatalf("merged layers %v", l)
	}
	if NewKey("a", 0, 1).String() != "('a', 0, 1)" {
		t.Fatal(NewKey("a", 0, 1).String())
	}
}

func TestGraphBuilderErrors(t *testing.T) {
	g := mk(NewGraph())
	k := NewKey("e", 0, 0)
	ok(t, g.AddTask(k, "np.eye", IntArg(2)))
	if err := g.AddTask(k, "np.eye", IntArg(2)); !errors.Is(err, StatusExists) {
		t.Fatalf("duplicate: %v", err)
	}
	if err := g.AddTask(NewKey("e", 1), "np.eye"); !errors.Is(err, StatusInvalidArgument) {
		t.Fatalf("index count: %v", err)
	}
	for _, bad := range []error{g.AddTask(NewKey("", 0), "k"), g.AddTask(NewKey("x\x00y", 0), "k"),
		g.AddTask(NewKey("x", 0), "k", StrArg("a\x00b"))} {
		if !errors.Is(bad, StatusInvalidArgument) {
			t.Fatalf("bad name or argument: %v", bad)
		}
	}
	_, err := NewArray(g, "e", [][]int64{{2, 2}, {2}}, Float64)
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusNotFound || !strings.Contains(e.Message, "('e', 1, 0)") {
		t.Fatalf("missing key: %v", err)
	}
	if _, err := NewArray(g, "e", [][]int64{{-2}, {2}}, Float64); !errors.Is(err, StatusInvalidArgument) {
		t.Fatalf("negative chunk: %v", err)
	}
	if _, err := NewArray(g, "nope", [][]int64{{2}}, Float64); !errors.Is(err, StatusNotFound) {
		t.Fatalf("missing layer: %v", err)
	}
	if _, err := NewArray(nil, "e", [][]int64{{2}}, Float64); !errors.Is(err, StatusInvalidArgument) {
		t.Fatalf("nil graph: %v", err)
	}
	if a := mk(NewArray(g, "e", [][]int64{{2}, {2}}, Float64)); fmt.Sprint(a.Shape()) != "[2 2]" {
		t.Fatal(a.Shape())
	}
}

// Compute, ComputeMany, Persist and ToNpy stop when their context.Context is done.
func TestContextCancellation(t *testing.T) {
	c := ctxT(t, 2)
	var started int32
	ok(t, c.RegisterKernel("go.slow", func(ka *KernelArgs) (*Block, error) {
		atomic.AddInt32(&started, 1)
		time.Sleep(20 * time.Millisecond)
		f, err := ka.Args[0].Block.Float64s()
		if err != nil {
			return nil, err
		}
		return NewBlockFloat64(ka.Args[0].Block.Shape(), f)
	}))
	x := mk(mk(Ones([]int64{400}, []int64{1}, Float64)).MapBlocks("go.slow", nil, nil, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := x.ComputeContext(ctx, c)
	if !errors.Is(err, StatusCanceled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline: %v", err)
	}
	if el := time.Since(t0); el > 2*time.Second || atomic.LoadInt32(&started) >= 400 {
		t.Fatalf("not stopped early: %v, %d tasks", el, started)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	for _, err := range []error{
		func() error { _, err := x.ComputeContext(ctx2, c); return err }(),
		func() error { _, err := ComputeManyContext(ctx2, c, x); return err }(),
		func() error { _, err := x.PersistContext(ctx2, c); return err }(),
		x.ToNpyContext(ctx2, c, filepath.Join(t.TempDir(), "x.npy")),
	} {
		if !errors.Is(err, context.Canceled) || !errors.Is(err, StatusCanceled) {
			t.Fatalf("cancelled before start: %v", err)
		}
	}
	// cancelling mid-way through Persist, then the same context type with no deadline completes
	ctx3, cancel3 := context.WithCancel(context.Background())
	go func() { time.Sleep(40 * time.Millisecond); cancel3() }()
	if _, err := x.PersistContext(ctx3, c); !errors.Is(err, context.Canceled) {
		t.Fatalf("persist: %v", err)
	}
	y := mk(mk(Ones([]int64{6}, []int64{4}, Float64)).MapBlocks("go.slow", nil, nil, 0))
	near(t, mk(mk(y.ComputeContext(context.Background(), c)).Float64s()), []float64{1, 1, 1, 1, 1, 1})
	ctx4, cancel4 := context.WithCancel(context.Background())
	defer cancel4()
	near(t, mk(mk(y.ComputeContext(ctx4, c)).Float64s()), []float64{1, 1, 1, 1, 1, 1})
}

// Typed constants carry the header's values and print their names.
func TestTypedConstants(t *testing.T) {
	if OpAdd.String() != "add" || RedArgMax.String() != "argmax" || ScanCumSum.String() != "cumsum" {
		t.Fatal(OpAdd, RedArgMax, ScanCumSum)
	}
	if Float64.String() != "float64" || ArgTuple.String() != "tuple" || StatusNotFound.String() != "CA_ENOTFOUND" {
		t.Fatal(Float64, ArgTuple, StatusNotFound)
	}
	ctx := ctxT(t, 1)
	x := mk(FromFloat64s([]float64{4, 9, 16}, []int64{3}, []int64{2}))
	near(t, mk(mk(x.Unary(OpSqrt)).ComputeFloat64s(ctx)), []float64{2, 3, 4})
	near(t, mk(mk(x.Binary(OpFloorDiv, mk(FromFloat64s([]float64{3, 2, 5}, []int64{3}, []int64{1})))).ComputeFloat64s(ctx)), []float64{1, 4, 3})
	i := mk(Arange(0, 5, 1, 2, Int64))
	got := mk(mk(i.ScalarInt(OpMul, 3, false)).ComputeInt64s(ctx))
	if fmt.Sprint(got) != "[0 3 6 9 12]" {
		t.Fatal(got)
	}
	var closer io.Closer = x
	if closer.Close() != nil || x.Close() != nil {
		t.Fatal("Close")
	}
}
