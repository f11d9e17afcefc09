// libchunkarray_mpi: a chunkarray transport (chunkarray/dist.h) over an MPI communicator.
//
// Only public chunkarray headers are used: the distributed engine lives in libchunkarray
// (ca_dist_compute); this library maps its six transport calls onto MPI_Isend / MPI_Irecv /
// MPI_Iprobe / MPI_Test / MPI_Allreduce / MPI_Bcast on a duplicate of the caller's communicator
// (with MPI_ERRORS_RETURN, so a failing call becomes CA_EIO rather than an abort).
#include <chunkarray/chunkarray.h>
#include <chunkarray/mpi.h>
#include <mpi.h>

#include <climits>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace {

bool g_we_initialized = false;

struct MpiTransport {
  ca_transport_t t;  // first: the public view
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<MPI_Request> reqs;
  std::vector<int64_t> free_slots;
};

MpiTransport *self(void *ud) { return static_cast<MpiTransport *>(ud); }

int64_t add_request(MpiTransport *m, MPI_Request r) {
  if (!m->free_slots.empty()) {
    int64_t h = m->free_slots.back();
    m->free_slots.pop_back();
    m->reqs[size_t(h)] = r;
    return h;
  }
  m->reqs.push_back(r);
  return int64_t(m->reqs.size()) - 1;
}

// Messages larger than INT_MAX bytes are not supported by the int counts used here.
int32_t t_isend(void *ud, int32_t dest, int32_t tag, const void *data, size_t n, int64_t *request) {
  if (n > size_t(INT_MAX)) return -1;
  MpiTransport *m = self(ud);
  MPI_Request r;
  int rc = MPI_Isend(data, int(n), MPI_BYTE, dest, tag, m->comm, &r);
  if (rc != MPI_SUCCESS) return rc;
  try {
    *request = add_request(m, r);
  } catch (...) {
    return -2;
  }
  return 0;
}

int32_t t_irecv(void *ud, int32_t source, int32_t tag, void *data, size_t n, int64_t *request) {
  if (n > size_t(INT_MAX)) return -1;
  MpiTransport *m = self(ud);
  MPI_Request r;
  int rc = MPI_Irecv(data, int(n), MPI_BYTE, source, tag, m->comm, &r);
  if (rc != MPI_SUCCESS) return rc;
  try {
    *request = add_request(m, r);
  } catch (...) {
    return -2;
  }
  return 0;
}

int32_t t_iprobe(void *ud, int32_t tag, int32_t *found, int32_t *source, size_t *nbytes) {
  MpiTransport *m = self(ud);
  int flag = 0;
  MPI_Status st;
  int rc = MPI_Iprobe(MPI_ANY_SOURCE, tag, m->comm, &flag, &st);
  if (rc != MPI_SUCCESS) return rc;
  *found = flag;
  if (flag) {
    int count = 0;
    rc = MPI_Get_count(&st, MPI_BYTE, &count);
    if (rc != MPI_SUCCESS) return rc;
    *source = st.MPI_SOURCE;
    *nbytes = size_t(count);
  }
  return 0;
}

int32_t t_test(void *ud, int64_t request, int32_t *done) {
  MpiTransport *m = self(ud);
  if (request < 0 || size_t(request) >= m->reqs.size()) return -1;
  int flag = 0;
  int rc = MPI_Test(&m->reqs[size_t(request)], &flag, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  *done = flag;
  if (flag) {
    try {
      m->free_slots.push_back(request);
    } catch (...) {
      return -2;
    }
  }
  return 0;
}

int32_t t_allreduce_min(void *ud, int64_t *values, int32_t n) {
  return MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_INT64_T, MPI_MIN, self(ud)->comm);
}

int32_t t_bcast(void *ud, void *data, size_t n, int32_t root) {
  if (n > size_t(INT_MAX)) return -1;
  return MPI_Bcast(data, int(n), MPI_BYTE, root, self(ud)->comm);
}

bool mpi_ready() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

std::string mpi_error(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(buf, size_t(len));
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_mpi_init(int32_t *rank, int32_t *size) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (fin) return ca_set_error(CA_EIO, "ca_mpi_init: MPI was already finalized");
  if (!init) {
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) return ca_set_error(CA_EIO, ("ca_mpi_init: MPI_Init_thread failed: " + mpi_error(rc)).c_str());
    g_we_initialized = true;
  }
  int r = 0, s = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  if (rank) *rank = r;
  if (size) *size = s;
  return CA_OK;
}

CA_API ca_status_t ca_mpi_finalize(void) {
  if (!g_we_initialized || !mpi_ready()) return CA_OK;
  g_we_initialized = false;
  int rc = MPI_Finalize();
  if (rc != MPI_SUCCESS) return ca_set_error(CA_EIO, ("ca_mpi_finalize: " + mpi_error(rc)).c_str());
  return CA_OK;
}

CA_API ca_mpi_comm_t ca_mpi_comm_world(void) { return ca_mpi_comm_t(MPI_Comm_c2f(MPI_COMM_WORLD)); }

CA_API ca_status_t ca_mpi_transport_new(ca_transport_t **out, ca_mpi_comm_t comm) {
  if (!out) return ca_set_error(CA_EINVAL, "ca_mpi_transport_new: out is NULL");
  *out = nullptr;
  if (!mpi_ready()) return ca_set_error(CA_EIO, "ca_mpi_transport_new: MPI is not initialized (ca_mpi_init, or MPI_Init)");
  if (comm < INT_MIN || comm > INT_MAX)
    return ca_set_error(CA_EINVAL, ("ca_mpi_transport_new: " + std::to_string(comm) + " is not a communicator handle").c_str());
  MPI_Comm c = MPI_Comm_f2c(MPI_Fint(comm));
  if (c == MPI_COMM_NULL) return ca_set_error(CA_EINVAL, "ca_mpi_transport_new: the communicator is MPI_COMM_NULL");
  MpiTransport *m = new (std::nothrow) MpiTransport();
  if (!m) return ca_set_error(CA_ENOMEM, "ca_mpi_transport_new: out of memory");
  int rc = MPI_Comm_dup(c, &m->comm);
  if (rc != MPI_SUCCESS) {
    delete m;
    return ca_set_error(CA_EIO, ("ca_mpi_transport_new: MPI_Comm_dup failed: " + mpi_error(rc)).c_str());
  }
  MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
  int r = 0, s = 1;
  MPI_Comm_rank(m->comm, &r);
  MPI_Comm_size(m->comm, &s);
  m->t.struct_size = sizeof(ca_transport_t);
  m->t.rank = r;
  m->t.size = s;
  m->t.user_data = m;
  m->t.isend = t_isend;
  m->t.irecv = t_irecv;
  m->t.iprobe = t_iprobe;
  m->t.test = t_test;
  m->t.allreduce_min = t_allreduce_min;
  m->t.bcast = t_bcast;
  *out = &m->t;
  return CA_OK;
}

CA_API void ca_mpi_transport_free(ca_transport_t *t) {
  if (!t) return;
  MpiTransport *m = reinterpret_cast<MpiTransport *>(t);
  if (m->comm != MPI_COMM_NULL && mpi_ready()) MPI_Comm_free(&m->comm);
  delete m;
}

}  // extern "C"

namespace {

// Run `call` with a transport over `comm` in a copy of `dopts` (NULL: defaults), keeping its
// error message across the transport's release.
template <class F>
ca_status_t with_transport(const char *what, ca_mpi_comm_t comm, const ca_dist_options_t *dopts, F call) {
  ca_dist_options_t o = CA_DIST_OPTIONS_INIT;
  if (dopts) {
    if (dopts->struct_size < sizeof(uint32_t))
      return ca_set_error(CA_EINVAL, (std::string(what) + ": dopts struct_size is too small").c_str());
    std::memcpy(&o, dopts, dopts->struct_size < sizeof(o) ? dopts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
  }
  ca_transport_t *t = nullptr;
  ca_status_t st = ca_mpi_transport_new(&t, comm);
  if (st != CA_OK) return st;
  o.transport = t;
  st = call(&o);
  std::string msg = st != CA_OK ? ca_last_error_message() : "";
  ca_mpi_transport_free(t);
  if (st != CA_OK) {
    // The message names the function the caller called (what), not the ca_dist_* one it delegates to.
    size_t colon = msg.find(": ");
    if (msg.compare(0, 8, "ca_dist_") == 0 && colon != std::string::npos &&
        msg.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == colon)
      msg = std::string(what) + msg.substr(colon);
    ca_set_error(st, msg.c_str());
  }
  return st;
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_mpi_compute(ca_block_t **results, ca_context_t *ctx, ca_mpi_comm_t comm,
                                  const ca_graph_t *graph, const ca_key_t *keys, size_t nkeys,
                                  const ca_compute_options_t *opts, const ca_dist_options_t *dopts) {
  if (results)
    for (size_t i = 0; i < nkeys; ++i) results[i] = nullptr;
  if (!ctx || !graph) return ca_set_error(CA_EINVAL, !ctx ? "ca_mpi_compute: ctx is NULL" : "ca_mpi_compute: graph is NULL");
  return with_transport("ca_mpi_compute", comm, dopts, [&](const ca_dist_options_t *o) {
    return ca_dist_compute(results, ctx, graph, keys, nkeys, opts, o);
  });
}

CA_API ca_status_t ca_mpi_array_compute(ca_block_t **out, ca_context_t *ctx, ca_mpi_comm_t comm, const ca_array_t *a,
                                        const ca_compute_options_t *opts, const ca_dist_options_t *dopts) {
  if (out) *out = nullptr;
  if (!out || !ctx || !a) return ca_set_error(CA_EINVAL, "ca_mpi_array_compute: out, ctx or a is NULL");
  return with_transport("ca_mpi_array_compute", comm, dopts,
                        [&](const ca_dist_options_t *o) { return ca_dist_array_compute(out, ctx, a, opts, o); });
}

CA_API ca_status_t ca_mpi_array_persist(ca_array_t **out, ca_context_t *ctx, ca_mpi_comm_t comm, const ca_array_t *a,
                                        const ca_compute_options_t *opts, const ca_dist_options_t *dopts) {
  if (out) *out = nullptr;
  if (!out || !ctx || !a) return ca_set_error(CA_EINVAL, "ca_mpi_array_persist: out, ctx or a is NULL");
  return with_transport("ca_mpi_array_persist", comm, dopts,
                        [&](const ca_dist_options_t *o) { return ca_dist_array_persist(out, ctx, a, opts, o); });
}

CA_API ca_status_t ca_mpi_array_store(ca_context_t *ctx, ca_mpi_comm_t comm, const ca_array_t *a, ca_store_fn sink,
                                      void *user_data, const ca_compute_options_t *opts,
                                      const ca_dist_options_t *dopts) {
  if (!ctx || !a || !sink) return ca_set_error(CA_EINVAL, "ca_mpi_array_store: ctx, a or sink is NULL");
  return with_transport("ca_mpi_array_store", comm, dopts, [&](const ca_dist_options_t *o) {
    return ca_dist_array_store(ctx, a, sink, user_data, opts, o);
  });
}

CA_API ca_status_t ca_mpi_array_to_zarr(ca_context_t *ctx, ca_mpi_comm_t comm, const ca_array_t *a, const char *path,
                                        const ca_zarr_options_t *zopts, const ca_compute_options_t *opts,
                                        const ca_dist_options_t *dopts) {
  if (!ctx || !a || !path) return ca_set_error(CA_EINVAL, "ca_mpi_array_to_zarr: ctx, a or path is NULL");
  return with_transport("ca_mpi_array_to_zarr", comm, dopts, [&](const ca_dist_options_t *o) {
    return ca_dist_array_to_zarr(ctx, a, path, zopts, opts, o);
  });
}

}  // extern "C"
