#include "weir/runtime/byte_size.h"

#include <sys/sysinfo.h>

#include <iomanip>
#include <sstream>

namespace weir::runtime {

std::string byte_size(long double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000 && u < 6) bytes /= 1000, ++u;
  std::ostringstream os;
  os << std::setprecision(bytes < 10 && u > 0 ? 2 : 3) << static_cast<double>(bytes) << " " << units[u];
  return os.str();
}

long double machine_memory() {
  struct sysinfo info {};
  if (::sysinfo(&info) != 0) return 0;
  return (static_cast<long double>(info.totalram) + static_cast<long double>(info.totalswap)) *
         static_cast<long double>(info.mem_unit);
}

}  // namespace weir::runtime
