package chunkarray

// FromHDF5/ToHDF5 (skipped when the library was built without HDF5) and the npy stacks, round trips
// checked against the source values, and the errors.

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func ioData(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)*0.25 - 2
	}
	return v
}

func TestHDF5RoundTrip(t *testing.T) {
	c, err := NewContext(2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v := ioData(19 * 6)
	x, err := FromFloat64s(v, []int64{19, 6}, []int64{8, 4})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.h5")
	if err := x.ToHDF5(c, path, "/g/plain", DefaultHDF5Options()); errors.Is(err, StatusUnsupported) {
		t.Skip("built without HDF5:", err)
	} else if err != nil {
		t.Fatal(err)
	}
	gz := DefaultHDF5Options()
	gz.Chunks, gz.GzipLevel, gz.Shuffle = []int64{5, 6}, 3, true
	if err := x.ToHDF5(c, path, "gz", gz); err != nil {
		t.Fatal(err)
	}
	contig := DefaultHDF5Options()
	contig.Contiguous = true
	if err := x.ToHDF5(c, path, "contig", contig); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"/g/plain", "gz", "contig"} {
		for _, spec := range []string{"", "(7, 2)"} {
			a, err := FromHDF5(path, name, spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.ComputeFloat64s(c)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, v) {
				t.Fatalf("%s %q: values differ", name, spec)
			}
			a.Close()
		}
	}
	a, _ := FromHDF5(path, "gz", "")
	if got := a.Chunks()[0]; !reflect.DeepEqual(got, []int64{5, 5, 5, 4}) {
		t.Fatalf("gz chunks %v", got)
	}
	if err := x.ToHDF5(c, path, "gz", DefaultHDF5Options()); !errors.Is(err, StatusExists) {
		t.Fatalf("overwriting without Overwrite: %v", err)
	}
	_, err = FromHDF5(path, "nope", "")
	if !errors.Is(err, StatusNotFound) || !strings.Contains(err.Error(), "has no dataset 'nope'") {
		t.Fatalf("missing dataset: %v", err)
	}
}

func TestNpyStackRoundTrip(t *testing.T) {
	c, err := NewContext(2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v := ioData(9 * 4)
	x, _ := FromFloat64s(v, []int64{9, 4}, []int64{4, 3})
	for axis, want := range [][]int64{{4, 4, 1}, {3, 1}} {
		dir := filepath.Join(t.TempDir(), "s")
		if err := x.ToNpyStack(c, dir, axis); err != nil {
			t.Fatal(err)
		}
		b, err := FromNpyStack(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Chunks()[axis]; !reflect.DeepEqual(got, want) {
			t.Fatalf("axis %d: chunks %v, want %v", axis, got, want)
		}
		got, err := b.ComputeFloat64s(c)
		if err != nil || !reflect.DeepEqual(got, v) {
			t.Fatalf("axis %d: %v", axis, err)
		}
	}
	if _, err := FromNpyStack(filepath.Join(t.TempDir(), "none")); !errors.Is(err, StatusNotFound) {
		t.Fatalf("missing stack: %v", err)
	}
}
