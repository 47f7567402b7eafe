// libFuzzer target: the index loader. A file it accepts must then answer lookups and
// base queries inside the reference.
#include "common/error.hpp"
#include "index/index.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gatemap::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  try {
    const auto idx = gatemap::index::load_index(file.path());
    const uint64_t keys = uint64_t{1} << (2 * idx->k());
    for (uint64_t key = 0; key < keys && key < 4096; key += 7) {
      const auto hits = idx->lookup(key);
      for (uint32_t i = 0; i < hits.count && i < 4; ++i) (void)idx->base(hits.pos[i]);
    }
    for (const auto& c : idx->contigs()) (void)idx->has_n(c.begin, c.begin + c.length);
  } catch (const gatemap::Error&) {
  }
  return 0;
}
