#include "gpu/arch_support.hpp"

#include <sstream>

namespace gatemap::gpu {

std::string kernels_for(int major, int minor, const std::string& architectures) {
  int cubin = -1, ptx = -1;  // the best of each kind, as major * 10 + minor
  std::istringstream list(architectures);
  for (std::string entry; std::getline(list, entry, ';');) {
    const size_t dash = entry.find('-');
    const std::string number = entry.substr(0, dash), kind = dash == std::string::npos ? "" : entry.substr(dash + 1);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) continue;
    const int arch = std::stoi(number);
    // A cubin runs on its major's later minors; PTX on any later card, compiled when loaded.
    if (kind != "virtual" && arch / 10 == major && arch % 10 <= minor && arch > cubin) cubin = arch;
    if (kind != "real" && arch <= major * 10 + minor && arch > ptx) ptx = arch;
  }
  if (cubin >= 0) return "sm_" + std::to_string(cubin) + " cubin";
  if (ptx >= 0) return "compute_" + std::to_string(ptx) + " PTX, compiled when loaded";
  return "none";
}

}  // namespace gatemap::gpu
