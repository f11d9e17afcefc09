/**
 * @file chunkarray/chunkarray.h
 * @brief The whole public C API of chunkarray: include this one header (define CA_EXPERIMENTAL
 *        first for the experimental part, chunkarray/experimental.h).
 */
#ifndef CHUNKARRAY_CHUNKARRAY_H
#define CHUNKARRAY_CHUNKARRAY_H

#include "chunkarray/common.h"
#include "chunkarray/block.h"
#include "chunkarray/kernel.h"
#include "chunkarray/context.h"
#include "chunkarray/graph.h"
#include "chunkarray/array.h"
#include "chunkarray/io.h"
#include "chunkarray/overlap.h"
#include "chunkarray/gufunc.h"
#include "chunkarray/store.h"
#include "chunkarray/linalg.h"
#include "chunkarray/fft.h"
#include "chunkarray/masked.h"
#include "chunkarray/shape.h"
#include "chunkarray/slicing.h"
#include "chunkarray/routines.h"
#include "chunkarray/format.h"
#include "chunkarray/plugin.h"
#include "chunkarray/experimental.h" /* declares chunkarray/dist.h with CA_EXPERIMENTAL */

#endif /* CHUNKARRAY_CHUNKARRAY_H */
