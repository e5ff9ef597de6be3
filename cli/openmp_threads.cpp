// Setting the thread count of a loaded OpenMP runtime (openmp_threads.h).
#include "openmp_threads.h"

#include <dlfcn.h>

namespace weir::cli {

int set_openmp_threads(unsigned n) {
  int threads = 0;
  if (void* gomp = ::dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    if (auto* set = reinterpret_cast<void (*)(int)>(::dlsym(gomp, "omp_set_num_threads")); set && n)
      set(static_cast<int>(n));
    if (auto* get = reinterpret_cast<int (*)()>(::dlsym(gomp, "omp_get_max_threads"))) threads = get();
    ::dlclose(gomp);
  }
  return threads;
}

}  // namespace weir::cli
