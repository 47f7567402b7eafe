// libFuzzer target: the PairHMM benchmark file parser; what it accepts is then scored by
// the CPU twin.
#include "caller/pairhmm/pairhmm.hpp"
#include "common/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gatemap::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  try {
    gatemap::caller::pairhmm::PairHmmBatch batch;
    gatemap::caller::pairhmm::read_pairhmm_file(file.path(), batch);
    if (batch.cell_count() < 2000000) {
      std::vector<double> lik;
      gatemap::caller::pairhmm::pairhmm_cpu(batch, {}, lik);
    }
  } catch (const gatemap::Error&) {
  }
  return 0;
}
