#pragma once
// --gpu-mem: a run that allocates at most this much of each GPU it uses, as it would on
// a card of that size (an L4's 24 GB on an H100). What a device has free beyond the cap
// is taken when the run starts and held until it ends, so every engine that sizes its
// batches from the free memory sees the smaller card, and what does not fit takes the
// paths a small card takes (smaller batches, the CPU), said on stderr as there.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace gatemap::gpu {

class MemoryCap {
 public:
  // cap_bytes 0: no cap. A device listed twice is capped once; `command` names the run's
  // messages. Holds nothing without CUDA or devices.
  MemoryCap(const std::vector<int>& devices, size_t cap_bytes, const std::string& command);
  ~MemoryCap();  // gives the held memory back
  MemoryCap(const MemoryCap&) = delete;
  MemoryCap& operator=(const MemoryCap&) = delete;

 private:
  std::vector<std::pair<int, void*>> held_;  // (device, allocation)
};

}  // namespace gatemap::gpu
