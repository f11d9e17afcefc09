module chunkarray

go 1.19
