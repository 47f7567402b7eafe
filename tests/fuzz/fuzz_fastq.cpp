// libFuzzer target: the FASTQ/FASTA reads parser (plain, gzip, BGZF), single and
// smart-paired (-p). Bad input must end in gatemap::Error, never a crash or a hang.
#include "common/error.hpp"
#include "io/reads/fastq.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gatemap::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  for (const bool interleaved : {false, true}) {
    try {
      gatemap::io::FastqSource src(file.path(), "", interleaved);
      gatemap::io::ReadBatch batch;
      gatemap::io::SinglesAmongPairs singles;
      while (src.next_batch(batch, 64, 64 * 300, &singles)) {
      }
    } catch (const gatemap::Error&) {
    }
  }
  return 0;
}
