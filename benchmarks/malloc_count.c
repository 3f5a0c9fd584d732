// LD_PRELOAD shim counting heap allocations (benchmarks/alloc_profile.py builds and loads it).
// Counts calls of malloc/calloc/realloc/aligned_alloc/posix_memalign/memalign, and separately
// those of at least 64 KiB (glibc serves those from mmap or the top of the heap: page faults).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdatomic.h>

static atomic_long n_alloc, n_big, bytes;
static void* (*r_malloc)(size_t);
static void* (*r_calloc)(size_t, size_t);
static void* (*r_realloc)(void*, size_t);
static void* (*r_aligned)(size_t, size_t);
static int (*r_posix)(void**, size_t, size_t);
static void* (*r_memalign)(size_t, size_t);

static void note(size_t n) {
  atomic_fetch_add_explicit(&n_alloc, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&bytes, (long)n, memory_order_relaxed);
  if (n >= 65536) atomic_fetch_add_explicit(&n_big, 1, memory_order_relaxed);
}

// dlsym may call calloc: serve that from a static pool.
static char boot[4096];
static size_t boot_used;
static int resolving;
static void resolve(void) {
  if (r_malloc || resolving) return;
  resolving = 1;
  r_calloc = dlsym(RTLD_NEXT, "calloc");
  r_realloc = dlsym(RTLD_NEXT, "realloc");
  r_aligned = dlsym(RTLD_NEXT, "aligned_alloc");
  r_posix = dlsym(RTLD_NEXT, "posix_memalign");
  r_memalign = dlsym(RTLD_NEXT, "memalign");
  r_malloc = dlsym(RTLD_NEXT, "malloc");
  resolving = 0;
}

void* malloc(size_t n) { resolve(); note(n); return r_malloc(n); }
void* calloc(size_t a, size_t b) {
  if (!r_calloc) {
    if (resolving) { void* p = boot + boot_used; boot_used += (a * b + 15) & ~(size_t)15; return p; }
    resolve();
  }
  note(a * b);
  return r_calloc(a, b);
}
void* realloc(void* p, size_t n) { resolve(); note(n); return r_realloc(p, n); }
void* aligned_alloc(size_t a, size_t n) { resolve(); note(n); return r_aligned(a, n); }
int posix_memalign(void** p, size_t a, size_t n) { resolve(); note(n); return r_posix(p, a, n); }
void* memalign(size_t a, size_t n) { resolve(); note(n); return r_memalign(a, n); }
void free(void* p);   // not wrapped: glibc's

void mc_read(long* out) { out[0] = n_alloc; out[1] = n_big; out[2] = bytes; }
