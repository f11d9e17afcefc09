module github.com/chunkarray/chunkarray/bindings/go

go 1.19
