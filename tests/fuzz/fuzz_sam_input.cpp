// libFuzzer target: the caller's SAM/BAM input (headers, sort order, records outside
// their contigs, unplaced records).
#include "caller/input.hpp"
#include "common/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gatemap::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  try {
    gatemap::caller::ReadInput in({file.path()}, 0);
    int tid = -1;
    gatemap::caller::detail::AlignedRead read;
    while (in.next(tid, read)) {
    }
  } catch (const gatemap::Error&) {
  }
  return 0;
}
